package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
)

// recorder is an ACP client that keeps every update and answers permission requests
// with the option of the kind it is told to choose.
type recorder struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
	choose  acp.PermissionOptionKind // "" answers cancelled, when the request is withdrawn
	asked   chan *acp.RequestPermissionRequest
}

func (r *recorder) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, n.Update)
	return nil
}

func (r *recorder) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	if r.asked != nil {
		r.asked <- req
	}
	if r.choose == "" {
		<-ctx.Done() // wait to be withdrawn or for the test to cancel the turn
		return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
	}
	for _, o := range req.Options {
		if o.Kind == r.choose {
			return &acp.RequestPermissionResponse{Outcome: acp.SelectedOutcome(o.OptionID)}, nil
		}
	}
	return nil, fmt.Errorf("no option of kind %s", r.choose)
}

// take returns and forgets the updates so far.
func (r *recorder) take() []acp.SessionUpdate {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.updates
	r.updates = nil
	return u
}

func messageText(updates []acp.SessionUpdate) (text string, chunks int) {
	for _, u := range updates {
		if u.AgentMessageChunk != nil {
			t, _ := u.AgentMessageChunk.Content.AsText()
			text += t
			chunks++
		}
	}
	return text, chunks
}

// startEliza runs `parley eliza --deterministic` as a child process, in a home of its own
// (the tests run in parallel), and connects to it.
func startEliza(t *testing.T, r *recorder) *agentproc.Server {
	t.Helper()
	spec := agentproc.Spec{Command: self(t), Args: []string{"eliza", "--deterministic"}, Env: append([]string{"PARLEY_TEST_ROLE=parley"}, isolatedXDG(t)...)}
	a, err := agentproc.Launch(t.Context(), spec, agentproc.LaunchOptions{Client: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if !a.Info.AgentCapabilities.LoadSession {
		t.Error("eliza does not advertise loadSession")
	}
	return a
}

func newSession(t *testing.T, a *agentproc.Server, servers ...acp.MCPServer) acp.SessionID {
	t.Helper()
	if servers == nil {
		servers = []acp.MCPServer{}
	}
	s, err := a.Conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: servers})
	if err != nil {
		t.Fatal(err)
	}
	return s.SessionID
}

func prompt(t *testing.T, ctx context.Context, a *agentproc.Server, id acp.SessionID, text string) acp.StopReason {
	t.Helper()
	resp, err := a.Conn.Prompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
	return resp.StopReason
}

func TestElizaConversation(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	a := startEliza(t, r)
	inputs := []string{"Hello", "I am worried about my tests", "I am worried about my tests", "My mother hates them", "xyzzy", "xyzzy"}
	var first []string
	for session := range 2 {
		id := newSession(t, a)
		r.take() // the setup updates
		var replies []string
		for _, in := range inputs {
			if stop := prompt(t, t.Context(), a, id, in); stop != acp.StopReasonEndTurn {
				t.Fatalf("stop reason %q", stop)
			}
			text, chunks := messageText(r.take())
			if chunks < 2 {
				t.Errorf("%q: reply %q came in %d chunk(s); want a stream", in, text, chunks)
			}
			replies = append(replies, text)
		}
		if replies[1] == replies[2] {
			t.Errorf("the same input twice got the same answer %q: rules must cycle", replies[1])
		}
		if !strings.Contains(replies[1], "worried about your tests") {
			t.Errorf("no reflection in %q", replies[1])
		}
		if session == 0 {
			first = replies
		} else if !slices.Equal(first, replies) {
			t.Errorf("a fresh deterministic session answered differently:\n%q\n%q", first, replies)
		}
	}
}

func TestElizaToolCallsThoughtsAndFlood(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	a := startEliza(t, r)
	id := newSession(t, a)
	r.take()
	prompt(t, t.Context(), a, id, "think about it\ntool call Run the tests\nflood 1000")
	var kinds []string
	var statuses []acp.ToolCallStatus
	for _, u := range r.take() {
		switch {
		case u.AgentThoughtChunk != nil:
			kinds = append(kinds, "thought")
		case u.ToolCall != nil:
			statuses = append(statuses, u.ToolCall.Status)
		case u.ToolCallUpdate != nil:
			statuses = append(statuses, u.ToolCallUpdate.Status)
			if u.ToolCallUpdate.Status == acp.ToolCallStatusCompleted && len(u.ToolCallUpdate.Content) == 0 {
				t.Error("the completed tool call carries no content")
			}
		case u.AgentMessageChunk != nil:
			if len(kinds) == 0 || kinds[len(kinds)-1] != "chunk" {
				kinds = append(kinds, "chunk")
			}
			kinds[len(kinds)-1] = "chunk"
		}
	}
	want := []acp.ToolCallStatus{acp.ToolCallStatusPending, acp.ToolCallStatusInProgress, acp.ToolCallStatusCompleted}
	if !slices.Equal(statuses, want) {
		t.Errorf("tool call statuses %v, want %v", statuses, want)
	}
	if kinds[0] != "thought" {
		t.Errorf("updates began with %v, want a thought", kinds)
	}
}

func TestElizaFloodCount(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	a := startEliza(t, r)
	id := newSession(t, a)
	r.take()
	prompt(t, t.Context(), a, id, "flood 5000")
	if _, n := messageText(r.take()); n != 5000 {
		t.Errorf("got %d chunks, want 5000", n)
	}
}

