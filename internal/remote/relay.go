package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/wsline"
)

// MaxLine bounds one line from the client: the server reads no larger message
// (internal/webui), so a longer one is answered here instead of ending the connection.
const MaxLine = jsonrpc2.DefaultMaxLineBytes

// GoneError is the end of a relay or a stream because the server went: Reason says
// how (its close reason, a cut connection).
type GoneError struct {
	Addr, Reason string
}

func (e *GoneError) Error() string {
	return fmt.Sprintf("the connection to %s ended: %s", e.Addr, e.Reason)
}

// relay is one Relay: the client's requests the server has not answered yet.
type relay struct {
	c      *Conn
	client io.ReadWriteCloser

	outMu sync.Mutex // one line at a time to the client

	mu      sync.Mutex
	pending map[string]struct{} // raw ids of the client's requests waiting for an answer
	gone    *GoneError          // set once the server went: no request is waited for then
}

// Relay carries newline-delimited JSON-RPC between client (stdin and stdout of
// parley acp --connect) and the server until one of them ends or ctx does. The end of
// the client's input (or ctx) closes the WebSocket normally and returns nil; the server
// going away answers the client's pending requests with an error and returns a
// *GoneError.
func Relay(ctx context.Context, c *Conn, client io.ReadWriteCloser) error {
	r := &relay{c: c, client: client, pending: map[string]struct{}{}}
	// The WebSocket's reads and writes get a context of their own: one that ends closes
	// the connection at once, and on ctx the relay closes it in order instead.
	wsCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	up := make(chan error, 1)
	down := make(chan error, 1)
	go func() { up <- r.up(wsCtx) }()
	go func() { down <- r.down(wsCtx) }()
	select {
	case err := <-up:
		// The client's input ended (or could not be read): nothing more will be asked,
		// so the connection ends in order; the server's last words still reach stdout
		// until the close handshake is over.
		reason := "the client's input ended"
		if err != nil {
			reason = "the client's input failed"
		}
		c.Close(reason)
		<-down
		client.Close()
		return err
	case err := <-down:
		g := &GoneError{Addr: c.Addr(), Reason: c.Gone(err)}
		r.failPending(g)
		c.stopKeepalive()
		c.ws.CloseNow()
		client.Close() // on Unix this ends the read of stdin under way
		waitBriefly(up)
		return g
	case <-ctx.Done():
		c.Close("the client is leaving")
		<-down
		client.Close()
		waitBriefly(up)
		return nil
	}
}

// waitBriefly waits for the reader of the client's input, which closing the input ends
// on Unix; elsewhere a read of stdin cannot be interrupted, and the process is ending.
func waitBriefly(done <-chan error) {
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// up carries the client's lines to the server, one message each.
func (r *relay) up(ctx context.Context) error {
	lr := jsonrpc2.NewLineReader(r.client, MaxLine)
	for {
		line, err := lr.ReadLine()
		if tooLong, ok := errors.AsType[*jsonrpc2.LineTooLongError](err); ok {
			r.answerOversized(tooLong)
			continue
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the client's input: %w", err)
		}
		id, request := requestID(line)
		if request && !r.expect(id) {
			r.answer(id, r.goneMessage())
			continue
		}
		if err := r.c.ws.Write(ctx, websocket.MessageText, line); err != nil {
			if request {
				r.answerOnce(id, fmt.Sprintf("parley --connect: the request could not be sent to %s: %v", r.c.Addr(), err))
			}
			// The reader sees the connection end too, and says why.
			continue
		}
	}
}

// down carries the server's messages to the client, one line each, until the
// connection ends (the error says how).
func (r *relay) down(ctx context.Context) error {
	var buf bytes.Buffer
	for {
		typ, rd, err := r.c.ws.Reader(ctx)
		if err != nil {
			return err
		}
		buf.Reset()
		if _, err := buf.ReadFrom(rd); err != nil {
			return err
		}
		if typ != websocket.MessageText {
			continue // ACP's WebSocket transport ignores binary messages
		}
		msg := wsline.OneLine(buf.Bytes())
		if id, ok := responseID(msg); ok {
			r.mu.Lock()
			delete(r.pending, id)
			r.mu.Unlock()
		}
		if err := r.writeLine(msg); err != nil {
			return fmt.Errorf("writing to the client: %w", err)
		}
	}
}

func (r *relay) writeLine(msg []byte) error {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	msg = append(msg, '\n') // buf has room more often than not; msg is not kept
	_, err := r.client.Write(msg)
	return err
}

// expect records a request sent; false once the server went.
func (r *relay) expect(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone != nil {
		return false
	}
	r.pending[id] = struct{}{}
	return true
}

// answerOnce answers a request with an error if it is still pending.
func (r *relay) answerOnce(id, message string) {
	r.mu.Lock()
	_, ok := r.pending[id]
	delete(r.pending, id)
	r.mu.Unlock()
	if ok {
		r.answer(id, message)
	}
}

func (r *relay) goneMessage() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return "parley --connect: " + r.gone.Error() + "; whether the request was carried out there is not known"
}

// failPending answers every request the server will not answer now.
func (r *relay) failPending(g *GoneError) {
	r.mu.Lock()
	r.gone = g
	ids := make([]string, 0, len(r.pending))
	for id := range r.pending {
		ids = append(ids, id)
	}
	clear(r.pending)
	r.mu.Unlock()
	for _, id := range ids {
		r.answer(id, r.goneMessage())
	}
}

// answerOversized answers a line over MaxLine, when its beginning shows a request.
func (r *relay) answerOversized(e *jsonrpc2.LineTooLongError) {
	id, request := requestID(e.Prefix)
	if !request {
		return // a notification or a response: nobody waits for an answer
	}
	r.answer(id, fmt.Sprintf("parley --connect: the message is over %d MiB, more than the server takes; it was not sent", MaxLine>>20))
}

// answer writes an error response to the client.
func (r *relay) answer(id, message string) {
	b := make([]byte, 0, 128+len(message))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = fmt.Appendf(b, "%d", jsonrpc2.CodeInternalError)
	b = append(b, `,"message":`...)
	b = json.AppendString(b, message)
	b = append(b, "}}"...)
	r.writeLine(b)
}

// requestID reads a message's top-level members as far as it takes to know whether it
// is a request (an id and a method) and which id.
func requestID(msg []byte) (id string, request bool) {
	var hasMethod bool
	json.EachMember(msg, func(name string, value []byte) bool {
		switch name {
		case "id":
			id = string(bytes.TrimSpace(value))
		case "method":
			hasMethod = true
		}
		return id == "" || !hasMethod
	})
	return id, hasMethod && id != "" && id != "null"
}

// responseID reads a message's top-level members as far as it takes to know whether it
// is a response (an id and a result or error, no method) and which id. ACP's messages
// start with their id and method, so this stops early.
func responseID(msg []byte) (id string, response bool) {
	done := false
	json.EachMember(msg, func(name string, value []byte) bool {
		switch name {
		case "id":
			id = string(bytes.TrimSpace(value))
		case "method":
			done = true
			return false
		case "result", "error":
			response = true
		}
		return !(response && id != "")
	})
	return id, response && !done && id != ""
}
