package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// hangGuard bounds a wait that the code under test must end; it is never how a test
// synchronises.
const hangGuard = 10 * time.Second

// waitingAgent's Prompt waits for its context to end and returns ctx.Err(), as an agent
// author who tracks no cancellation of their own would write it.
type waitingAgent struct {
	conn    *AgentConn
	started chan struct{}
	cause   chan error // context.Cause of each Prompt's context when it ended
	closed  chan SessionID
	heard   chan *CancelNotification
	ext     chan string
}

func newWaitingAgent() *waitingAgent {
	return &waitingAgent{started: make(chan struct{}, 8), cause: make(chan error, 8), closed: make(chan SessionID, 8), heard: make(chan *CancelNotification, 8), ext: make(chan string, 8)}
}

func (a *waitingAgent) Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error) {
	return &InitializeResponse{}, nil
}

func (a *waitingAgent) NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error) {
	return &NewSessionResponse{SessionID: "s1"}, nil
}

func (a *waitingAgent) Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error) {
	a.started <- struct{}{}
	if text := PromptText(req.Prompt); text == "fail" {
		return nil, errors.New("the model is down")
	}
	<-ctx.Done()
	a.cause <- context.Cause(ctx)
	// The last update of a cancelled turn goes out with the turn's (ended) context.
	if err := a.conn.Update(ctx, req.SessionID, AgentMessageChunk(TextBlock("stopped"))); err != nil {
		return nil, fmt.Errorf("reporting the end: %w", err)
	}
	return nil, ctx.Err()
}

func (a *waitingAgent) CloseSession(ctx context.Context, req *CloseSessionRequest) (*CloseSessionResponse, error) {
	a.closed <- req.SessionID
	return &CloseSessionResponse{}, nil
}

func (a *waitingAgent) Cancel(ctx context.Context, n *CancelNotification) error {
	a.heard <- n
	return nil
}

func (a *waitingAgent) HandleExtension(ctx context.Context, method string, params json.RawMessage, isNotification bool) (any, error) {
	switch method {
	case "_test/echo":
		var p map[string]any
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, ErrInvalidParams("%v", err)
		}
		return p, nil
	case "_test/wait":
		a.ext <- "wait started"
		<-ctx.Done()
		a.ext <- "wait ended"
		return nil, ctx.Err()
	case "_test/missing":
		e := Errorf(CodeResourceNotFound, "no such thing")
		e.Data = json.RawMessage(`{"thing":"x"}`)
		return nil, fmt.Errorf("looking it up: %w", e) // wrapped: the *Error still decides
	case "_test/note":
		a.ext <- "note " + string(params)
		return nil, nil
	}
	return nil, ErrMethodNotFound
}

// recordingClient records what the agent sent it.
type recordingClient struct {
	mu      sync.Mutex
	updates []SessionUpdate
	calls   chan string
}

func (c *recordingClient) SessionUpdate(ctx context.Context, n *SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	return nil
}

func (c *recordingClient) RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error) {
	c.calls <- "permission asked"
	<-ctx.Done()
	c.calls <- "permission withdrawn: " + context.Cause(ctx).Error()
	return nil, ctx.Err()
}

func (c *recordingClient) CreateElicitation(ctx context.Context, req *CreateElicitationRequest) (*CreateElicitationResponse, error) {
	c.calls <- fmt.Sprintf("elicit %s %s %s", req.Mode, req.Message, req.URL)
	return &CreateElicitationResponse{Action: ElicitationActionAccept}, nil
}

func (c *recordingClient) CompleteElicitation(ctx context.Context, n *CompleteElicitationNotification) error {
	c.calls <- "complete " + string(n.ElicitationID)
	return nil
}

func (c *recordingClient) HandleExtension(ctx context.Context, method string, params json.RawMessage, isNotification bool) (any, error) {
	if method == "_test/ping" && !isNotification {
		return map[string]string{"pong": string(params)}, nil
	}
	if isNotification {
		c.calls <- "notified " + method + " " + string(params)
		return nil, nil
	}
	return nil, ErrMethodNotFound
}

