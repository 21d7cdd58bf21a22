package jsonrpc2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/json"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// connPair returns two connected Conns.
func connPair(t *testing.T, a, b Options) (*Conn, *Conn) {
	t.Helper()
	x, y := net.Pipe()
	ca, cb := NewConn(x, a), NewConn(y, b)
	t.Cleanup(func() { ca.Close(); cb.Close() })
	return ca, cb
}

// rawPeer is the far end of a Conn, speaking bytes, so tests control the exact wire.
type rawPeer struct {
	t     *testing.T
	conn  net.Conn
	lines *LineReader
}

func newRawPeer(t *testing.T, opts Options) (*Conn, *rawPeer) {
	t.Helper()
	x, y := net.Pipe()
	c := NewConn(x, opts)
	p := &rawPeer{t: t, conn: y, lines: NewLineReader(y, 0)}
	t.Cleanup(func() { y.Close(); c.Close() })
	return c, p
}

func (p *rawPeer) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.conn, l+"\n"); err != nil {
			p.t.Fatalf("raw peer write: %v", err)
		}
	}
}

// recv reads one message and returns it decoded as a generic object.
func (p *rawPeer) recv() map[string]any {
	p.t.Helper()
	line, err := p.lines.ReadLine()
	if err != nil {
		p.t.Fatalf("raw peer read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		p.t.Fatalf("raw peer got invalid JSON %q: %v", line, err)
	}
	return m
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

type echoParams struct {
	Text string `json:"text"`
}

var echo = HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
	switch req.Method {
	case "echo":
		var p echoParams
		if err := DecodeParams(req, &p); err != nil {
			return nil, err
		}
		return p, nil
	case "panic":
		panic("boom")
	case "fail":
		return nil, errors.New("it failed")
	case "wait":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, ErrMethodNotFound
})

func TestCallBothDirections(t *testing.T) {
	var b *Conn
	a, bConn := connPair(t,
		Options{Handler: echo},
		Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			// Answer by calling back the other side: requests cross in both directions.
			var back echoParams
			if err := b.Call(ctx, "echo", echoParams{Text: "back:" + string(req.Params)}, &back); err != nil {
				return nil, err
			}
			return back, nil
		})})
	b = bConn
	var got echoParams
	if err := a.Call(t.Context(), "anything", map[string]int{"n": 1}, &got); err != nil {
		t.Fatal(err)
	}
	if want := `back:{"n":1}`; got.Text != want {
		t.Errorf("got %q, want %q", got.Text, want)
	}
}

func TestConcurrentCalls(t *testing.T) {
	a, _ := connPair(t, Options{}, Options{Handler: echo})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			var got echoParams
			want := fmt.Sprint(i)
			if err := a.Call(t.Context(), "echo", echoParams{Text: want}, &got); err != nil || got.Text != want {
				t.Errorf("call %d: got %q, %v", i, got.Text, err)
			}
		})
	}
	wg.Wait()
}

func TestNotificationsInOrder(t *testing.T) {
	const n = 2000
	var got []int
	done := make(chan struct{})
	a, _ := connPair(t, Options{}, Options{QueueLength: 8, Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var p struct{ N int }
		json.Unmarshal(req.Params, &p)
		got = append(got, p.N) // notifications run one at a time: no lock needed
		if len(got) == n {
			close(done)
		}
		return nil, nil
	})})
	for i := range n {
		if err := a.Notify(t.Context(), "n", map[string]int{"N": i}); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	for i, v := range got {
		if v != i {
			t.Fatalf("notification %d arrived as %d: order broken", i, v)
		}
	}
}

