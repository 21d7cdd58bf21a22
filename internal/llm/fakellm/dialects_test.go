package fakellm_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// sseEvent is one server-sent event: its name (may be empty) and its data decoded.
type sseEvent struct {
	Name string
	Data map[string]any
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readSSE(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, content type %q, want an event stream: %s", resp.StatusCode, ct, body)
	}
	var events []sseEvent
	var name string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case line == "data: [DONE]":
		case strings.HasPrefix(line, "data: "):
			ev := sseEvent{Name: name}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.Data); err != nil {
				t.Fatalf("data is not JSON: %q", line)
			}
			events = append(events, ev)
			name = ""
		}
	}
	return events
}

func readJSON(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	var v map[string]any
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("status %d, body not JSON: %s", resp.StatusCode, body)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	return v
}

func names(events []sseEvent) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Name)
	}
	return out
}

// at walks v by keys (strings for objects, ints for arrays).
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// A script answers by what the request says, whatever its order and dialect.
func contentScript() []fakellm.Reply {
	return []fakellm.Reply{
		{Match: func(r *fakellm.Recorded) bool { return len(r.ToolResults()) > 0 }, Content: []string{"saw ", "the result"}, Reuse: true},
		{Match: func(r *fakellm.Recorded) bool { return strings.Contains(r.LastUser(), "CALL") },
			ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "shell", Arguments: json.RawMessage(`{"command":"ls"}`)}}, Reuse: true},
		{Match: func(r *fakellm.Recorded) bool { return strings.Contains(r.LastUser(), "THINK") },
			Thinking: []string{"hm", "m"}, Content: []string{"thought"}, Reuse: true},
		{Content: []string{"Hel", "lo"}, Reuse: true},
	}
}

func TestResponses(t *testing.T) {
	s := fakellm.New(t, contentScript()...)
	url := s.OpenAIURL() + "/responses"

	t.Run("text", func(t *testing.T) {
		ev := readSSE(t, post(t, url, `{"model":"m","instructions":"be brief","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}],"stream":true}`))
		want := []string{"response.created", "response.output_item.added", "response.output_text.delta", "response.output_text.delta", "response.output_item.done", "response.completed"}
		if diff := cmp.Diff(want, names(ev)); diff != "" {
			t.Fatalf("events (-want +got):\n%s", diff)
		}
		for _, e := range ev {
			if e.Data["type"] != e.Name {
				t.Errorf("event %s carries type %v", e.Name, e.Data["type"])
			}
		}
		if got := at(ev[4].Data, "item", "content", 0, "text"); got != "Hello" {
			t.Errorf("done item text %v", got)
		}
		if got := at(ev[5].Data, "response", "usage", "output_tokens"); got != float64(fakellm.Tokens("Hello")) {
			t.Errorf("usage %v", at(ev[5].Data, "response", "usage"))
		}
	})
	t.Run("reasoning", func(t *testing.T) {
		ev := readSSE(t, post(t, url, `{"model":"m","input":"THINK","stream":true}`))
		if ev[1].Data["item"].(map[string]any)["type"] != "reasoning" || at(ev[4].Data, "item", "summary", 0, "text") != "hmm" {
			t.Errorf("reasoning: %v", names(ev))
		}
	})
	t.Run("function call, in a namespace", func(t *testing.T) {
		ev := readSSE(t, post(t, url, `{"model":"m","input":[{"role":"user","content":"CALL"}],"tools":[
			{"type":"namespace","name":"mcp__x","tools":[{"type":"function","name":"shell","parameters":{"type":"object","properties":{"command":{}}}}]}],"stream":true}`))
		item := at(ev[1].Data, "item").(map[string]any)
		if item["type"] != "function_call" || item["call_id"] != "call_1" || item["name"] != "shell" || item["arguments"] != `{"command":"ls"}` || item["namespace"] != "mcp__x" {
			t.Errorf("call item %v", item)
		}
		rec := s.Requests()[len(s.Requests())-1]
		tool, ok := rec.Tool("shell")
		if !ok || tool.Namespace != "mcp__x" || !tool.Property("command") {
			t.Errorf("tools %+v", rec.Tools)
		}
	})
	t.Run("custom tool call", func(t *testing.T) {
		ev := readSSE(t, post(t, url, `{"model":"m","input":[{"role":"user","content":"CALL"}],"tools":[{"type":"custom","name":"shell"}],"stream":true}`))
		item := at(ev[1].Data, "item").(map[string]any)
		if item["type"] != "custom_tool_call" || item["input"] != `{"command":"ls"}` {
			t.Errorf("custom call item %v", item)
		}
	})
	t.Run("tool output", func(t *testing.T) {
		ev := readSSE(t, post(t, url, `{"model":"m","input":[{"role":"user","content":"CALL"},
			{"type":"function_call","call_id":"call_1","name":"shell","arguments":"{}"},
			{"type":"function_call_output","call_id":"call_1","output":"a.txt"}],"stream":true}`))
		if got := at(ev[len(ev)-2].Data, "item", "content", 0, "text"); got != "saw the result" {
			t.Errorf("reply %v", got)
		}
		rec := s.Requests()[len(s.Requests())-1]
		if m, ok := rec.ToolResult("call_1"); !ok || m.Content != "a.txt" {
			t.Errorf("tool result %+v, %v", m, ok)
		}
	})
}

