package vscodelm

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-acp/parley/internal/json"
)

func TestContentPartRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		in, out string
		want    ContentPart
	}{
		{`{"type":"text","value":"Hello"}`, `{"type":"text","value":"Hello"}`, TextPart("Hello")},
		{`{"type":"tool_call","toolCallId":"c1","toolName":"read_file","parameters":{"path":"a.go"},"$mid":20}`,
			`{"type":"tool_call","toolCallId":"c1","toolName":"read_file","parameters":{"path":"a.go"}}`,
			toolCall("c1", "read_file", `{"path":"a.go"}`)},
		{`{"type":"tool_result","toolCallId":"c1","result":[{"value":"package a"}]}`,
			`{"type":"tool_result","toolCallId":"c1","result":[{"value":"package a"}]}`,
			toolResult("c1", `[{"value":"package a"}]`)},
	} {
		var got ContentPart
		if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
			t.Fatalf("decoding %s: %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("decoding %s (-want +got):\n%s", tt.in, diff)
		}
		out, err := json.Marshal(got)
		if err != nil || string(out) != tt.out {
			t.Errorf("encoding: got %s, %v; want %s", out, err, tt.out)
		}
	}
	out, _ := json.Marshal(ContentPart{Type: PartToolCall, ToolCallID: "c", ToolName: "t"})
	if want := `{"type":"tool_call","toolCallId":"c","toolName":"t","parameters":{}}`; string(out) != want {
		t.Errorf("call without parameters: got %s, want %s", out, want)
	}
}

func TestUnknownPartTypeIsInvalidParams(t *testing.T) {
	var p ChatRequestParams
	err := json.Unmarshal([]byte(`{"modelId":"m","messages":[{"role":"user","content":[{"type":"image","data":"x"}]}],"agent":{"eliza":{}}}`), &p)
	if !errors.Is(err, ErrInvalidParams) {
		t.Errorf("got %v, want an error wrapping ErrInvalidParams", err)
	}
}

func TestChatRequestParams(t *testing.T) {
	var p ChatRequestParams
	in := `{"modelId":"elizacp","messages":[{"role":"user","content":[{"type":"text","value":"hi"}]}],
		"agent":{"id":"elizacp","command":"/p","args":["eliza"],"env":[]},
		"options":{"tools":[{"name":"read_file","inputSchema":{}}],"toolMode":"auto"},
		"cwd":"/work","additionalDirectories":["/other"],"capabilities":{"parts":["thinking"]}}`
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
	if diff := cmp.Diff([]ToolDefinition{{Name: "read_file", InputSchema: json.RawMessage(`{}`)}}, p.Tools()); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if !p.Capabilities.CanRender("thinking") || p.Capabilities.CanRender("tool_invocation") {
		t.Errorf("capabilities %+v", p.Capabilities)
	}
	if _, err := ParseAgent(p.Agent); err != nil {
		t.Error(err)
	}
	p = ChatRequestParams{Cwd: "relative"}
	if err := p.Validate(); !errors.Is(err, ErrInvalidParams) {
		t.Errorf("relative cwd: got %v", err)
	}
	var none ChatRequestParams
	if none.Tools() != nil || none.Capabilities.CanRender("thinking") {
		t.Error("absent options or capabilities are not empty")
	}
}

func TestRequestIDEchoedWithItsType(t *testing.T) {
	for _, id := range []string{`1`, `"abc"`} {
		var c CancelParams
		if err := json.Unmarshal([]byte(`{"requestId":`+id+`}`), &c); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(ResponsePartParams{RequestID: c.RequestID, Part: TextPart("x")})
		if want := `{"requestId":` + id + `,"part":{"type":"text","value":"x"}}`; string(out) != want {
			t.Errorf("got %s, want %s", out, want)
		}
	}
}

func TestCountTokens(t *testing.T) {
	for text, want := range map[string]int{"Hello, world!": 3, "": 1, "abc": 1, "héllo wörld": 3} {
		if got := CountTokens(text); got != want {
			t.Errorf("CountTokens(%q) = %d, want %d", text, got, want)
		}
	}
}

// TestResponsePartAppendsAsMarshalled: the text part's own encoder writes what encoding
// through reflection does, escapes and all.
func TestResponsePartAppendsAsMarshalled(t *testing.T) {
	for _, p := range []ResponsePartParams{
		{RequestID: json.RawMessage(`7`), Part: TextPart("plain")},
		{RequestID: json.RawMessage(`"a\"b"`), Part: TextPart("line\nnext \"quoted\" <tag> & \u2028 \x01")},
		{RequestID: json.RawMessage(`3`), Part: TextPart("")},
		{RequestID: json.RawMessage(`4`), Part: ContentPart{Type: PartToolCall, ToolCallID: "c1", ToolName: "t"}},
	} {
		got, err := p.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(responsePartWire(p))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("AppendJSON: %s\nwant      %s", got, want)
		}
	}
}