// A response must not reach its caller before the notifications sent ahead of it were
// handled (the ACP prompt-response race).
func TestResponseBarrier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		handled := 0
		c, peer := newRawPeer(t, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			<-release
			handled++
			return nil, nil
		})})
		returned := make(chan error, 1)
		go func() { returned <- c.Call(context.Background(), "session/prompt", nil, nil) }()
		req := peer.recv()
		peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"n":1}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"n":2}}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"stopReason":"end_turn"}}`, req["id"]))
		synctest.Wait()
		select {
		case <-returned:
			t.Fatal("Call returned before the preceding notifications were handled")
		default:
		}
		close(release)
		if err := <-returned; err != nil {
			t.Fatal(err)
		}
		if handled != 2 {
			t.Errorf("handled %d notifications before the response, want 2", handled)
		}
	})
}

// A notification handler that calls the peer must get its answer even though the
// dispatcher is busy with that very handler.
func TestNestedCallFromNotificationHandler(t *testing.T) {
	done := make(chan error, 1)
	var b *Conn
	a, bConn := connPair(t, Options{Handler: echo}, Options{QueueLength: 1, Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "first" {
			var got echoParams
			done <- b.Call(ctx, "echo", echoParams{Text: "x"}, &got)
		}
		return nil, nil
	})})
	b = bConn
	a.Notify(t.Context(), "first", nil)
	for range 20 { // more than the queue holds, while the handler waits on its call
		a.Notify(t.Context(), "filler", nil)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestIDsKeepTheirType(t *testing.T) {
	_, peer := newRawPeer(t, Options{Handler: echo})
	peer.send(`{"jsonrpc":"2.0","id":"abc","method":"echo","params":{"text":"s"}}`)
	if m := peer.recv(); m["id"] != "abc" {
		t.Errorf("string id came back as %#v", m["id"])
	}
	peer.send(`{"jsonrpc":"2.0","id":7,"method":"echo","params":{"text":"n"}}`)
	if m := peer.recv(); m["id"] != float64(7) {
		t.Errorf("number id came back as %#v", m["id"])
	}
	peer.send(`{"jsonrpc":"2.0","id":null,"method":"echo","params":{"text":"n"}}`)
	if m := peer.recv(); m["id"] != nil || m["result"] == nil {
		t.Errorf("null id: got %v", m)
	}
}

func TestBadInputIsAnsweredAndReadingGoesOn(t *testing.T) {
	_, peer := newRawPeer(t, Options{Handler: echo})
	cases := []struct {
		name, line string
		id         any
		code       float64
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, float64(1), CodeParseError},
		{"malformed JSON, no id", `{"jsonrpc":"2.0","method":"x",}`, nil, CodeParseError},
		{"not an object", `[1,2,3]`, nil, CodeInvalidRequest},
		{"no version", `{"id":2,"method":"echo"}`, float64(2), CodeInvalidRequest},
		{"method not a string", `{"jsonrpc":"2.0","id":3,"method":5}`, float64(3), CodeInvalidRequest},
		{"neither method nor id", `{"jsonrpc":"2.0","params":{}}`, nil, CodeInvalidRequest},
		{"scalar params", `{"jsonrpc":"2.0","id":4,"method":"echo","params":5}`, float64(4), CodeInvalidRequest},
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"nope"}`, float64(5), CodeMethodNotFound},
		{"bad params", `{"jsonrpc":"2.0","id":6,"method":"echo","params":{"text":5}}`, float64(6), CodeInvalidParams},
		{"handler error", `{"jsonrpc":"2.0","id":7,"method":"fail"}`, float64(7), CodeInternalError},
		{"handler panic", `{"jsonrpc":"2.0","id":8,"method":"panic"}`, float64(8), CodeInternalError},
	}
	for _, tc := range cases {
		peer.send(tc.line)
		m := peer.recv()
		if m["id"] != tc.id || errCode(m) != tc.code {
			t.Errorf("%s: got %v, want id %v code %v", tc.name, m, tc.id, tc.code)
		}
	}
	// Unknown notifications are ignored, blank lines and \r are tolerated, and the
	// connection still works.
	peer.send(`{"jsonrpc":"2.0","method":"$/unknown"}`, "", "  ", `{"jsonrpc":"2.0","id":9,"method":"echo","params":{"text":"ok"}}`+"\r")
	if m := peer.recv(); m["id"] != float64(9) || m["result"] == nil {
		t.Errorf("after bad input: got %v", m)
	}
}