func TestAnthropicMessages(t *testing.T) {
	s := fakellm.New(t, contentScript()...)
	url := s.URL() + "/v1/messages?beta=true"

	t.Run("stream", func(t *testing.T) {
		ev := readSSE(t, post(t, url, `{"model":"m","system":[{"type":"text","text":"sys"}],"messages":[{"role":"user","content":"hi"}],"stream":true}`))
		want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
		if diff := cmp.Diff(want, names(ev)); diff != "" {
			t.Fatalf("events (-want +got):\n%s", diff)
		}
		if at(ev[2].Data, "delta", "text") != "Hel" || at(ev[5].Data, "delta", "stop_reason") != "end_turn" {
			t.Errorf("events %v", ev)
		}
	})
	t.Run("thinking and tool use", func(t *testing.T) {
		ev := readSSE(t, post(t, url, `{"model":"m","messages":[{"role":"user","content":"THINK"}],"stream":true}`))
		if at(ev[1].Data, "content_block", "type") != "thinking" || at(ev[2].Data, "delta", "thinking") != "hm" {
			t.Errorf("thinking: %v", ev)
		}
		ev = readSSE(t, post(t, url, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"CALL"}]}],"tools":[{"name":"shell","input_schema":{"type":"object"}}],"stream":true}`))
		var partial string
		for _, e := range ev {
			if d, _ := at(e.Data, "delta", "partial_json").(string); d != "" {
				partial += d
			}
		}
		if at(ev[1].Data, "content_block", "type") != "tool_use" || at(ev[1].Data, "content_block", "id") != "call_1" || partial != `{"command":"ls"}` {
			t.Errorf("tool use: %v", ev)
		}
		if at(ev[len(ev)-2].Data, "delta", "stop_reason") != "tool_use" {
			t.Errorf("stop reason: %v", ev[len(ev)-2].Data)
		}
	})
	t.Run("tool result, not streamed", func(t *testing.T) {
		msg := readJSON(t, post(t, url, `{"model":"m","messages":[{"role":"user","content":"CALL"},
			{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"shell","input":{"command":"ls"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"a.txt"}]}]}]}`))
		if at(msg, "content", 0, "text") != "saw the result" || msg["stop_reason"] != "end_turn" || msg["type"] != "message" {
			t.Errorf("message %v", msg)
		}
		rec := s.Requests()[len(s.Requests())-1]
		if m, ok := rec.ToolResult("call_1"); !ok || m.Content != "a.txt" || rec.LastUser() != "CALL" {
			t.Errorf("recorded %+v", rec.Messages)
		}
	})
	t.Run("count_tokens", func(t *testing.T) {
		n := readJSON(t, post(t, s.URL()+"/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"three small words"}]}`))
		if n["input_tokens"] != 3.0 {
			t.Errorf("count %v", n)
		}
	})
}

