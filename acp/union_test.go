package acp

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// An unknown kind that happens to have "content" must not be read as a message chunk:
// another Go ACP library did that, and a bridge then shows a compaction summary
// as something the user said.
func TestUnknownUpdateWithContentIsNotAChunk(t *testing.T) {
	const in = `{"sessionUpdate":"compaction_summary_chunk","compactionId":"c1","content":{"type":"text","text":"x"}}`
	var u SessionUpdate
	if err := json.Unmarshal([]byte(in), &u); err != nil {
		t.Fatal(err)
	}
	if u.UserMessageChunk != nil || u.AgentMessageChunk != nil || u.AgentThoughtChunk != nil {
		t.Fatalf("decoded as a chunk: %+v", u)
	}
	if !bytes.Equal(u.Unknown, []byte(in)) {
		t.Errorf("Unknown = %s, want the input verbatim", u.Unknown)
	}
	if u.Kind() != "compaction_summary_chunk" {
		t.Errorf("Kind() = %q", u.Kind())
	}
	out, err := json.Marshal(u)
	if err != nil || string(out) != in {
		t.Errorf("re-encoded %s, %v; want the input byte for byte", out, err)
	}

	// Read as the type it is, on purpose.
	var chunk CompactionSummaryChunk
	if err := json.Unmarshal(u.Unknown, &chunk); err != nil {
		t.Fatal(err)
	}
	if text, _ := chunk.Content.AsText(); chunk.CompactionID != "c1" || text != "x" {
		t.Errorf("chunk = %+v", chunk)
	}
}

func TestUnknownVariantsStayVerbatim(t *testing.T) {
	// Inside a parent the bytes are compacted, nothing else: no HTML escaping, no reordering.
	const update = `{"sessionUpdate":"notice","title":"a <b> & c","z":1,"a":{"y":2,"x":1}}`
	n := SessionNotification{SessionID: "s", Update: SessionUpdate{Unknown: json.RawMessage(update)}}
	out, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"sessionId":"s","update":` + update + `}`; string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestBuildAndReadAChunk(t *testing.T) {
	n := SessionNotification{SessionID: "s", Update: AgentMessageChunk(TextBlock("Hello <world>"))}
	out, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello <world>"}}}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	var back SessionNotification
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	text, ok := back.Update.AgentMessageChunk.Content.AsText()
	if !ok || text != "Hello <world>" || back.Update.Kind() != "agent_message_chunk" {
		t.Errorf("read back %q, %v, kind %q", text, ok, back.Update.Kind())
	}
	// The discriminators are consumed, not kept as unknown members.
	if back.Update.AgentMessageChunk.Extra != nil || back.Update.AgentMessageChunk.Content.Text.Extra != nil {
		t.Errorf("discriminator kept in Extra: %v, %v", back.Update.AgentMessageChunk.Extra, back.Update.AgentMessageChunk.Content.Text.Extra)
	}
}

func TestConstructors(t *testing.T) {
	old := "a"
	for _, tc := range []struct {
		v    any
		want string
	}{
		{UserMessageChunk(ResourceLinkBlock("a.go", "file:///a.go")), `{"sessionUpdate":"user_message_chunk","content":{"type":"resource_link","uri":"file:///a.go","name":"a.go"}}`},
		{AgentThoughtChunk(ImageBlock("AAAA", "image/png")), `{"sessionUpdate":"agent_thought_chunk","content":{"type":"image","data":"AAAA","mimeType":"image/png"}}`},
		{SessionUpdate{ToolCall: &ToolCall{ToolCallID: "c", Title: "Run", Kind: ToolKindExecute}}, `{"sessionUpdate":"tool_call","toolCallId":"c","title":"Run","kind":"execute"}`},
		{SessionUpdate{ToolCallUpdate: &ToolCallUpdate{ToolCallID: "c", Status: ToolCallStatusCompleted, Content: []ToolCallContent{
			ToolContent(TextBlock("ok")), TerminalContent("t1"), {Diff: &Diff{Path: "/a", OldText: &old, NewText: "b"}},
		}}}, `{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed","content":[{"type":"content","content":{"type":"text","text":"ok"}},{"type":"terminal","terminalId":"t1"},{"type":"diff","path":"/a","oldText":"a","newText":"b"}]}`},
		{SelectedOutcome("allow"), `{"outcome":"selected","optionId":"allow"}`},
		{CancelledOutcome(), `{"outcome":"cancelled"}`},
		{StdioMCPServer("fs", "/bin/fs", nil, nil), `{"name":"fs","command":"/bin/fs","args":[],"env":[]}`},
		{HTTPMCPServer("web", "https://x", nil), `{"type":"http","name":"web","url":"https://x","headers":[]}`},
		{AvailableCommand{Name: "web", Description: "Search", Input: &AvailableCommandInput{Unstructured: &UnstructuredCommandInput{Hint: "query"}}}, `{"name":"web","description":"Search","input":{"hint":"query"}}`},
		{SetSessionConfigOptionRequest{SessionID: "s", ConfigID: "model", Value: ConfigValueID("opus")}, `{"sessionId":"s","configId":"model","value":"opus"}`},
		{SetSessionConfigOptionRequest{SessionID: "s", ConfigID: "yolo", Value: ConfigValueBoolean(false)}, `{"sessionId":"s","configId":"yolo","type":"boolean","value":false}`},
		{SessionInfoUpdate{Title: PatchNull[string](), UpdatedAt: PatchValue("2026-01-01T00:00:00Z")}, `{"title":null,"updatedAt":"2026-01-01T00:00:00Z"}`},
	} {
		out, err := json.Marshal(tc.v)
		if err != nil || string(out) != tc.want {
			t.Errorf("%T:\n got %s, %v\nwant %s", tc.v, out, err, tc.want)
		}
	}
}

