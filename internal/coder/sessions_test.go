package coder

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

func TestSessionSurvivesARestartAndReplaysOnLoad(t *testing.T) {
	st := openStore(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	first := newLocalAgent(t, dir, st, Options{judge: fakeJudge{}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("list_files", `{}`)}},
		fakellm.Reply{Thinking: []string{"Nothing here."}, Content: []string{"The workspace ", "is empty."}},
	)
	id := first.newSession()
	first.prompt("what is in the workspace?")
	first.stop() // the agent process ends

	second := newLocalAgent(t, dir, st, Options{judge: fakeJudge{}},
		fakellm.Reply{Content: []string{"You asked what is in the workspace."}},
	)
	init, err := second.conn.Initialize(t.Context(), &acp.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	caps := init.AgentCapabilities
	if !caps.LoadSession || caps.SessionCapabilities.List == nil || caps.SessionCapabilities.Resume == nil || caps.SessionCapabilities.Close == nil {
		t.Fatalf("capabilities %+v", caps)
	}
	list, err := second.conn.ListSessions(t.Context(), &acp.ListSessionsRequest{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != id || list.Sessions[0].Title != "what is in the workspace?" || list.Sessions[0].UpdatedAt == "" {
		t.Fatalf("session/list: %+v", list.Sessions)
	}
	if _, err := second.conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: id, Cwd: dir, MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	// Everything replayed arrived before the response.
	var kinds []string
	var text, thought string
	for _, n := range second.client.take() {
		if n.SessionID != id {
			t.Errorf("an update for %s", n.SessionID)
		}
		kinds = append(kinds, n.Update.Kind())
		if c := n.Update.AgentMessageChunk; c != nil {
			s, _ := c.Content.AsText()
			text += s
		}
		if c := n.Update.AgentThoughtChunk; c != nil {
			thought, _ = c.Content.AsText()
		}
	}
	got := strings.Join(kinds, " ")
	if !strings.HasPrefix(got, "user_message_chunk tool_call agent_thought_chunk agent_message_chunk") {
		t.Errorf("replay: %s", got)
	}
	if text != "The workspace is empty." || thought != "Nothing here." {
		t.Errorf("replayed text %q, thought %q", text, thought)
	}

	// The model sees the earlier conversation.
	second.id = id
	if stop := second.prompt("what did I ask?"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q", stop)
	}
	reqs := second.fake.Requests()
	msgs := reqs[len(reqs)-1].Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if want := "system user assistant tool assistant user"; strings.Join(roles, " ") != want {
		t.Errorf("the model saw %v, want %s", roles, want)
	}
	if msgs[1].Content != "what is in the workspace?" {
		t.Errorf("first user message %q", msgs[1].Content)
	}
}

func TestResumeAndCloseAcrossRestarts(t *testing.T) {
	st := openStore(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	first := newLocalAgent(t, dir, st, Options{judge: fakeJudge{}}, fakellm.Reply{Content: []string{"hi"}})
	id := first.newSession()
	first.prompt("hello")
	first.stop()

	second := newLocalAgent(t, dir, st, Options{judge: fakeJudge{}}, fakellm.Reply{Content: []string{"again"}})
	if _, err := second.conn.ResumeSession(t.Context(), &acp.ResumeSessionRequest{SessionID: id, Cwd: dir}); err != nil {
		t.Fatal(err)
	}
	for _, n := range second.client.take() {
		if n.Update.AgentMessageChunk != nil || n.Update.UserMessageChunk != nil {
			t.Errorf("session/resume replayed %s", n.Update.Kind())
		}
	}
	second.id = id
	second.prompt("hello again")
	if reqs := second.fake.Requests(); len(reqs[len(reqs)-1].Messages) != 4 { // system, hello, hi, hello again
		t.Errorf("the resumed model saw %d messages", len(reqs[len(reqs)-1].Messages))
	}
	if _, err := second.conn.CloseSession(t.Context(), &acp.CloseSessionRequest{SessionID: id}); err != nil {
		t.Fatal(err)
	}
	if _, err := second.conn.Prompt(t.Context(), &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock("x")}}); err == nil {
		t.Error("a closed session took a prompt")
	}
	// Closed, it is still kept: it can be loaded again.
	if _, err := second.conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: id, Cwd: dir, MCPServers: []acp.MCPServer{}}); err != nil {
		t.Errorf("load after close: %v", err)
	}
	if _, err := second.conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: "parley-nope", Cwd: dir, MCPServers: []acp.MCPServer{}}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("loading an unknown session: %v", err)
	}
}
