package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/acp"
)

// wsClientStream carries ACP over a WebSocket as parley's /acp wants it: one JSON-RPC
// message a text frame (the connection writes lines; a frame is read as one line).
type wsClientStream struct {
	ctx     context.Context
	ws      *websocket.Conn
	wmu     sync.Mutex
	partial []byte
	readBuf []byte
}

func (s *wsClientStream) Read(p []byte) (int, error) {
	for len(s.readBuf) == 0 {
		typ, data, err := s.ws.Read(s.ctx)
		if err != nil {
			return 0, io.EOF
		}
		if typ == websocket.MessageText {
			s.readBuf = append(data, '\n')
		}
	}
	n := copy(p, s.readBuf)
	s.readBuf = s.readBuf[n:]
	return n, nil
}

func (s *wsClientStream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = append(s.partial, p...)
			return n, nil
		}
		line := append(s.partial, p[:i]...)
		s.partial = nil
		if err := s.ws.Write(s.ctx, websocket.MessageText, line); err != nil {
			return 0, err
		}
		p = p[i+1:]
	}
}

func (s *wsClientStream) Close() error { return s.ws.Close(websocket.StatusNormalClosure, "") }

// viewClient is a plain ACP client (no parley extensions) of a parley web server: it
// records the agent's text, and answers a permission question with answer or, if nil,
// waits until the question is withdrawn ($/cancel_request).
type viewClient struct {
	mu        sync.Mutex
	text      strings.Builder
	asked     int
	withdrawn int
	answer    func() acp.RequestPermissionOutcome
	changed   chan struct{}
}

func (c *viewClient) SessionUpdate(_ context.Context, n *acp.SessionNotification) error {
	c.mu.Lock()
	if ch := n.Update.AgentMessageChunk; ch != nil {
		s, _ := ch.Content.AsText()
		c.text.WriteString(s)
	}
	c.mu.Unlock()
	c.signal()
	return nil
}

func (c *viewClient) RequestPermission(ctx context.Context, _ *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked++
	answer := c.answer
	c.mu.Unlock()
	c.signal()
	if answer != nil {
		return &acp.RequestPermissionResponse{Outcome: answer()}, nil
	}
	<-ctx.Done()
	c.mu.Lock()
	c.withdrawn++
	c.mu.Unlock()
	c.signal()
	return nil, ctx.Err()
}

func (c *viewClient) signal() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *viewClient) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(30 * time.Second) // a hang guard
	for {
		c.mu.Lock()
		ok := cond()
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// dialView connects an ACP client to parley web's /acp with the token.
func dialView(t *testing.T, s *webServer, client *viewClient) *acp.ClientConn {
	t.Helper()
	ws, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(s.base, "http")+"/acp", &websocket.DialOptions{Subprotocols: []string{"acp", "parley-token." + s.token}})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	conn := acp.NewClientConn(&wsClientStream{ctx: context.Background(), ws: ws}, func(*acp.ClientConn) acp.Client { return client }, nil)
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.Initialize(t.Context(), &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestWebTwoACPClientsShareOneConversation: two ACP clients on one conversation of parley
// web, the second attached with session/load, see the same reply as it streams; the
// permission question shows in both, and the one answer given closes it in the other. A
// third that drops mid-turn and attaches again has the whole reply, once.
func TestWebTwoACPClientsShareOneConversation(t *testing.T) {
	t.Parallel()
	s := startWeb(t, nil, "--no-open", "--agent", "eliza", "--log", "info")
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	first := &viewClient{changed: make(chan struct{}, 1)}
	second := &viewClient{changed: make(chan struct{}, 1), answer: func() acp.RequestPermissionOutcome {
		<-release
		return acp.SelectedOutcome(acp.PermissionOptionID(acp.PermissionOptionKindAllowOnce))
	}}
	c1 := dialView(t, s, first)
	created, err := c1.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: s.cwd(t), MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	c2 := dialView(t, s, second)
	if _, err := c2.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: created.SessionID, Cwd: s.cwd(t), MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}

	// A third client is there when the question comes, and drops; it attaches again
	// while the question is still open.
	dropped := &viewClient{changed: make(chan struct{}, 1)}
	c3 := dialView(t, s, dropped)
	if _, err := c3.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: created.SessionID, Cwd: s.cwd(t), MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}

	ended := make(chan *acp.PromptResponse, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		resp, _ := c1.Prompt(context.Background(), &acp.PromptRequest{SessionID: created.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(
			"slowly one two three four five\nrequest permission Delete everything\nflood 300")}})
		ended <- resp
	})
	first.waitFor(t, "the question in the first client", func() bool { return first.asked == 1 })
	second.waitFor(t, "the question in the second client", func() bool { return second.asked == 1 })
	dropped.waitFor(t, "the question in the third client", func() bool { return dropped.asked == 1 })
	for _, c := range []*viewClient{first, second, dropped} {
		c.mu.Lock()
		if text := c.text.String(); !strings.Contains(text, "one two three four five") {
			t.Errorf("a client had %q before the question", text)
		}
		c.mu.Unlock()
	}
	c3.Close()
	back := &viewClient{changed: make(chan struct{}, 1)}
	c4 := dialView(t, s, back)
	if _, err := c4.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: created.SessionID, Cwd: s.cwd(t), MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	back.waitFor(t, "the open question in the client attached again", func() bool { return back.asked == 1 })
	free() // the second answers
	first.waitFor(t, "the question closed in the first client", func() bool { return first.withdrawn == 1 })
	select {
	case resp := <-ended:
		if resp == nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("the turn ended %+v", resp)
		}
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("the turn did not end")
	}
	first.mu.Lock()
	want := first.text.String()
	first.mu.Unlock()
	if !strings.Contains(want, "permission: allow_once") || !strings.HasSuffix(want, "299 ") {
		t.Fatalf("the first client's reply %q", want)
	}
	for _, c := range []*viewClient{second, back} {
		var got string
		c.waitFor(t, "the whole reply", func() bool { got = c.text.String(); return len(got) >= len(want) })
		if got != want {
			t.Errorf("a client saw %q, the first %q", got, want)
		}
	}
	back.waitFor(t, "the question closed in the client attached again", func() bool { return back.withdrawn == 1 })

	// The server's log tells both attaches and the one answer (a detach, which the
	// server may learn of only as it stops, is in internal/acpserver's tests).
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
	log := s.stderr.String()
	for _, want := range []string{`msg="a view attached"`, "by=session/new", "by=session/load", `msg="a question answered"`, `answer="Allow once"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log has no %s:\n%s", want, log)
		}
	}
	if n := strings.Count(log, `msg="a question answered"`); n != 1 {
		t.Errorf("%d answers logged, want 1", n)
	}
}