func (c *recordingClient) texts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, u := range c.updates {
		if u.AgentMessageChunk != nil {
			text, _ := u.AgentMessageChunk.Content.AsText()
			out = append(out, text)
		}
	}
	return out
}

func pair(t *testing.T) (*ClientConn, *recordingClient, *waitingAgent) {
	t.Helper()
	x, y := net.Pipe()
	a := newWaitingAgent()
	NewAgentConn(y, func(conn *AgentConn) Agent { a.conn = conn; return a }, nil)
	c := &recordingClient{calls: make(chan string, 16)}
	conn := NewClientConn(x, func(*ClientConn) Client { return c }, nil)
	t.Cleanup(func() { conn.Close(); a.conn.Close() })
	if _, err := conn.Initialize(t.Context(), &InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.NewSession(t.Context(), &NewSessionRequest{Cwd: "/w", MCPServers: []MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	return conn, c, a
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("%s did not happen", what)
		panic("unreachable")
	}
}

// prompt runs a prompt in the background and returns where its answer will arrive.
func prompt(conn *ClientConn, text string) <-chan string {
	out := make(chan string, 1)
	go func() {
		resp, err := conn.Prompt(context.Background(), &PromptRequest{SessionID: "s1", Prompt: []ContentBlock{TextBlock(text)}})
		if err != nil {
			out <- "error: " + err.Error()
			return
		}
		out <- string(resp.StopReason)
	}()
	return out
}

// TestSessionCancelEndsThePromptsContext: an agent that only watches its Prompt's context
// is cancelled by session/cancel, its ctx.Err() is answered "cancelled" (ACP forbids an
// error), and the update it sends with the ended context still arrives, before the answer.
func TestSessionCancelEndsThePromptsContext(t *testing.T) {
	conn, c, a := pair(t)
	answer := prompt(conn, "work")
	recv(t, a.started, "the prompt")
	if err := conn.Cancel(t.Context(), &CancelNotification{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if cause := recv(t, a.cause, "the end of the prompt's context"); !errors.Is(cause, ErrTurnCancelled) {
		t.Errorf("the context ended with cause %v; want ErrTurnCancelled", cause)
	}
	if got := recv(t, answer, "the answer"); got != string(StopReasonCancelled) {
		t.Errorf("the prompt was answered %q; want cancelled", got)
	}
	if got := c.texts(); len(got) != 1 || got[0] != "stopped" {
		t.Errorf("updates %q; want the agent's last update before the answer", got)
	}
	if n := recv(t, a.heard, "the Canceller"); n.SessionID != "s1" {
		t.Errorf("Cancel heard %+v", n)
	}
}

// TestCancelRightBehindThePrompt: a session/cancel written right behind its prompt
// cancels it, however late the prompt's goroutine starts.
func TestCancelRightBehindThePrompt(t *testing.T) {
	for i := range 50 {
		x, y := net.Pipe()
		a := newWaitingAgent()
		agent := NewAgentConn(y, func(conn *AgentConn) Agent { a.conn = conn; return a }, nil)
		peer := jsonrpc2.NewLineReader(x, 0)
		go fmt.Fprintf(x, `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"work"}]}}`+"\n"+
			`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`+"\n")
		var answer []byte
		for answer == nil {
			line, err := readLineWithin(peer, hangGuard)
			if err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
			if json.Member(line, "id") != nil {
				answer = line
			}
		}
		if !strings.Contains(string(answer), `"stopReason":"cancelled"`) {
			t.Fatalf("round %d: answer %s; want cancelled", i, answer)
		}
		x.Close()
		agent.Close()
	}
}

func readLineWithin(r *jsonrpc2.LineReader, d time.Duration) ([]byte, error) {
	type result struct {
		line []byte
		err  error
	}
	got := make(chan result, 1)
	go func() {
		line, err := r.ReadLine()
		got <- result{append([]byte(nil), line...), err}
	}()
	select {
	case r := <-got:
		return r.line, r.err
	case <-time.After(d):
		return nil, errors.New("no line arrived")
	}
}

// TestSessionCloseCancelsItsPrompts: session/close ends the session's running turn
// before CloseSession runs, as session/cancel would.
func TestSessionCloseCancelsItsPrompts(t *testing.T) {
	conn, _, a := pair(t)
	answer := prompt(conn, "work")
	recv(t, a.started, "the prompt")
	if _, err := conn.CloseSession(t.Context(), &CloseSessionRequest{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	recv(t, a.closed, "CloseSession")
	if cause := recv(t, a.cause, "the end of the prompt's context"); !errors.Is(cause, ErrTurnCancelled) {
		t.Errorf("cause %v; want ErrTurnCancelled", cause)
	}
	if got := recv(t, answer, "the answer"); got != string(StopReasonCancelled) {
		t.Errorf("answered %q; want cancelled", got)
	}
}

// TestCancelOnlyTouchesItsSession: session/cancel for another session leaves a turn alone.
func TestCancelOnlyTouchesItsSession(t *testing.T) {
	conn, _, a := pair(t)
	answer := prompt(conn, "work")
	recv(t, a.started, "the prompt")
	conn.Cancel(t.Context(), &CancelNotification{SessionID: "other"})
	recv(t, a.heard, "the Canceller") // handled: the turn of s1 must still run
	select {
	case cause := <-a.cause:
		t.Fatalf("the turn of s1 ended (%v) on a cancel for another session", cause)
	default:
	}
	conn.Cancel(t.Context(), &CancelNotification{SessionID: "s1"})
	recv(t, answer, "the answer")
}

// TestPromptErrorsStayErrors: without a cancel, a failing Prompt is an error, not a stop
// reason.
func TestPromptErrorsStayErrors(t *testing.T) {
	conn, _, a := pair(t)
	answer := prompt(conn, "fail")
	recv(t, a.started, "the prompt")
	if got := recv(t, answer, "the answer"); !strings.Contains(got, "the model is down") || !strings.Contains(got, "-32603") {
		t.Errorf("answered %q; want the internal error", got)
	}
}

// TestCancelRequestEndsTheHandlersContext: a call whose context ends sends
// $/cancel_request, which ends the context of the handler on the other side.
func TestCancelRequestEndsTheHandlersContext(t *testing.T) {
	conn, _, a := pair(t)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- conn.CallExtension(ctx, "_test/wait", map[string]int{}, nil) }()
	recv(t, a.ext, "the start of the handler")
	cancel()
	if err := recv(t, errc, "the call's return"); !IsCancelled(err) {
		t.Errorf("the call returned %v; want a cancellation", err)
	}
	recv(t, a.ext, "the end of the handler's context")

	// And the other way: the agent withdraws its permission request.
	go prompt(conn, "work")
	recv(t, a.started, "the prompt")
	c := conn.client.(*recordingClient)
	pctx, pcancel := context.WithCancel(t.Context())
	go a.conn.RequestPermission(pctx, &RequestPermissionRequest{SessionID: "s1", ToolCall: ToolCallUpdate{ToolCallID: "t"}, Options: []PermissionOption{}})
	recv(t, c.calls, "the permission request")
	pcancel()
	if got := recv(t, c.calls, "the withdrawal"); !strings.Contains(got, "withdrawn") {
		t.Errorf("client saw %q", got)
	}
	conn.Cancel(t.Context(), &CancelNotification{SessionID: "s1"})
}

// TestAgentSendsElicitations: the agent side can ask for input and announce a URL
// elicitation's end.
func TestAgentSendsElicitations(t *testing.T) {
	_, c, a := pair(t)
	req := &CreateElicitationRequest{Message: "Sign in", Mode: ElicitationModeURL,
		ElicitationURLMode:      ElicitationURLMode{ElicitationID: "e1", URL: "https://example.org/login"},
		ElicitationSessionScope: ElicitationSessionScope{SessionID: "s1"}}
	resp, err := a.conn.CreateElicitation(t.Context(), req)
	if err != nil || resp.Action != ElicitationActionAccept {
		t.Fatalf("elicitation answered %+v, %v", resp, err)
	}
	if got := recv(t, c.calls, "the elicitation"); got != "elicit url Sign in https://example.org/login" {
		t.Errorf("client saw %q", got)
	}
	if err := a.conn.CompleteElicitation(t.Context(), &CompleteElicitationNotification{ElicitationID: "e1"}); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, c.calls, "the completion"); got != "complete e1" {
		t.Errorf("client saw %q", got)
	}
}

// TestExtensionsBothWays: extension requests and notifications travel in both
// directions; unknown ones are answered CodeMethodNotFound, and a handler's *Error
// reaches the caller with its code.
func TestExtensionsBothWays(t *testing.T) {
	conn, c, a := pair(t)
	var echoed map[string]any
	if err := conn.CallExtension(t.Context(), "_test/echo", map[string]any{"n": 1}, &echoed); err != nil || echoed["n"] != float64(1) {
		t.Errorf("client → agent request: %v, %v", echoed, err)
	}
	if err := conn.NotifyExtension(t.Context(), "_test/note", map[string]int{"k": 2}); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, a.ext, "the agent's notification"); got != `note {"k":2}` {
		t.Errorf("agent saw %q", got)
	}
	var pong map[string]string
	if err := a.conn.CallExtension(t.Context(), "_test/ping", []int{7}, &pong); err != nil || pong["pong"] != "[7]" {
		t.Errorf("agent → client request: %v, %v", pong, err)
	}
	if err := a.conn.NotifyExtension(t.Context(), "_test/progress", map[string]int{"pct": 50}); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, c.calls, "the client's notification"); got != `notified _test/progress {"pct":50}` {
		t.Errorf("client saw %q", got)
	}
	for _, tc := range []struct {
		method string
		code   int64
	}{{"_test/unknown", CodeMethodNotFound}, {"_test/missing", CodeResourceNotFound}} {
		err := conn.CallExtension(t.Context(), tc.method, nil, nil)
		if e, ok := errors.AsType[*Error](err); !ok || e.Code != tc.code {
			t.Errorf("%s: %v; want an *Error with code %d", tc.method, err, tc.code)
		} else if tc.code == CodeResourceNotFound && string(e.Data) != `{"thing":"x"}` {
			t.Errorf("%s: data %s; want the handler's", tc.method, e.Data)
		}
	}
	err := a.conn.CallExtension(t.Context(), "_test/unknown", nil, nil)
	if e, ok := errors.AsType[*Error](err); !ok || e.Code != CodeMethodNotFound || !strings.Contains(e.Message, "_test/unknown") {
		t.Errorf("unknown method at the client: %v", err)
	}
}

// TestErrorDataReachesTheWire: what a handler's *Error carries reaches the wire as is.
func TestErrorDataReachesTheWire(t *testing.T) {
	x, y := net.Pipe()
	a := newWaitingAgent()
	agent := NewAgentConn(y, func(conn *AgentConn) Agent { a.conn = conn; return a }, nil)
	defer agent.Close()
	defer x.Close()
	go io.WriteString(x, `{"jsonrpc":"2.0","id":"q","method":"_test/missing"}`+"\n")
	line, err := readLineWithin(jsonrpc2.NewLineReader(x, 0), hangGuard)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":"q","error":{"code":-32002,"message":"no such thing","data":{"thing":"x"}}}`; string(line) != want {
		t.Errorf("got %s\nwant %s", line, want)
	}
}