// TestDeeplyNestedLines: JSON nested deeper than the decoder accepts (10,000 levels) is a
// parse error answered to the id the line starts with, and a response like that fails the
// call it answers instead of leaving it waiting.
func TestDeeplyNestedLines(t *testing.T) {
	c, peer := newRawPeer(t, Options{Handler: echo})
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	peer.send(`{"jsonrpc":"2.0","id":77,"method":"echo","params":{"text":` + deep + `}}`)
	if m := peer.recv(); m["id"] != float64(77) || errCode(m) != CodeParseError {
		t.Errorf("deeply nested request: got %v, want a parse error to id 77", m)
	}
	errc := make(chan error, 1)
	go func() { errc <- c.Call(t.Context(), "get", nil, nil) }()
	req := peer.recv()
	peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":%s}`, req["id"], deep))
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "parse error") {
		t.Errorf("deeply nested response: Call returned %v", err)
	}
}

func TestUnknownMethodMessageNamesIt(t *testing.T) {
	_, peer := newRawPeer(t, Options{Handler: echo})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"fs/frobnicate"}`)
	m := peer.recv()
	if msg := m["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "fs/frobnicate") {
		t.Errorf("message %q does not name the method", msg)
	}
}

func TestOversizedLine(t *testing.T) {
	c, peer := newRawPeer(t, Options{Handler: echo, MaxLineBytes: 1 << 10})
	big := strings.Repeat("x", 4<<10)
	peer.send(`{"jsonrpc":"2.0","id":41,"method":"echo","params":{"text":"` + big + `"}}`)
	m := peer.recv()
	if m["id"] != float64(41) || errCode(m) != CodeInvalidRequest ||
		!strings.Contains(m["error"].(map[string]any)["message"].(string), "line limit") {
		t.Errorf("oversized request: got %v", m)
	}
	// An oversized response to our own call fails that call, and only that call.
	errc := make(chan error, 1)
	go func() { errc <- c.Call(t.Context(), "get", nil, nil) }()
	req := peer.recv()
	peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"text":"%s"}}`, req["id"], big))
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "line limit") {
		t.Errorf("oversized response: Call returned %v", err)
	}
	peer.send(`{"jsonrpc":"2.0","id":42,"method":"echo","params":{"text":"small"}}`)
	if m := peer.recv(); m["id"] != float64(42) || m["result"] == nil {
		t.Errorf("after an oversized line: got %v", m)
	}
}

func TestPeerCancelsRequest(t *testing.T) {
	_, peer := newRawPeer(t, Options{Handler: echo})
	peer.send(`{"jsonrpc":"2.0","id":"w1","method":"wait"}`,
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"w1"}}`)
	m := peer.recv()
	if m["id"] != "w1" || errCode(m) != CodeRequestCancelled {
		t.Errorf("got %v, want -32800 for w1", m)
	}
}

func TestCallerCancels(t *testing.T) {
	c, peer := newRawPeer(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "slow", nil, nil) }()
	req := peer.recv()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Call returned %v, want context.Canceled", err)
	}
	m := peer.recv()
	params, _ := m["params"].(map[string]any)
	if m["method"] != "$/cancel_request" || params["requestId"] != req["id"] {
		t.Errorf("peer got %v, want $/cancel_request for %v", m, req["id"])
	}
	// The late answer is dropped quietly and the connection goes on.
	peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"error":{"code":-32800,"message":"cancelled"}}`, req["id"]))
	go func() { errc <- c.Call(t.Context(), "next", nil, nil) }()
	next := peer.recv()
	peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{}}`, next["id"]))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestPeerErrorIsReturned(t *testing.T) {
	a, _ := connPair(t, Options{}, Options{Handler: echo})
	err := a.Call(t.Context(), "nope", nil, nil)
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Code != CodeMethodNotFound {
		t.Fatalf("got %v, want a -32601 *Error", err)
	}
}

func TestEOFAnswersPendingCalls(t *testing.T) {
	c, peer := newRawPeer(t, Options{})
	errc := make(chan error, 2)
	for range 2 {
		go func() { errc <- c.Call(context.Background(), "never", nil, nil) }()
	}
	peer.recv()
	peer.recv()
	peer.conn.Close()
	for range 2 {
		if err := <-errc; !errors.Is(err, ErrClosed) {
			t.Errorf("pending call returned %v, want ErrClosed", err)
		}
	}
	<-c.Done()
	if !errors.Is(c.Err(), io.EOF) {
		t.Errorf("Err() = %v, want EOF", c.Err())
	}
	if err := c.Call(t.Context(), "after", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after close returned %v", err)
	}
}

func TestCloseCancelsHandlersAndAnswers(t *testing.T) {
	started := make(chan struct{})
	c, peer := newRawPeer(t, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	<-started
	got := make(chan map[string]any, 1)
	go func() { got <- peer.recv() }()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if m := <-got; errCode(m) != CodeRequestCancelled {
		t.Errorf("in-flight request answered %v on close, want -32800", m)
	}
}

func TestAfterResponseRunsAfterTheResponse(t *testing.T) {
	var c *Conn
	c, peer := newRawPeer(t, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		AfterResponse(ctx, func(ctx context.Context) { c.Notify(ctx, "setup", nil) })
		return map[string]string{"sessionId": "s1"}, nil
	})})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"session/new"}`)
	first, second := peer.recv(), peer.recv()
	if first["id"] != float64(1) || second["method"] != "setup" {
		t.Errorf("order: %v then %v; want the response first", first, second)
	}
}