func TestElizaPermissionByKind(t *testing.T) {
	t.Parallel()
	for _, kind := range []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways, acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways} {
		r := &recorder{choose: kind}
		a := startEliza(t, r)
		id := newSession(t, a)
		r.take()
		prompt(t, t.Context(), a, id, "request permission deploy to production")
		if text, _ := messageText(r.take()); text != "permission: "+string(kind) {
			t.Errorf("chose %s, eliza said %q", kind, text)
		}
	}
}

func TestElizaCancel(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	a := startEliza(t, r)
	id := newSession(t, a)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan acp.StopReason)
	go func() { done <- prompt(t, ctx, a, id, "slowly "+strings.Repeat("word ", 500)) }()
	// Cancel once the first word has arrived.
	for {
		r.mu.Lock()
		_, n := messageText(r.updates)
		r.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond) // polling the recorder, not synchronising with the agent
	}
	cancel()
	if stop := <-done; stop != acp.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", stop)
	}
	if _, n := messageText(r.take()); n >= 500 {
		t.Errorf("all %d words arrived despite the cancel", n)
	}
	// The session still works afterwards.
	if stop := prompt(t, t.Context(), a, id, "hello"); stop != acp.StopReasonEndTurn {
		t.Errorf("after cancel: %q", stop)
	}
}

func TestElizaCancelWithPendingPermission(t *testing.T) {
	t.Parallel()
	r := &recorder{asked: make(chan *acp.RequestPermissionRequest, 1)}
	a := startEliza(t, r)
	id := newSession(t, a)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan acp.StopReason)
	go func() { done <- prompt(t, ctx, a, id, "request permission rm -rf /") }()
	<-r.asked
	r.take()
	cancel() // session/cancel; the recorder then answers the pending request "cancelled"
	if stop := <-done; stop != acp.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", stop)
	}
}

func TestElizaLoadAndClose(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	a := startEliza(t, r)
	id := newSession(t, a)
	prompt(t, t.Context(), a, id, "I need a holiday")
	r.take()
	if _, err := a.Conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: id, Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	replay := r.take()
	if len(replay) != 2 || replay[0].UserMessageChunk == nil || replay[1].AgentMessageChunk == nil {
		t.Fatalf("replay = %+v; want the user message then the reply", replay)
	}
	if text, _ := replay[0].UserMessageChunk.Content.AsText(); text != "I need a holiday" {
		t.Errorf("replayed user text %q", text)
	}
	if _, err := a.Conn.CloseSession(t.Context(), &acp.CloseSessionRequest{SessionID: id}); err != nil {
		t.Fatal(err)
	}
	_, err := a.Conn.Prompt(t.Context(), &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
	if e, ok := errors.AsType[*acp.Error](err); !ok || e.Code != acp.CodeResourceNotFound {
		t.Errorf("prompt to a closed session: %v, want -32002", err)
	}
	_, err = a.Conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: "nope", Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
	if e, ok := errors.AsType[*acp.Error](err); !ok || e.Code != acp.CodeResourceNotFound {
		t.Errorf("loading an unknown session: %v, want -32002", err)
	}
}

func TestElizaMCPTools(t *testing.T) {
	t.Parallel()
	const secret = "s3cret"
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newMCPServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("X-Secret") != secret {
			http.Error(w, "no secret", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, req)
	}))
	// Cleanups run last-first: eliza (and its MCP sessions) ends before the server does.
	t.Cleanup(srv.Close)
	servers := []acp.MCPServer{
		acp.StdioMCPServer("local", self(t), nil, []acp.EnvVariable{{Name: "PARLEY_TEST_ROLE", Value: "mcp-server"}}),
		acp.HTTPMCPServer("remote", srv.URL, []acp.HTTPHeader{{Name: "X-Secret", Value: secret}}),
	}
	r := &recorder{}
	a := startEliza(t, r)
	id := newSession(t, a, servers...)
	r.take()
	for _, server := range []string{"local", "remote"} {
		prompt(t, t.Context(), a, id, "list tools from "+server)
		text, _ := messageText(r.take())
		for _, tool := range []string{"- add: add two numbers", "- echo: echo the text", "- fail"} {
			if !strings.Contains(text, tool) {
				t.Errorf("%s: %q lacks %q", server, text, tool)
			}
		}
	}
	// Two calls that only finish together prove they run concurrently; the results come
	// back in line order.
	prompt(t, t.Context(), a, id, strings.Join([]string{
		`use tool local::echo with {"text":"meet"}`,
		`use tool local::echo with {"text":"greet"}`,
		`use tool remote::add with {"a":2,"b":3}`,
		`use tool remote::fail with {}`,
		`use tool nowhere::x`,
	}, "\n"))
	text, _ := messageText(r.take())
	lines := strings.Split(text, "\n")
	want := []string{"OK: MEET", "OK: GREET", "OK: 5", "ERROR: this tool always fails", `ERROR: no MCP server named "nowhere" in this session`}
	if !slices.Equal(lines, want) {
		t.Errorf("got\n%q\nwant\n%q", lines, want)
	}
}

// What a turn says slowly after other text starts on a line of its own.
func TestElizaSlowlyAfterTalkStartsANewLine(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run", "hello\nslowly one two")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "\none two") {
		t.Errorf("stdout %q: want the slow words on a line of their own", r.stdout)
	}
}
