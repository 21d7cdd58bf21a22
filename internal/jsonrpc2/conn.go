package jsonrpc2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// Handler answers incoming requests and notifications.
//
// For a request, Handle runs on its own goroutine and its result (or error) is the answer;
// ctx is cancelled when the peer sends $/cancel_request for it or the connection closes.
// For a notification (req.IsCall() false), Handle runs on the dispatcher goroutine, one at a
// time in arrival order, and its result is ignored: a slow notification handler holds up
// the connection's intake, which is the backpressure the caller asked for.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Options configure a connection. The zero value is usable.
type Options struct {
	// Handler answers the peer; nil answers every request with -32601.
	Handler Handler
	// MaxLineBytes limits one incoming line (DefaultMaxLineBytes when 0).
	MaxLineBytes int
	// QueueLength bounds the messages read but not yet dispatched (1024 when 0).
	QueueLength int
	// Logger receives protocol problems that have no one to return an error to.
	Logger *slog.Logger
	// OnBadInput, when set, is told of every line that was not a valid message (after it
	// was answered), so that a host can tell its user that a peer is misbehaving.
	OnBadInput func(err error)
	// CloseTimeout bounds the orderly end of the connection (DefaultCloseTimeout when 0):
	// once it has passed, lines not written yet are abandoned and the stream is closed
	// under the writer, so that a peer that stopped reading cannot hold parley.
	CloseTimeout time.Duration
	// Prepare, when set, runs for each request on the dispatcher goroutine, in arrival
	// order with the notifications, before the request's handler starts on a goroutine of
	// its own; the context it returns (derived from ctx) is the handler's. A notification
	// that follows the request on the wire is handled only after Prepare has returned, so
	// Prepare is where a request registers for what such a notification must do to it
	// (ACP's session/cancel ending the session/prompt before it).
	Prepare func(ctx context.Context, req *Request) context.Context
}

// DefaultCloseTimeout is how long an ending connection waits for its handlers and for its
// queued lines to be written.
const DefaultCloseTimeout = 3 * time.Second

// cancelSendWait bounds how long a cancelled Call tries to queue its $/cancel_request:
// when the writer is that far behind, the peer will not read it in time anyway.
const cancelSendWait = time.Second

// Conn is a JSON-RPC 2.0 connection over a newline-delimited byte stream. See the package
// comment for its ordering and delivery guarantees.
type Conn struct {
	handler    Handler
	prepare    func(context.Context, *Request) context.Context
	logger     *slog.Logger
	onBadInput func(error)
	stream     io.ReadWriteCloser
	lines      *LineReader
	queue      *orderedQueue

	nextID atomic.Int64

	baseCtx    context.Context // parent of every handler's context
	cancelBase context.CancelFunc

	mu       sync.Mutex
	closing  bool
	closeErr error                   // why the connection ended, once it has
	pending  map[string]*pendingCall // our calls awaiting a response, by id
	inflight map[string]*inflight    // the peer's requests being handled, by id

	out *lineWriter // every line sent goes through it (writer.go)

	handlers     sync.WaitGroup // request handler goroutines
	closeOnce    sync.Once
	closeLocal   chan struct{} // closed by Close
	ending       chan struct{} // closed when the connection begins to end, before handlers are cancelled
	closeTimeout time.Duration
	abandonOnce  sync.Once
	abandoned    chan struct{} // closed when the close deadline has passed
	readDone     chan struct{}
	dispatchDone chan struct{}
	done         chan struct{}
}

// pendingCall is one of our calls waiting for its response.
type pendingCall struct {
	method string
	nested bool // made from inside a notification handler: exempt from the barrier
	result chan callResult
}

type callResult struct {
	result json.RawMessage
	err    error
}

func (p *pendingCall) deliver(r callResult) {
	select {
	case p.result <- r:
	default: // already answered (a duplicate response): keep the first
	}
}

// inflight is one of the peer's requests being handled.
type inflight struct {
	cancel    context.CancelFunc      // set when its handler starts
	cancelled bool                    // $/cancel_request arrived before the handler started
	after     []func(context.Context) // AfterResponse hooks; touched only by the handler goroutine
	queued    []func()                // WhenQueued functions; likewise
}

