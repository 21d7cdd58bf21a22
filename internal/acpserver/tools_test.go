package acpserver

import (
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// A relayed tool call carries what parley's views say of it, in _meta.parley: the
// agent's title in the present while it runs and in the past once done; the agent's own
// _meta.parley never gets through.
func TestToolCallsCarryParleysMessages(t *testing.T) {
	srv := newTestServer(t)
	p := connect(t, srv)
	s := openTestSession(t, p, "")
	prompt(t, p, s.SessionID, "tool call Build the project")
	p.mu.Lock()
	defer p.mu.Unlock()
	var got []parleyapi.ToolCallMeta
	for _, u := range p.updates {
		var meta acp.Meta
		switch {
		case u.ToolCall != nil:
			meta = u.ToolCall.Meta
		case u.ToolCallUpdate != nil:
			meta = u.ToolCallUpdate.Meta
		default:
			continue
		}
		var m parleyapi.ToolCallMeta
		if err := json.Unmarshal(meta["parley"], &m); err != nil {
			t.Fatalf("a tool call's _meta.parley %q: %v", meta["parley"], err)
		}
		got = append(got, m)
	}
	if len(got) < 2 {
		t.Fatalf("%d tool call updates; want the call and its end", len(got))
	}
	for _, m := range got {
		if m.Invocation != "Building the project" || m.PastTense != "Built the project" {
			t.Errorf("_meta.parley %+v: want Building the project / Built the project", m)
		}
	}
}

// The messages are added to a copy: the update other views share is not changed.
func TestToolMessagesLeaveTheSharedUpdateAlone(t *testing.T) {
	m := newToolMessages(t.TempDir())
	u := acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c1", Title: "Read the file", Meta: acp.Meta{"parley": json.RawMessage(`{"invocation":"spoofed"}`)}}}
	out := m.add(u)
	if string(u.ToolCall.Meta["parley"]) != `{"invocation":"spoofed"}` {
		t.Errorf("the shared update was changed: %s", u.ToolCall.Meta["parley"])
	}
	var got parleyapi.ToolCallMeta
	if err := json.Unmarshal(out.ToolCall.Meta["parley"], &got); err != nil || got.Invocation != "Reading the file" {
		t.Errorf("the relayed call's _meta.parley %s (%v): want parley's, not the agent's", out.ToolCall.Meta["parley"], err)
	}
}