// The peer may react to a response at once (session/prompt right after session/new); a
// hook's notifications must still come before anything sent in that reaction. Here the
// hook waits for the reaction's handler (or, in the bubble's fake time, gives up once
// everything else is blocked): were the response on the wire before the hook's
// notification, the reaction's "late" would come first.
func TestAfterResponseHoldsItsNotificationsWithTheResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reacted := make(chan struct{})
		var c *Conn
		c, peer := newRawPeer(t, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			switch req.Method {
			case "session/new":
				AfterResponse(ctx, func(ctx context.Context) {
					select {
					case <-reacted:
					case <-time.After(time.Second):
					}
					c.Notify(ctx, "setup", nil)
					if err := c.Call(ctx, "nope", nil, nil); err == nil {
						t.Error("a hook's call was sent")
					}
				})
				return map[string]string{"sessionId": "s1"}, nil
			default:
				c.Notify(ctx, "late", nil)
				close(reacted)
				return nil, nil
			}
		})})
		peer.send(`{"jsonrpc":"2.0","id":1,"method":"session/new"}`)
		if m := peer.recv(); m["id"] != float64(1) {
			t.Fatalf("first %v, want the response", m)
		}
		peer.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt"}`)
		var order []any
		for range 3 {
			m := peer.recv()
			if m["method"] != nil {
				order = append(order, m["method"])
			} else {
				order = append(order, m["id"])
			}
		}
		if diff := cmp.Diff([]any{"setup", "late", float64(2)}, order); diff != "" {
			t.Errorf("after the response (-want +got):\n%s", diff)
		}
	})
}

func TestWireEncoding(t *testing.T) {
	got := string(appendRequest(nil, Int64ID(3), "a\"b", json.RawMessage(`{"x":1}`)))
	want := `{"jsonrpc":"2.0","id":3,"method":"a\"b","params":{"x":1}}` + "\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	raw, err := encodeValue(json.RawMessage("{\n\"a\": 1\n}"))
	if err != nil || string(raw) != `{"a":1}` {
		t.Errorf("raw params with newlines: %s, %v", raw, err)
	}
}