// Binder gives a new connection its options. NewConn calls Bind before the connection
// reads or writes anything, so a handler that needs the connection (to call or notify the
// peer) is handed it here and never sees it half-built: there is no window in which the
// peer's first message can reach a handler whose owner has not stored the connection yet.
type Binder interface {
	Bind(conn *Conn) Options
}

// BinderFunc adapts a function to Binder.
type BinderFunc func(conn *Conn) Options

// Bind calls f.
func (f BinderFunc) Bind(conn *Conn) Options { return f(conn) }

// Bind makes fixed options a Binder, for handlers that never need the connection.
func (o Options) Bind(*Conn) Options { return o }

// NewConn binds a connection over stream to its handler, then starts it. The stream's
// Close must unblock a Read in progress (pipes, sockets and child-process stdio do).
func NewConn(stream io.ReadWriteCloser, binder Binder) *Conn {
	c := &Conn{}
	opts := binder.Bind(c)
	if opts.QueueLength <= 0 {
		opts.QueueLength = 1024
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.OnBadInput == nil {
		opts.OnBadInput = func(error) {}
	}
	if opts.Handler == nil {
		opts.Handler = HandlerFunc(func(context.Context, *Request) (any, error) { return nil, ErrMethodNotFound })
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	*c = Conn{
		handler:      opts.Handler,
		prepare:      opts.Prepare,
		onBadInput:   opts.OnBadInput,
		logger:       opts.Logger,
		stream:       stream,
		lines:        NewLineReader(stream, opts.MaxLineBytes),
		queue:        newOrderedQueue(opts.QueueLength),
		pending:      map[string]*pendingCall{},
		inflight:     map[string]*inflight{},
		closeLocal:   make(chan struct{}),
		ending:       make(chan struct{}),
		closeTimeout: opts.CloseTimeout,
		abandoned:    make(chan struct{}),
		readDone:     make(chan struct{}),
		dispatchDone: make(chan struct{}),
		done:         make(chan struct{}),
	}
	c.out = newLineWriter(opts.Logger, c.abandoned, func() { c.stream.Close() }) // unblocks the reader (where Close can)
	c.baseCtx, c.cancelBase = context.WithCancel(context.Background())
	go c.readLoop()
	go c.dispatchLoop()
	go c.out.run(stream)
	go c.supervise()
	return c
}

// Call sends a request and waits for its response, decoding the result into result (which
// may be nil). A peer's error answer is returned as *Error. When ctx ends first, the peer
// is sent $/cancel_request and Call returns ctx's error at once; the late answer is dropped.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	p, err := c.Start(ctx, method, params)
	if err != nil {
		return err
	}
	return p.Wait(ctx, result)
}

// Pending is a request sent and not answered yet (see Start).
type Pending struct {
	c      *Conn
	id     ID
	method string
	call   *pendingCall
}

// Start sends a request without waiting for its answer: it returns once the request is
// queued, so that whatever the caller sends after it goes out after it. When ctx ends
// before the request is queued, it is not sent and Start returns ctx's error. Wait must
// be called on the result.
func (c *Conn) Start(ctx context.Context, method string, params any) (*Pending, error) {
	p, err := encodeValue(params)
	if err != nil {
		return nil, fmt.Errorf("encoding %s params: %w", method, err)
	}
	if c.inHook(ctx) {
		return nil, fmt.Errorf("%s: an AfterResponse hook may only send notifications", method)
	}
	if ctx.Err() != nil { // not sent at all: the peer would only be told to cancel it
		return nil, fmt.Errorf("%s: %w", method, context.Cause(ctx))
	}
	id := Int64ID(c.nextID.Add(1))
	call := &pendingCall{method: method, nested: isNested(ctx, c), result: make(chan callResult, 1)}
	c.mu.Lock()
	if c.closing {
		err := c.closedError()
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	c.pending[id.raw] = call
	c.mu.Unlock()
	if call.nested {
		c.queue.addNested(1)
	}
	if err := c.write(ctx, appendRequest(nil, id, method, p)); err != nil {
		c.forget(id)
		if call.nested {
			c.queue.addNested(-1)
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return &Pending{c: c, id: id, method: method, call: call}, nil
}

// Wait waits for the answer to a request Start sent, as Call does.
func (p *Pending) Wait(ctx context.Context, result any) error {
	c, call, method := p.c, p.call, p.method
	if call.nested {
		defer c.queue.addNested(-1)
	}
	select {
	case r := <-call.result:
		if r.err != nil {
			return r.err
		}
		if result != nil && len(r.result) > 0 {
			if err := json.UnmarshalValid(r.result, result); err != nil {
				return fmt.Errorf("decoding %s result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(p.id)
		cancel, _ := json.Marshal(map[string]ID{"requestId": p.id})
		sendCtx, stop := context.WithTimeout(context.Background(), cancelSendWait)
		defer stop()
		c.write(sendCtx, appendRequest(nil, ID{}, "$/cancel_request", cancel))
		return fmt.Errorf("%s: %w", method, context.Cause(ctx))
	}
}

func (c *Conn) forget(id ID) {
	c.mu.Lock()
	delete(c.pending, id.raw)
	c.mu.Unlock()
}

// Notify sends a notification. It returns once the message is queued for writing, which
// keeps the order of everything sent from one goroutine.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing {
		return fmt.Errorf("%s: %w", method, ErrClosed)
	}
	line := linePool.Get().(*[]byte)
	defer linePool.Put(line)
	var err error
	*line, err = appendNotification((*line)[:0], method, params)
	if err != nil {
		return fmt.Errorf("encoding %s params: %w", method, err)
	}
	err = c.write(ctx, *line) // write keeps a copy
	if cap(*line) > keptLine {
		*line = nil
	}
	return err
}

// linePool holds the buffers notifications are encoded in: write copies a line, so on a
// flood of notifications (an agent streaming its answer) the buffer is reused, not
// allocated for each. keptLine is the largest one kept.
var linePool = sync.Pool{New: func() any { return new([]byte) }}

const keptLine = 64 << 10

// Flush waits until every line queued before it has been written to the stream: a
// notification's return only means it is queued, and a peer that stopped reading leaves
// it there. ctx bounds the wait.
func (c *Conn) Flush(ctx context.Context) error { return c.out.flush(ctx) }

// write queues one encoded line (see lineWriter.send), or holds it behind the response
// of the AfterResponse hook ctx belongs to.
func (c *Conn) write(ctx context.Context, line []byte) error {
	if err := c.out.failure(); err != nil { // a failed stream fails every write
		return err
	}
	if c.hold(ctx, line) {
		return nil
	}
	return c.out.send(ctx, line)
}

// AfterResponse arranges for fn to run when the request handled in ctx has its answer,
// so that what fn sends reaches the peer right behind that response: fn runs before the
// response is written, its notifications are held, and the response and they go out as
// one write. Nothing the peer sends in reaction to the response (a session/prompt right
// after session/new) can come between them. fn may only send notifications, with the ctx
// it is given (a call would wait for an answer to a request the peer has not seen). It
// must be called from the handler's goroutine. Outside a request handler fn runs at once.
func AfterResponse(ctx context.Context, fn func(ctx context.Context)) {
	if in, ok := ctx.Value(inflightKey{}).(*inflight); ok {
		in.after = append(in.after, fn)
		return
	}
	fn(ctx)
}

// WhenQueued arranges for fn to run once the response to the request handled in ctx is
// queued for writing (or given up): from then on the writer bounds the memory it takes
// (see maxQueuedBytes). A handler that limits how many large results exist at once holds
// its slot until then, not only until it returns. WhenQueued must be called from the
// handler's goroutine; outside a request handler it does nothing and reports false.
func WhenQueued(ctx context.Context, fn func()) bool {
	in, ok := ctx.Value(inflightKey{}).(*inflight)
	if ok {
		in.queued = append(in.queued, fn)
	}
	return ok
}

// held collects the lines an AfterResponse hook writes, to go out behind its response.
type held struct {
	conn  *Conn
	mu    sync.Mutex
	lines []byte
	done  bool // the response went out: later writes with this ctx are ordinary
}

// hold keeps line if ctx belongs to an AfterResponse hook of c that is still running.
func (c *Conn) hold(ctx context.Context, line []byte) bool {
	h, ok := ctx.Value(heldKey{}).(*held)
	if !ok || h.conn != c {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return false
	}
	h.lines = append(h.lines, line...)
	return true
}

func (c *Conn) inHook(ctx context.Context) bool {
	h, ok := ctx.Value(heldKey{}).(*held)
	if !ok || h.conn != c {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.done
}

type heldKey struct{}
type inflightKey struct{}
type nestedKey struct{}

func isNested(ctx context.Context, c *Conn) bool {
	owner, _ := ctx.Value(nestedKey{}).(*Conn)
	return owner == c
}

// Close ends the connection in order: it stops taking work, cancels the handlers' contexts
// and waits for them, flushes what they wrote, then closes the stream. Calls still waiting
// get ErrClosed. All of that is bounded by CloseTimeout: then what is not written yet is
// abandoned and the stream closed. Close returns the reason the connection ended if it was
// not Close, or an error when a handler still had not returned at twice CloseTimeout.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { close(c.closeLocal) })
	timer := time.NewTimer(2 * c.closeTimeout)
	defer timer.Stop()
	select {
	case <-c.done:
		return c.Err()
	case <-timer.C:
		return fmt.Errorf("jsonrpc2: the connection did not end within %v: a handler ignores its context", 2*c.closeTimeout)
	}
}

// abandon gives up on the orderly end: pending and future writes fail, and the stream is
// closed under the writer and the reader.
func (c *Conn) abandon() {
	c.abandonOnce.Do(func() {
		close(c.abandoned)
		c.stream.Close()
	})
}

// Ending is closed when the connection begins to end (the peer went away, or Close), before
// the handlers' contexts are cancelled: a handler whose context ends can tell the peer's
// withdrawal of its request ($/cancel_request) from the end of the connection.
func (c *Conn) Ending() <-chan struct{} { return c.ending }

// Done is closed when the connection has ended and all its goroutines have returned.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended: nil while it runs or after Close, io.EOF or
// another read error when the peer went away.
func (c *Conn) Err() error {
	select {
	case <-c.done:
	default:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if errors.Is(c.closeErr, ErrClosed) {
		return nil
	}
	return c.closeErr
}

func (c *Conn) closedError() error {
	if c.closeErr == nil || errors.Is(c.closeErr, ErrClosed) {
		return ErrClosed
	}
	return fmt.Errorf("%w: %v", ErrClosed, c.closeErr)
}

// supervise owns the shutdown: it waits for the peer to go away or for Close, then takes
// the connection down in order.
func (c *Conn) supervise() {
	defer close(c.done) // after the deadline's timer is settled
	var reason error
	local := false
	select {
	case <-c.readDone:
		reason = c.readErr()
	case <-c.out.failed:
		// The peer no longer takes what we send (a reader that Close cannot interrupt may
		// never report it gone): nothing can be answered, so everything stops now.
		reason = fmt.Errorf("writing: %w", c.out.err)
	case <-c.closeLocal:
		reason, local = ErrClosed, true
	}
	c.mu.Lock()
	c.closing = true
	c.closeErr = reason
	c.mu.Unlock()
	close(c.ending)
	deadline := time.AfterFunc(c.closeTimeout, c.abandon)
	defer func() {
		if !deadline.Stop() {
			c.abandon() // returns once the timer's call has (sync.Once)
		}
	}()
	if local {
		// Our own close: handlers stop first, then the rest drains.
		c.cancelBase()
	}
	c.queue.close()
	<-c.dispatchDone
	c.failPending()
	c.cancelBase()
	c.handlers.Wait()
	c.out.finish()
	c.stream.Close()
	<-c.readDone
}

func (c *Conn) failPending() {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.closedError()
	for id, call := range c.pending {
		call.deliver(callResult{err: fmt.Errorf("%s: %w", call.method, err)})
		delete(c.pending, id)
	}
}

// readErr returns the error the reader stopped on (it sets closeErr before readDone).
func (c *Conn) readErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeErr
}

func (c *Conn) readLoop() {
	defer close(c.readDone)
	var method string // the last line's, to reuse
	for {
		line, err := c.lines.ReadLine()
		if err != nil {
			if tooLong, ok := errors.AsType[*LineTooLongError](err); ok {
				c.answerOversized(tooLong)
				c.onBadInput(tooLong)
				continue
			}
			c.mu.Lock()
			if c.closeErr == nil {
				c.closeErr = err
			}
			c.mu.Unlock()
			return
		}
		m, err := decodeReusing(line, method)
		if m.method != "" {
			method = m.method
		}
		if err != nil {
			de := err.(*decodeError)
			c.logger.Warn("jsonrpc2: bad message", "error", de.msg, "line", truncate(line, 200))
			if de.code == CodeParseError {
				c.answerUnreadable(de.prefix, &Error{Code: de.code, Message: de.msg})
			} else {
				c.write(c.baseCtx, appendResponse(nil, de.id, nil, &Error{Code: de.code, Message: de.msg}))
			}
			c.onBadInput(fmt.Errorf("%s: %s", de.msg, truncate(line, 200)))
			continue
		}
		if m.isResponse() {
			c.mu.Lock()
			call := c.pending[m.id.raw]
			delete(c.pending, m.id.raw)
			c.mu.Unlock()
			if call == nil {
				c.logger.Debug("jsonrpc2: response to no pending call", "id", m.id.raw)
				continue
			}
			r := callResult{result: m.result}
			if m.err != nil {
				r.err = m.err
			}
			if call.nested {
				call.deliver(r)
			} else {
				c.queue.deliverOrPush(item{call: call, resp: r})
			}
			continue
		}
		if m.method == "$/cancel_request" && !m.id.IsValid() {
			c.cancelInflight(m.params)
			continue
		}
		req := &Request{ID: m.id, Method: m.method, Params: m.params, checked: true}
		if req.IsCall() {
			c.startInflight(req)
		}
		if !c.queue.push(item{req: req}) {
			return
		}
	}
}

// startInflight registers a request as soon as it is read, so that a $/cancel_request
// arriving while it still waits in the queue finds it.
func (c *Conn) startInflight(req *Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.inflight[req.ID.raw]; dup {
		c.logger.Warn("jsonrpc2: the peer reused the id of a request still in flight", "id", req.ID.raw)
	}
	c.inflight[req.ID.raw] = &inflight{}
}

func (c *Conn) cancelInflight(params json.RawMessage) {
	var p struct {
		RequestID ID `json:"requestId"`
	}
	if err := json.Unmarshal(params, &p); err != nil || !p.RequestID.IsValid() {
		c.logger.Warn("jsonrpc2: malformed $/cancel_request", "params", truncate(params, 200))
		return
	}
	c.mu.Lock()
	var cancel context.CancelFunc
	if in := c.inflight[p.RequestID.raw]; in != nil {
		in.cancelled = true
		cancel = in.cancel
	}
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// answerOversized answers a line over the limit, as any line that cannot be read.
func (c *Conn) answerOversized(e *LineTooLongError) {
	p := readPrefix(e.Prefix)
	c.logger.Warn("jsonrpc2: oversized message skipped", "limit", e.Limit, "id", p.id.raw)
	c.answerUnreadable(p, &Error{
		Code:    CodeInvalidRequest,
		Message: fmt.Sprintf("invalid request: %v; the message was skipped", e),
	})
}

// answerUnreadable answers a line that could not be read, from what its prefix showed, so
// that every request is answered and no call waits for ever: a line with an id and no
// method is a response, which fails the call it answers (if any) and is never answered;
// anything else is answered with rerr, to the id the prefix showed (or null).
func (c *Conn) answerUnreadable(p prefixInfo, rerr *Error) {
	if !p.hasMethod && p.id.IsValid() {
		c.mu.Lock()
		call := c.pending[p.id.raw]
		delete(c.pending, p.id.raw)
		c.mu.Unlock()
		if call != nil {
			call.deliver(callResult{err: fmt.Errorf("%s: the response could not be read: %w", call.method, rerr)})
		}
		return // a response: never answered
	}
	c.write(c.baseCtx, appendResponse(nil, p.id, nil, rerr))
}

func (c *Conn) dispatchLoop() {
	defer close(c.dispatchDone)
	nctx := context.WithValue(c.baseCtx, nestedKey{}, c)
	var spare []item
	for {
		batch, ok := c.queue.popAll(spare)
		if !ok {
			return
		}
		for i := range batch {
			it := &batch[i]
			switch {
			case it.call != nil:
				it.call.deliver(it.resp)
			case it.req.IsCall():
				c.serve(it.req)
			default:
				c.notify(nctx, it.req)
			}
			*it = item{}
		}
		spare = batch
	}
}

func (c *Conn) notify(ctx context.Context, req *Request) {
	_, err := c.safeHandle(ctx, req)
	if err != nil && !errors.Is(err, ErrMethodNotFound) {
		c.logger.Warn("jsonrpc2: notification handler failed", "method", req.Method, "error", err)
	}
}

// serve starts the handler of a request on its own goroutine.
func (c *Conn) serve(req *Request) {
	ctx, cancel := context.WithCancel(c.baseCtx)
	c.mu.Lock()
	in := c.inflight[req.ID.raw]
	if in == nil {
		in = &inflight{}
		c.inflight[req.ID.raw] = in
	}
	in.cancel = cancel
	cancelledEarly := in.cancelled
	c.mu.Unlock()
	if cancelledEarly {
		cancel()
	}
	if c.prepare != nil {
		ctx = c.prepare(ctx, req)
	}
	ctx = context.WithValue(ctx, inflightKey{}, in)
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		defer cancel()
		var result any
		var err error
		if cancelledEarly { // the peer withdrew it before its handler started
			err = context.Canceled
		} else {
			result, err = c.safeHandle(ctx, req)
		}
		line := c.response(ctx, req, result, err)
		if len(in.after) > 0 {
			h := &held{conn: c}
			hctx := context.WithValue(context.WithoutCancel(ctx), heldKey{}, h)
			for _, fn := range in.after {
				fn(hctx)
			}
			h.mu.Lock()
			line, h.done = append(line, h.lines...), true
			h.mu.Unlock()
		}
		if werr := c.write(context.Background(), line); werr != nil {
			c.logger.Debug("jsonrpc2: response not sent", "method", req.Method, "error", werr)
		}
		for _, fn := range in.queued {
			fn()
		}
		c.mu.Lock()
		if c.inflight[req.ID.raw] == in {
			delete(c.inflight, req.ID.raw)
		}
		c.mu.Unlock()
	}()
}

// safeHandle runs the handler and turns a panic into an internal error, so that no panic
// crosses to the peer as a dead connection.
func (c *Conn) safeHandle(ctx context.Context, req *Request) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.logger.Error("jsonrpc2: handler panicked", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			result, err = nil, Errorf(CodeInternalError, "internal error: the %s handler failed", req.Method)
		}
	}()
	return c.handler.Handle(ctx, req)
}

// response encodes the answer to req: its result, or the error the peer should see.
func (c *Conn) response(ctx context.Context, req *Request, result any, err error) []byte {
	var rerr *Error
	var raw json.RawMessage
	if err == nil {
		raw, err = encodeValue(result)
		if err != nil {
			err = fmt.Errorf("encoding the %s result: %w", req.Method, err)
		}
	}
	if err != nil {
		rerr = wireError(ctx, req, err)
	}
	return appendResponse(nil, req.ID, raw, rerr)
}

// wireError chooses the code the peer sees for a handler's error.
func wireError(ctx context.Context, req *Request, err error) *Error {
	if e, ok := errors.AsType[*Error](err); ok {
		if e == ErrMethodNotFound {
			return &Error{Code: CodeMethodNotFound, Message: "method not found: " + req.Method}
		}
		return e
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return &Error{Code: CodeRequestCancelled, Message: "request cancelled"}
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
