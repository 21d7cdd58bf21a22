package acp

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testAgent misbehaves in the ways real agents do, on purpose.
type testAgent struct {
	conn      *AgentConn
	cancelled atomic.Bool // session/cancel was handled
}

func (a *testAgent) Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error) {
	return &InitializeResponse{}, nil // ProtocolVersion left 0: the connection fills it in
}

func (a *testAgent) NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error) {
	// An update before the response that introduces the id, as agents in the wild send.
	a.conn.Update(ctx, "s1", AgentMessageChunk(TextBlock("early")))
	return &NewSessionResponse{SessionID: "s1"}, nil
}

func (a *testAgent) Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error) {
	text, _ := req.Prompt[0].AsText()
	switch text {
	case "ask":
		resp, err := a.conn.RequestPermission(ctx, &RequestPermissionRequest{
			SessionID: req.SessionID,
			ToolCall:  ToolCallUpdate{ToolCallID: "c1", Title: "rm -rf build"},
			Options:   []PermissionOption{{OptionID: "y", Name: "Yes", Kind: PermissionOptionKindAllowOnce}},
		})
		if err != nil {
			return nil, err
		}
		// Only a turn known to be cancelled ends cancelled: an agent that reads the
		// outcome before session/cancel takes it for a refusal and goes on.
		if resp.Outcome.Cancelled != nil && a.cancelled.Load() {
			return &PromptResponse{StopReason: StopReasonCancelled}, nil
		}
	case "unknown":
		a.conn.Update(ctx, req.SessionID, SessionUpdate{Unknown: json.RawMessage(`{"sessionUpdate":"compaction_summary_chunk","compactionId":"k","content":{"type":"text","text":"x"},"extra":1}`)})
	}
	for range 100 {
		a.conn.Update(ctx, req.SessionID, AgentMessageChunk(TextBlock(".")))
	}
	return &PromptResponse{StopReason: StopReasonEndTurn}, nil
}

func (a *testAgent) Cancel(ctx context.Context, req *CancelNotification) error {
	a.cancelled.Store(true)
	return nil
}

// testClient records updates and holds permission requests until their context ends.
type testClient struct {
	mu      sync.Mutex
	updates []SessionUpdate
	asked   chan struct{}
}

func (c *testClient) SessionUpdate(ctx context.Context, n *SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	return nil
}

func (c *testClient) RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error) {
	close(c.asked)
	<-ctx.Done()
	return nil, ctx.Err() // ClientConn turns a cancelled turn into the cancelled outcome
}

func (c *testClient) take() []SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates
	c.updates = nil
	return u
}

func connect(t *testing.T) (*ClientConn, *testClient) {
	t.Helper()
	x, y := net.Pipe()
	a := &testAgent{}
	NewAgentConn(y, func(conn *AgentConn) Agent { a.conn = conn; return a }, nil)
	c := &testClient{asked: make(chan struct{})}
	conn := NewClientConn(x, func(*ClientConn) Client { return c }, nil)
	t.Cleanup(func() { conn.Close(); a.conn.Close() })
	resp, err := conn.Initialize(t.Context(), &InitializeRequest{})
	if err != nil || resp.ProtocolVersion != ProtocolVersion {
		t.Fatalf("initialize: %+v, %v", resp, err)
	}
	return conn, c
}

func TestUpdatesBeforeTheSessionResponseAreKept(t *testing.T) {
	conn, c := connect(t)
	if _, err := conn.NewSession(t.Context(), &NewSessionRequest{Cwd: "/w", McpServers: []McpServer{}}); err != nil {
		t.Fatal(err)
	}
	u := c.take()
	if len(u) != 1 || u[0].AgentMessageChunk == nil {
		t.Fatalf("after session/new the client has %+v; want the early update", u)
	}
}

func TestPromptReturnsAfterItsUpdates(t *testing.T) {
	conn, c := connect(t)
	conn.NewSession(t.Context(), &NewSessionRequest{Cwd: "/w", McpServers: []McpServer{}})
	c.take()
	for range 20 {
		if _, err := conn.Prompt(t.Context(), &PromptRequest{SessionID: "s1", Prompt: []ContentBlock{TextBlock("go")}}); err != nil {
			t.Fatal(err)
		}
		if n := len(c.take()); n != 100 {
			t.Fatalf("Prompt returned with %d of 100 updates handled", n)
		}
	}
}

func TestUnknownUpdateKindsArriveVerbatim(t *testing.T) {
	conn, c := connect(t)
	conn.NewSession(t.Context(), &NewSessionRequest{Cwd: "/w", McpServers: []McpServer{}})
	c.take()
	conn.Prompt(t.Context(), &PromptRequest{SessionID: "s1", Prompt: []ContentBlock{TextBlock("unknown")}})
	u := c.take()
	if u[0].Unknown == nil || u[0].Kind() != "compaction_summary_chunk" || json.Member(u[0].Unknown, "extra") == nil {
		t.Errorf("first update %+v; want the unknown kind kept whole", u[0])
	}
}

func TestCancelAnswersPendingPermissionCancelled(t *testing.T) {
	conn, c := connect(t)
	conn.NewSession(t.Context(), &NewSessionRequest{Cwd: "/w", McpServers: []McpServer{}})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan StopReason)
	go func() {
		resp, err := conn.Prompt(ctx, &PromptRequest{SessionID: "s1", Prompt: []ContentBlock{TextBlock("ask")}})
		if err != nil {
			t.Error(err)
			done <- ""
			return
		}
		done <- resp.StopReason
	}()
	<-c.asked
	cancel()
	if stop := <-done; stop != StopReasonCancelled {
		t.Errorf("stop %q, want cancelled", stop)
	}
}