// TestBoundHandlerSeesItsConn: a handler that answers the peer's very first message by
// calling back through its own connection gets that connection from Bind, before the
// connection reads anything. Under -race this is the test that the owner never stores the
// connection while its handlers already run.
func TestBoundHandlerSeesItsConn(t *testing.T) {
	x, y := net.Pipe()
	type owner struct{ conn *Conn }
	o := &owner{}
	server := NewConn(x, BinderFunc(func(c *Conn) Options {
		o.conn = c
		return Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			return nil, o.conn.Notify(ctx, "seen", map[string]string{"method": req.Method})
		})}
	}))
	if server != o.conn {
		t.Fatal("NewConn returned another connection than the one it bound")
	}
	seen := make(chan string, 1)
	client := NewConn(y, Options{Handler: HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		var p struct{ Method string }
		DecodeParams(req, &p)
		seen <- p.Method
		return nil, nil
	})})
	t.Cleanup(func() { client.Close(); server.Close() })
	if err := client.Call(t.Context(), "hello", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := <-seen; got != "hello" {
		t.Errorf("the handler reported %q, want hello", got)
	}
}

// TestCloseDoesNotWaitForAPeerThatStoppedReading: the peer sends requests and never reads
// the answers, so the writer is stuck on the stream. A call cancelled meanwhile returns at
// once, and Close gives up on the orderly flush after CloseTimeout instead of hanging.
func TestCloseDoesNotWaitForAPeerThatStoppedReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ours, peer := net.Pipe()
		defer peer.Close()
		c := NewConn(ours, Options{Handler: echo, CloseTimeout: 3 * time.Second})
		for i := range 400 { // the answers fill the writer's queue; the peer reads nothing
			fmt.Fprintf(peer, `{"jsonrpc":"2.0","id":%d,"method":"echo","params":{"text":"%s"}}`+"\n", i, strings.Repeat("x", 100))
		}
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		called := make(chan error, 1)
		go func() { called <- c.Call(ctx, "never", nil, nil) }()
		synctest.Wait()
		cancel()
		if err := <-called; !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call: %v", err)
		}
		start := time.Now()
		c.Close()
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("Close took %v, want the CloseTimeout (3s)", took)
		}
	})
}

// deafStream delivers lines, then blocks reads until released (as a blocking stdin does,
// whatever Close says); every write fails.
type deafStream struct {
	lines   chan string
	release chan struct{}
}

func (d *deafStream) Read(b []byte) (int, error) {
	select {
	case l := <-d.lines:
		return copy(b, l), nil
	case <-d.release:
		return 0, io.EOF
	}
}
func (d *deafStream) Write(b []byte) (int, error) { return 0, errors.New("broken pipe") }
func (d *deafStream) Close() error                { return nil }

// TestWriteFailureEndsTheWork: when nothing can be written any more, handlers are
// cancelled and sending fails, even though the reader never learns that the peer is gone.
func TestWriteFailureEndsTheWork(t *testing.T) {
	stream := &deafStream{lines: make(chan string, 1), release: make(chan struct{})}
	cancelled := make(chan error, 1)
	var c *Conn
	c = NewConn(stream, BinderFunc(func(conn *Conn) Options {
		return Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			conn.Notify(ctx, "progress", nil) // its write fails
			<-ctx.Done()
			cancelled <- conn.Notify(context.Background(), "more", nil)
			return nil, ctx.Err()
		})}
	}))
	defer c.Close()
	defer close(stream.release) // first: the reader ends, so Close need not wait
	stream.lines <- `{"jsonrpc":"2.0","id":1,"method":"work"}` + "\n"
	if err := <-cancelled; !errors.Is(err, ErrClosed) {
		t.Errorf("Notify after the write failure: %v, want ErrClosed", err)
	}
}

// TestFlushTellsAReadingPeerFromADeafOne: Notify returns once a line is queued, which a
// peer that stopped reading never takes; Flush returns only once it has been written.
func TestFlushTellsAReadingPeerFromADeafOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ours, peer := net.Pipe()
		defer peer.Close()
		c := NewConn(ours, Options{Handler: echo, CloseTimeout: time.Second})
		defer c.Close()
		lines := NewLineReader(peer, 0)
		read := make(chan string, 1)
		go func() { // a reading peer: takes one line
			line, _ := lines.ReadLine()
			read <- string(line)
		}()
		if err := c.Notify(t.Context(), "first", nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Flush(t.Context()); err != nil {
			t.Fatalf("Flush with a reading peer: %v", err)
		}
		if got := <-read; !strings.Contains(got, `"first"`) {
			t.Errorf("the peer read %q", got)
		}
		// Now the peer reads nothing: the next notification is queued, never written.
		if err := c.Notify(t.Context(), "second", nil); err != nil {
			t.Fatalf("Notify: %v (it only queues)", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		if err := c.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Flush with a deaf peer: %v, want the deadline", err)
		}
	})
}

