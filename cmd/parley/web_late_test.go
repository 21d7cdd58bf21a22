package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// frame is one JSON-RPC message parley sent a page.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// update is a session/update's params, as far as these tests read them.
type update struct {
	Update struct {
		SessionUpdate string `json:"sessionUpdate"`
		ToolCallID    string `json:"toolCallId"`
		Title         string `json:"title"`
		Status        string `json:"status"`
		Content       json.RawMessage
	} `json:"update"`
}

// framePage is a page on /acp that reads parley's frames one at a time and keeps them.
type framePage struct {
	t      *testing.T
	ws     *websocket.Conn
	frames []frame
}

func (p *framePage) write(v any) {
	p.t.Helper()
	b, _ := json.Marshal(v)
	if err := p.ws.Write(p.t.Context(), websocket.MessageText, b); err != nil {
		p.t.Fatal(err)
	}
}

func (p *framePage) request(id int, method string, params any) {
	p.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// until reads frames until one satisfies stop, and returns it.
func (p *framePage) until(what string, stop func(frame) bool) frame {
	p.t.Helper()
	for {
		_, data, err := p.ws.Read(p.t.Context())
		if err != nil {
			p.t.Fatalf("waiting for %s: %v", what, err)
		}
		var f frame
		if err := json.Unmarshal(data, &f); err != nil {
			p.t.Fatalf("%s: %v", data, err)
		}
		p.frames = append(p.frames, f)
		if stop(f) {
			return f
		}
	}
}

func isResponse(id string) func(frame) bool {
	return func(f frame) bool { return f.Method == "" && string(f.ID) == id }
}

func isMethod(method, holding string) func(frame) bool {
	return func(f frame) bool { return f.Method == method && strings.Contains(string(f.Params), holding) }
}

// shown is what frames showed of the conversation: the agent's text, the user's, and the
// tool_call updates by id.
func shown(frames []frame) (agent, user string, calls map[string][]update) {
	calls = map[string][]update{}
	for _, f := range frames {
		if f.Method != "session/update" {
			continue
		}
		var u update
		json.Unmarshal(f.Params, &u)
		var text struct{ Text string }
		switch u.Update.SessionUpdate {
		case "agent_message_chunk":
			json.Unmarshal(u.Update.Content, &text)
			agent += text.Text
		case "user_message_chunk":
			json.Unmarshal(u.Update.Content, &text)
			user += text.Text
		case "tool_call", "tool_call_update":
			calls[u.Update.ToolCallID] = append(calls[u.Update.ToolCallID], u)
		}
	}
	return agent, user, calls
}

// TestWebLateConnectionGetsTheHistoryThenTheLiveRest: a second connection that loads a
// session while its turn runs, with a question open and a prompt queued behind it, is
// sent what the session showed so far before the load's answer (the reply's chunks
// joined, the finished tool call once, in its last state), then the queue and the open
// question, then the rest of the turns live: in the end it has shown what the first
// connection did, nothing twice, nothing missing.
func TestWebLateConnectionGetsTheHistoryThenTheLiveRest(t *testing.T) {
	s := startWeb(t, nil, "--no-open", "--agent", "eliza")
	ws, err := initializeOver(t, s.base, nil, "acp", "parley-token."+s.token)
	if err != nil {
		t.Fatal(err)
	}
	first := &framePage{t: t, ws: ws}
	first.request(2, "session/new", map[string]any{"cwd": s.cwd(t), "mcpServers": []any{}})
	var created struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(first.until("session/new's answer", isResponse("2")).Result, &created)
	prompt := func(id int, text string) {
		first.request(id, "session/prompt", map[string]any{"sessionId": created.SessionID, "prompt": []any{map[string]any{"type": "text", "text": text}}, "_meta": map[string]any{"parley": map[string]any{"echo": true}}})
	}
	const asking = "tool call Build\nflood 300\nrequest permission Delete everything"
	prompt(3, asking)
	first.until("the question", isMethod("session/request_permission", "Delete everything"))
	prompt(4, "I feel fine")
	first.until("the queue", isMethod("_parley/queue", "I feel fine"))

	ws2, err := initializeOver(t, s.base, nil, "acp", "parley-token."+s.token)
	if err != nil {
		t.Fatal(err)
	}
	late := &framePage{t: t, ws: ws2}
	late.request(2, "session/load", map[string]any{"sessionId": created.SessionID, "cwd": s.cwd(t), "mcpServers": []any{}})
	loaded := late.until("session/load's answer", isResponse("2"))
	if !strings.Contains(string(loaded.Result), `"running":1`) {
		t.Errorf("session/load answered %s: want the running prompt 1", loaded.Result)
	}
	history := late.frames
	agentBefore, userBefore, callsBefore := shown(history)
	if userBefore != asking {
		t.Errorf("the history's user message %q, want %q", userBefore, asking)
	}
	if build := callsBefore["call-1"]; len(build) != 1 || build[0].Update.SessionUpdate != "tool_call" || build[0].Update.Status != "completed" || build[0].Update.Title != "Build" {
		t.Errorf("the finished tool call in the history: %+v (want one tool_call, completed)", build)
	}
	if n := len(history); n > 12 {
		t.Errorf("the history took %d frames: the flood's chunks were not joined", n)
	}
	agentFirst, _, _ := shown(first.frames)
	if agentBefore != agentFirst {
		t.Errorf("the history's reply %q, want what the first page was shown: %q", agentBefore, agentFirst)
	}

	// After the answer: the queue, then the open question, put to this page too.
	late.until("the queue", isMethod("_parley/queue", "I feel fine"))
	q := late.until("the open question", isMethod("session/request_permission", "Delete everything"))
	late.write(map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}})

	first.until("the first prompt's answer", isResponse("3"))
	first.until("the second prompt's answer", isResponse("4"))
	late.until("the end of the queued turn", func(f frame) bool {
		return f.Method == "_parley/queue" && strings.Contains(string(f.Params), `"running":null`) && strings.Contains(string(f.Params), `"queued":[]`)
	})
	agentLive, userLive, callsLive := shown(late.frames[len(history):])
	agentAll, _, _ := shown(first.frames)
	if agentBefore+agentLive != agentAll {
		t.Errorf("the late page was shown %q, the first %q", agentBefore+agentLive, agentAll)
	}
	if !strings.Contains(agentLive, "permission: allow_once") || strings.Contains(agentLive, "Build: completed") {
		t.Errorf("the live rest %q: want only what came after the load", agentLive)
	}
	if userLive != "I feel fine" {
		t.Errorf("the live user messages %q, want only the queued prompt's", userLive)
	}
	if len(callsLive["call-1"]) != 0 {
		t.Errorf("the finished tool call was shown again: %+v", callsLive["call-1"])
	}
}