func TestSessionInfoUpdateTellsAbsentFromNull(t *testing.T) {
	var u SessionInfoUpdate
	if err := json.Unmarshal([]byte(`{"title":null}`), &u); err != nil {
		t.Fatal(err)
	}
	if !u.Title.Set || !u.Title.Null || u.UpdatedAt.Set {
		t.Errorf("title %+v, updatedAt %+v: want title cleared, updatedAt unchanged", u.Title, u.UpdatedAt)
	}
	if err := json.Unmarshal([]byte(`{"title":"New"}`), &u); err != nil {
		t.Fatal(err)
	}
	if u.Title != PatchValue("New") {
		t.Errorf("title %+v", u.Title)
	}
}

func TestUnionKinds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		v    interface{ Kind() string }
		want string
	}{
		{`{"type":"resource","resource":{"uri":"u","blob":"AA"}}`, new(ContentBlock), "resource"},
		{`{"type":"mystery"}`, new(ContentBlock), "mystery"},
		{`{"name":"s","command":"c","args":[],"env":[]}`, new(MCPServer), "stdio"},
		{`{"type":"stdio","name":"s","command":"c","args":[],"env":[]}`, new(MCPServer), "stdio"},
		{`{"type":"acp","name":"a","serverId":"x"}`, new(MCPServer), "acp"},
		{`{"id":"a","name":"A"}`, new(AuthMethod), "agent"},
		{`{"type":"terminal","id":"t","name":"T"}`, new(AuthMethod), "terminal"},
		{`{"type":"env_var","id":"e","name":"E"}`, new(AuthMethod), "env_var"},
		{`{"outcome":"selected","optionId":"o"}`, new(RequestPermissionOutcome), "selected"},
		{`{"type":"terminal","terminalId":"t"}`, new(ToolCallContent), "terminal"},
		{`{"id":"x","name":"X","type":"boolean","currentValue":true}`, new(SessionConfigOption), "boolean"},
		{`{"id":"x","name":"X","type":"slider"}`, new(SessionConfigOption), "slider"},
		{`{"hint":"h"}`, new(AvailableCommandInput), "unstructured"},
		{`{"uri":"u","text":"t"}`, new(EmbeddedResourceResource), "text"},
		{`{"type":"array","items":{"anyOf":[]}}`, new(ElicitationPropertySchema), "array"},
		{`{"anyOf":[{"const":"a","title":"A"}]}`, new(MultiSelectItems), "titled"},
	} {
		if err := json.Unmarshal([]byte(tc.in), tc.v); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got := tc.v.Kind(); got != tc.want {
			t.Errorf("%s: Kind() = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEmptyAndMissingUnions(t *testing.T) {
	// Sending a union with nothing set is a bug on our side: fail loudly instead of
	// writing null for the peer to trip over.
	for _, v := range []any{
		SessionUpdate{}, ContentBlock{}, ToolCallContent{}, MCPServer{}, AuthMethod{},
		RequestPermissionOutcome{}, SessionConfigOption{}, AvailableCommandInput{},
		SessionNotification{SessionID: "s"},
	} {
		if out, err := json.Marshal(v); err == nil {
			t.Errorf("%T encoded as %s, want an error", v, out)
		}
	}
	// A required union that is missing or null fails the message, with the member named.
	for _, tc := range []struct {
		in     string
		v      any
		member string
	}{
		{`{"sessionId":"s"}`, new(SessionNotification), "update"},
		{`{"sessionId":"s","update":null}`, new(SessionNotification), "update"},
		{`{"sessionUpdate":"agent_message_chunk"}`, new(SessionUpdate), "content"},
		{`{"outcome":null}`, new(RequestPermissionResponse), "outcome"},
		{`{"sessionId":"s","prompt":[null]}`, new(PromptRequest), ""},
		{`{"sessionId":"s","update":"agent_message_chunk"}`, new(SessionNotification), "update"},
	} {
		err := json.Unmarshal([]byte(tc.in), tc.v)
		if err == nil || !strings.Contains(err.Error(), tc.member) {
			t.Errorf("%s: error %v, want one naming %q", tc.in, err, tc.member)
		}
	}
}