// queuedForADeafPeer is how many notifications with params a connection queues, up to
// limit, for a peer that reads nothing, before a sender waits out its ctx. Call it inside
// a synctest bubble.
func queuedForADeafPeer(t *testing.T, params any, limit int) int {
	t.Helper()
	ours, peer := net.Pipe()
	defer peer.Close()
	c := NewConn(ours, Options{Handler: echo, CloseTimeout: time.Second})
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	queued := 0
	for ; queued < limit; queued++ {
		if err := c.Notify(ctx, "note", params); err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Notify: %v", err)
			}
			break
		}
	}
	return queued
}

// TestQueuedBytesAreBounded: with a peer that reads nothing, the lines queued for it stop at
// maxQueuedBytes, however few lines that is, and the next writer waits (here, for its ctx).
func TestQueuedBytesAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		queued := queuedForADeafPeer(t, strings.Repeat("x", 1<<20), 300)
		// One line is with the writer (blocked on the pipe); the rest wait in the queue.
		if want := maxQueuedBytes>>20 + 1; queued > want {
			t.Errorf("%d lines of 1 MiB queued for a peer that reads nothing, want at most %d", queued, want)
		}
		if queued < maxQueuedBytes>>20-1 {
			t.Errorf("only %d lines of 1 MiB queued before writers waited", queued)
		}
	})
}

// TestQueuedLinesAreBounded: a sender that outruns the stream waits after maxQueuedLines
// small lines (besides the batch being written), not after maxQueuedBytes of them.
func TestQueuedLinesAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		queued := queuedForADeafPeer(t, "small", 10*maxQueuedLines)
		if queued > 2*maxQueuedLines || queued < maxQueuedLines {
			t.Errorf("%d small lines queued for a peer that reads nothing, want %d to %d", queued, maxQueuedLines, 2*maxQueuedLines)
		}
	})
}

// TestWhenQueuedWaitsForTheWriter: what a handler arranges with WhenQueued runs once its
// response is queued for writing, which waits while the queue is full, not when it returns.
func TestWhenQueuedWaitsForTheWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ours, peer := net.Pipe()
		defer peer.Close()
		queued := make(chan struct{})
		c := NewConn(ours, Options{CloseTimeout: time.Second, Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			if !WhenQueued(ctx, func() { close(queued) }) {
				t.Error("WhenQueued in a handler reported false")
			}
			return strings.Repeat("y", 2<<20), nil // more than the room left below
		})})
		defer c.Close()
		big := strings.Repeat("x", 1<<20)
		full, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		for c.Notify(full, "big", big) == nil { // fill the writer's queue: the peer reads nothing yet
		}
		go fmt.Fprintln(peer, `{"jsonrpc":"2.0","id":1,"method":"work"}`)
		synctest.Wait()
		select {
		case <-queued:
			t.Fatal("WhenQueued ran while the response could not be queued")
		default:
		}
		go io.Copy(io.Discard, peer) // the peer reads: the queue drains
		<-queued
		if WhenQueued(t.Context(), func() {}) {
			t.Error("WhenQueued outside a handler reported true")
		}
	})
}