func TestGemini(t *testing.T) {
	s := fakellm.New(t, contentScript()...)
	base := s.URL() + "/v1beta/models/fake-model:"

	t.Run("stream", func(t *testing.T) {
		ev := readSSE(t, post(t, base+"streamGenerateContent?alt=sse", `{"systemInstruction":{"parts":[{"text":"sys"}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
		var text string
		for _, e := range ev {
			if e.Name != "" {
				t.Errorf("gemini events carry no name, got %q", e.Name)
			}
			if s, ok := at(e.Data, "candidates", 0, "content", "parts", 0, "text").(string); ok {
				text += s
			}
		}
		last := ev[len(ev)-1].Data
		if text != "Hello" || at(last, "candidates", 0, "finishReason") != "STOP" || at(last, "usageMetadata", "totalTokenCount") == nil {
			t.Errorf("text %q, last %v", text, last)
		}
		if rec := s.Requests()[0]; rec.Model != "fake-model" || rec.Messages[0].Role != "system" {
			t.Errorf("recorded model %q, messages %+v", rec.Model, rec.Messages)
		}
	})
	t.Run("function call and response", func(t *testing.T) {
		ev := readSSE(t, post(t, base+"streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"CALL"}]}],
			"tools":[{"functionDeclarations":[{"name":"shell","parametersJsonSchema":{"type":"object","properties":{"command":{}}}}]}]}`))
		fc := at(ev[len(ev)-1].Data, "candidates", 0, "content", "parts", 0, "functionCall")
		if at(fc, "name") != "shell" || at(fc, "args", "command") != "ls" {
			t.Errorf("function call %v", fc)
		}
		resp := readJSON(t, post(t, base+"generateContent", `{"contents":[{"role":"user","parts":[{"text":"CALL"}]},
			{"role":"model","parts":[{"functionCall":{"name":"shell","args":{"command":"ls"}}}]},
			{"role":"user","parts":[{"functionResponse":{"name":"shell","response":{"output":"a.txt"}}}]}]}`))
		if at(resp, "candidates", 0, "content", "parts", 0, "text") != "saw the result" {
			t.Errorf("generateContent %v", resp)
		}
		rec := s.Requests()[len(s.Requests())-1]
		if m, ok := rec.ToolResult("shell"); !ok || !strings.Contains(m.Content, "a.txt") {
			t.Errorf("tool result %+v", rec.Messages)
		}
		if tool, ok := rec.Tool("shell"); ok {
			t.Errorf("a request without tools reports %+v", tool)
		}
	})
	t.Run("countTokens", func(t *testing.T) {
		if n := readJSON(t, post(t, base+"countTokens", `{"contents":[{"role":"user","parts":[{"text":"two words"}]}]}`)); n["totalTokens"] != 2.0 {
			t.Errorf("count %v", n)
		}
	})
}

func TestOpenAIChatContentParts(t *testing.T) {
	s := fakellm.New(t, contentScript()...)
	ev := readSSE(t, post(t, s.OpenAIURL()+"/chat/completions", `{"model":"m","stream":true,"messages":[
		{"role":"system","content":"sys"},
		{"role":"user","content":[{"type":"text","text":"CA"},{"type":"text","text":"LL"}]}],
		"tools":[{"type":"function","function":{"name":"shell","parameters":{"type":"object","properties":{"command":{}}}}}]}`))
	var name string
	for _, e := range ev {
		if n, ok := at(e.Data, "choices", 0, "delta", "tool_calls", 0, "function", "name").(string); ok {
			name = n
		}
	}
	if name != "shell" {
		t.Errorf("no call of shell in %v", ev)
	}
	rec := s.Requests()[0]
	if rec.LastUser() != "CALL" || !rec.Tools[0].Property("command") {
		t.Errorf("recorded %+v, tools %+v", rec.Messages, rec.Tools)
	}
}

// A slow stream stops when the client goes away, and an unknown endpoint is answered
// 404 and recorded.
func TestSlowStreamAndUnknownEndpoint(t *testing.T) {
	s := fakellm.New(t, fakellm.Reply{Content: strings.Split(strings.Repeat("x", 1000), ""), Delay: time.Hour})
	resp := post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`)
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "event: message_start") {
		t.Fatalf("first line %q, %v", line, err)
	}
	resp.Body.Close() // the handler's pause ends with the request

	r, err := http.Get(s.URL() + "/v1/nothing-here")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusNotFound || len(s.RequestsTo("/v1/nothing")) != 1 {
		t.Errorf("status %d, recorded %d", r.StatusCode, len(s.RequestsTo("/v1/nothing")))
	}
}

// An Answer reply is made from the request; entries that answer nil leave the request to
// the next ones.
func TestAnswerFromTheRequest(t *testing.T) {
	s := fakellm.New(t,
		fakellm.Reply{Answer: func(r *fakellm.Recorded) *fakellm.Reply {
			if !strings.HasPrefix(r.LastUser(), "echo ") {
				return nil
			}
			return &fakellm.Reply{Content: []string{strings.TrimPrefix(r.LastUser(), "echo ")}}
		}, Reuse: true},
		fakellm.Reply{Content: []string{"fallback"}, Reuse: true},
	)
	for prompt, want := range map[string]string{"echo one": "one", "echo two": "two", "other": "fallback"} {
		msg := readJSON(t, post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"`+prompt+`"}]}`))
		if got := at(msg, "content", 0, "text"); got != want {
			t.Errorf("%q: got %v, want %q", prompt, got, want)
		}
	}
}