// TestPrepareRunsBeforeTheNotificationsThatFollow: a notification sent right behind a
// request finds what Prepare registered for that request, however late the request's own
// goroutine starts. Without the hook a handler that registers itself races the
// notification (ACP's session/cancel arriving before the prompt it cancels was seen).
func TestPrepareRunsBeforeTheNotificationsThatFollow(t *testing.T) {
	var mu sync.Mutex
	cancels := map[string]context.CancelFunc{}
	release := make(chan struct{})
	_, p := newRawPeer(t, Options{
		Prepare: func(ctx context.Context, req *Request) context.Context {
			ctx, cancel := context.WithCancel(ctx)
			mu.Lock()
			cancels[req.Method] = cancel
			mu.Unlock()
			return ctx
		},
		Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			if req.IsCall() {
				<-release // the request's goroutine starts its work only after the notification
				return ctx.Err() == nil, nil
			}
			mu.Lock()
			cancel := cancels["work"]
			mu.Unlock()
			if cancel != nil {
				cancel()
			}
			close(release)
			return nil, nil
		}),
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"work"}`, `{"jsonrpc":"2.0","method":"stop"}`)
	// The handler runs even when what Prepare gave it ended before it started: it, not the
	// connection, answers a request that only Prepare's context ended.
	if m := p.recv(); m["result"] != false {
		t.Errorf("answer %v; want false: the notification behind the request cancelled its context", m)
	}
}

// TestNotifyWithAnEndedContextStillQueues: a context bounds how long a send may wait for
// room, not whether a line that fits is sent. An agent reports how a cancelled turn ended
// with that turn's context.
func TestNotifyWithAnEndedContextStillQueues(t *testing.T) {
	c, p := newRawPeer(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for i := range 50 { // a random choice between ready cases would fail one of these
		if err := c.Notify(ctx, "note", map[string]int{"i": i}); err != nil {
			t.Fatalf("notification %d: %v", i, err)
		}
		if m := p.recv(); m["method"] != "note" {
			t.Fatalf("got %v", m)
		}
	}
}

// TestCallWithAnEndedContextSendsNothing: a call whose context has already ended is not
// sent (the peer would only be told to cancel it at once).
func TestCallWithAnEndedContextSendsNothing(t *testing.T) {
	c, p := newRawPeer(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Call(ctx, "work", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Call returned %v; want context.Canceled", err)
	}
	c.Notify(t.Context(), "after", nil)
	if m := p.recv(); m["method"] != "after" {
		t.Errorf("the peer first got %v; want the notification sent after the call", m)
	}
}

// Windows peers may end lines with \r\n (a program writing in text mode does): requests,
// notifications and responses so ended are read like any other, and the \r does not count
// against the line limit.
func TestCRLFLines(t *testing.T) {
	const limit = 1 << 10
	notified := make(chan string, 1)
	handler := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "note" {
			var p echoParams
			DecodeParams(req, &p)
			notified <- p.Text
			return nil, nil
		}
		return echo(ctx, req)
	})
	c, peer := newRawPeer(t, Options{Handler: handler, MaxLineBytes: limit})
	crlf := func(line string) string { return line + "\r" } // send adds the \n

	peer.send(crlf(`{"jsonrpc":"2.0","method":"note","params":{"text":"first"}}`))
	if got := <-notified; got != "first" {
		t.Errorf("notification: %q", got)
	}
	peer.send(crlf(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hi"}}`))
	if m := peer.recv(); m["id"] != float64(1) || m["result"].(map[string]any)["text"] != "hi" {
		t.Errorf("request: got %v", m)
	}
	errc := make(chan error, 1)
	var result echoParams
	go func() { errc <- c.Call(t.Context(), "get", nil, &result) }()
	req := peer.recv()
	peer.send(crlf(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"text":"back"}}`, req["id"])))
	if err := <-errc; err != nil || result.Text != "back" {
		t.Errorf("response: %v, %+v", err, result)
	}
	// A line of exactly the limit, then \r\n.
	head := `{"jsonrpc":"2.0","id":2,"method":"echo","params":{"text":"`
	full := head + strings.Repeat("x", limit-len(head)-len(`"}}`)) + `"}}`
	peer.send(crlf(full))
	if m := peer.recv(); m["id"] != float64(2) || m["result"] == nil {
		t.Errorf("a line of %d bytes and \\r\\n with a limit of %d: got %v", len(full), limit, m)
	}
}
