package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// Client is what an ACP client implements: it receives session updates and answers
// permission requests. The optional interfaces below add the capability-gated methods the
// client advertises in initialize, and ExtensionHandler serves extension methods; a
// method the client does not implement is answered CodeMethodNotFound.
type Client interface {
	// SessionUpdate handles one session/update. Updates are delivered one at a time, in
	// the order the agent sent them, and all of a turn's updates before Prompt returns.
	SessionUpdate(ctx context.Context, n *SessionNotification) error
	// RequestPermission asks the user. ctx ends when the agent withdraws the request, and
	// when the client cancels the turn (Cancel, or a Prompt whose context ended): the
	// agent is then answered the cancelled outcome, whatever RequestPermission returns.
	RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error)
}

// Optional client methods.
type (
	// FileSystem serves fs/* (advertise clientCapabilities.fs).
	FileSystem interface {
		ReadTextFile(ctx context.Context, req *ReadTextFileRequest) (*ReadTextFileResponse, error)
		WriteTextFile(ctx context.Context, req *WriteTextFileRequest) (*WriteTextFileResponse, error)
	}
	// Terminals serves terminal/* (advertise clientCapabilities.terminal).
	Terminals interface {
		CreateTerminal(ctx context.Context, req *CreateTerminalRequest) (*CreateTerminalResponse, error)
		TerminalOutput(ctx context.Context, req *TerminalOutputRequest) (*TerminalOutputResponse, error)
		WaitForTerminalExit(ctx context.Context, req *WaitForTerminalExitRequest) (*WaitForTerminalExitResponse, error)
		KillTerminal(ctx context.Context, req *KillTerminalRequest) (*KillTerminalResponse, error)
		ReleaseTerminal(ctx context.Context, req *ReleaseTerminalRequest) (*ReleaseTerminalResponse, error)
	}
	// Elicitor serves elicitation/* (advertise clientCapabilities.elicitation).
	Elicitor interface {
		CreateElicitation(ctx context.Context, req *CreateElicitationRequest) (*CreateElicitationResponse, error)
		CompleteElicitation(ctx context.Context, n *CompleteElicitationNotification) error
	}
)

// Limits of the buffer for updates that arrive before their session id is known.
const (
	earlyUpdateLimit = 4096
	earlyUpdateTTL   = 30 * time.Second
)

// ClientConn is the client's side of a connection: it serves a Client and calls the agent.
//
// Updates for a session id the client has not seen returned yet (agents in the wild send
// them before the session/new response) are kept, in order, and delivered once the
// response that introduces the id has been handled. They are kept only while a
// session-opening request is in flight, at most 4096 of them and for 30 seconds;
// leftovers are dropped with a warning to ConnOptions.Logger.
//
// Its methods may be called from any goroutine.
type ClientConn struct {
	rpc         *jsonrpc2.Conn
	proc        *agentProcess // the agent StartAgent started, or nil
	done        chan struct{} // with proc: closed when the connection and the process have ended
	client      Client
	logger      *slog.Logger
	cancelGrace time.Duration

	// deliverMu serialises deliveries to client.SessionUpdate, so that a replay of early
	// updates and the dispatcher's own deliveries never interleave.
	deliverMu sync.Mutex
	mu        sync.Mutex
	known     map[SessionID]bool
	opening   int // session-opening requests in flight
	early     []earlyUpdate
	// asking holds the permission requests being answered, by session, so that Cancel
	// can withdraw them: ACP has the client answer them "cancelled" on session/cancel.
	asking map[SessionID]map[*context.CancelCauseFunc]bool
}

// cancelSendWait bounds the wait to queue session/cancel.
const cancelSendWait = 2 * time.Second

type earlyUpdate struct {
	n        *SessionNotification
	received time.Time
}

// NewClientConn serves a client over stream (usually an agent process's stdout and stdin).
// bind makes the client, given the connection it will call the agent through; it runs
// before the first message is read.
func NewClientConn(stream io.ReadWriteCloser, bind func(conn *ClientConn) Client, opts *ConnOptions) *ClientConn {
	return newClientConn(stream, bind, opts)
}

func newClientConn(stream io.ReadWriteCloser, bind func(conn *ClientConn) Client, opts *ConnOptions) *ClientConn {
	c := &ClientConn{known: map[SessionID]bool{}, asking: map[SessionID]map[*context.CancelCauseFunc]bool{}, logger: slog.New(slog.DiscardHandler), cancelGrace: DefaultCancelGrace}
	if opts != nil && opts.Logger != nil {
		c.logger = opts.Logger
	}
	if opts != nil && opts.CancelGrace > 0 {
		c.cancelGrace = opts.CancelGrace
	}
	newRPC(stream, opts, nil, func(rpc *jsonrpc2.Conn) *router {
		c.rpc = rpc
		c.client = bind(c)
		return c.routes()
	})
	return c
}

// routes are the methods a client answers: the baseline, and those its optional
// interfaces implement.
func (c *ClientConn) routes() *router {
	client := c.client
	rt := &router{routes: map[string]route{
		MethodSessionUpdate:     notificationOf(c.deliverUpdate),
		MethodRequestPermission: routeOf(c.requestPermission),
	}}
	if fs, ok := client.(FileSystem); ok {
		rt.routes[MethodReadTextFile] = routeOf(fs.ReadTextFile)
		rt.routes[MethodWriteTextFile] = routeOf(fs.WriteTextFile)
	}
	if t, ok := client.(Terminals); ok {
		rt.routes[MethodCreateTerminal] = routeOf(t.CreateTerminal)
		rt.routes[MethodTerminalOutput] = routeOf(t.TerminalOutput)
		rt.routes[MethodWaitForTerminalExit] = routeOf(t.WaitForTerminalExit)
		rt.routes[MethodKillTerminal] = routeOf(t.KillTerminal)
		rt.routes[MethodReleaseTerminal] = routeOf(t.ReleaseTerminal)
	}
	if e, ok := client.(Elicitor); ok {
		rt.routes[MethodCreateElicitation] = routeOf(e.CreateElicitation)
		rt.routes[MethodCompleteElicitation] = notificationOf(e.CompleteElicitation)
	}
	if e, ok := client.(ExtensionHandler); ok {
		rt.extensions = e
	}
	return rt
}

// requestPermission asks the client, and answers "cancelled" when the turn is cancelled
// while the user is still being asked, whatever the client's handler then returns.
func (c *ClientConn) requestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := &cancel
	c.mu.Lock()
	if c.asking[req.SessionID] == nil {
		c.asking[req.SessionID] = map[*context.CancelCauseFunc]bool{}
	}
	c.asking[req.SessionID][key] = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.asking[req.SessionID], key)
		if len(c.asking[req.SessionID]) == 0 {
			delete(c.asking, req.SessionID)
		}
		c.mu.Unlock()
		cancel(nil)
	}()
	resp, err := c.client.RequestPermission(ctx, req)
	if errors.Is(context.Cause(ctx), ErrTurnCancelled) {
		return &RequestPermissionResponse{Outcome: CancelledOutcome()}, nil
	}
	return resp, err
}

func (c *ClientConn) deliverUpdate(ctx context.Context, n *SessionNotification) error {
	c.deliverMu.Lock()
	defer c.deliverMu.Unlock()
	c.mu.Lock()
	if !c.known[n.SessionID] && c.opening > 0 {
		c.keepEarly(n)
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	return c.client.SessionUpdate(ctx, n)
}

// keepEarly buffers an update for a session id not known yet. c.mu is held.
func (c *ClientConn) keepEarly(n *SessionNotification) {
	now := time.Now()
	for len(c.early) > 0 && (len(c.early) >= earlyUpdateLimit || now.Sub(c.early[0].received) > earlyUpdateTTL) {
		c.logger.Warn("acp: dropping an update for a session that never appeared", "session", c.early[0].n.SessionID)
		c.early = c.early[1:]
	}
	c.early = append(c.early, earlyUpdate{n: n, received: now})
}

// opened records that a session-opening request completed: it marks id known (when the
// request succeeded) and delivers the updates that were waiting for it.
func (c *ClientConn) opened(ctx context.Context, id SessionID, ok bool) {
	c.deliverMu.Lock()
	defer c.deliverMu.Unlock()
	c.mu.Lock()
	c.opening--
	if ok {
		c.known[id] = true
	}
	var ready []*SessionNotification
	kept := c.early[:0]
	for _, e := range c.early {
		switch {
		case c.known[e.n.SessionID]:
			ready = append(ready, e.n)
		case c.opening == 0:
			c.logger.Warn("acp: dropping an update for a session id no response introduced", "session", e.n.SessionID)
		default:
			kept = append(kept, e)
		}
	}
	c.early = kept
	c.mu.Unlock()
	for _, n := range ready {
		if err := c.client.SessionUpdate(ctx, n); err != nil {
			c.logger.Warn("acp: session update handler failed", "error", err)
		}
	}
}

func (c *ClientConn) beginOpening(known SessionID) {
	c.mu.Lock()
	c.opening++
	if known != "" {
		// session/load replays history before its response: the id is known up front.
		c.known[known] = true
	}
	c.mu.Unlock()
}

// Initialize negotiates the protocol version and capabilities. A zero ProtocolVersion
// asks for ProtocolVersion. It fails when the agent answers a version this package does
// not speak.
func (c *ClientConn) Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error) {
	if req.ProtocolVersion == 0 {
		req.ProtocolVersion = ProtocolVersion
	}
	resp, err := call[InitializeResponse](ctx, c.rpc, MethodInitialize, req)
	if err != nil {
		return nil, err
	}
	if resp.ProtocolVersion != ProtocolVersion {
		return resp, fmt.Errorf("the agent speaks ACP version %d; this client speaks version %d", resp.ProtocolVersion, ProtocolVersion)
	}
	return resp, nil
}

// Authenticate runs an agent-side auth method.
func (c *ClientConn) Authenticate(ctx context.Context, req *AuthenticateRequest) (*AuthenticateResponse, error) {
	return call[AuthenticateResponse](ctx, c.rpc, MethodAuthenticate, req)
}

// Logout logs out (gate: agentCapabilities.auth.logout).
func (c *ClientConn) Logout(ctx context.Context, req *LogoutRequest) (*LogoutResponse, error) {
	return call[LogoutResponse](ctx, c.rpc, MethodLogout, req)
}

// NewSession opens a session. Updates the agent sends for it before this returns are
// delivered first.
func (c *ClientConn) NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error) {
	c.beginOpening("")
	resp, err := call[NewSessionResponse](ctx, c.rpc, MethodNewSession, req)
	if err != nil {
		c.opened(ctx, "", false)
		return nil, err
	}
	c.opened(ctx, resp.SessionID, true)
	return resp, nil
}

// LoadSession reopens a session; the agent replays it as updates before answering.
func (c *ClientConn) LoadSession(ctx context.Context, req *LoadSessionRequest) (*LoadSessionResponse, error) {
	c.beginOpening(req.SessionID)
	resp, err := call[LoadSessionResponse](ctx, c.rpc, MethodLoadSession, req)
	c.opened(ctx, req.SessionID, err == nil)
	return resp, err
}

// ResumeSession reopens a session without replay.
func (c *ClientConn) ResumeSession(ctx context.Context, req *ResumeSessionRequest) (*ResumeSessionResponse, error) {
	c.beginOpening(req.SessionID)
	resp, err := call[ResumeSessionResponse](ctx, c.rpc, MethodResumeSession, req)
	c.opened(ctx, req.SessionID, err == nil)
	return resp, err
}

// ForkSession opens a new session that starts with another's conversation (gate:
// sessionCapabilities.fork; unstable in ACP). Updates for the new id sent before the
// response are delivered first, as for session/new.
func (c *ClientConn) ForkSession(ctx context.Context, req *ForkSessionRequest) (*ForkSessionResponse, error) {
	c.beginOpening("")
	resp, err := call[ForkSessionResponse](ctx, c.rpc, MethodForkSession, req)
	if err != nil {
		c.opened(ctx, "", false)
		return nil, err
	}
	c.opened(ctx, resp.SessionID, true)
	return resp, nil
}

// ListSessions lists the agent's sessions (gate: sessionCapabilities.list).
func (c *ClientConn) ListSessions(ctx context.Context, req *ListSessionsRequest) (*ListSessionsResponse, error) {
	return call[ListSessionsResponse](ctx, c.rpc, MethodListSessions, req)
}

// DeleteSession removes a session from the list (gate: sessionCapabilities.delete).
func (c *ClientConn) DeleteSession(ctx context.Context, req *DeleteSessionRequest) (*DeleteSessionResponse, error) {
	return call[DeleteSessionResponse](ctx, c.rpc, MethodDeleteSession, req)
}

// CloseSession frees a session (gate: sessionCapabilities.close).
func (c *ClientConn) CloseSession(ctx context.Context, req *CloseSessionRequest) (*CloseSessionResponse, error) {
	resp, err := call[CloseSessionResponse](ctx, c.rpc, MethodCloseSession, req)
	if err == nil {
		c.mu.Lock()
		delete(c.known, req.SessionID)
		c.mu.Unlock()
	}
	return resp, err
}

// ErrPromptNotSent is the error of a Prompt whose context ended before session/prompt was
// sent: the agent never saw the turn.
var ErrPromptNotSent = errors.New("the turn was cancelled before its prompt was sent")

// Prompt runs a turn. When ctx ends, Prompt sends session/cancel and keeps waiting (at
// most the CancelGrace of its options, sending included) for the agent's answer, which
// should be StopReasonCancelled. session/cancel never goes out before the turn's
// session/prompt: when ctx ends before the prompt is sent, nothing is sent and Prompt
// returns ErrPromptNotSent (with ctx's cause).
func (c *ClientConn) Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error) {
	type result struct {
		resp *PromptResponse
		err  error
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: %w", ErrPromptNotSent, context.Cause(ctx))
	}
	// Queued here, on the caller's goroutine, before anything else can be: a
	// session/cancel sent after it cannot overtake it (the agent would ignore the cancel
	// and run the whole turn).
	pending, err := c.rpc.Start(ctx, MethodSessionPrompt, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ErrPromptNotSent, context.Cause(ctx))
		}
		return nil, fromWire(err)
	}
	callCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	done := make(chan result, 1)
	go func() {
		resp := new(PromptResponse)
		if err := pending.Wait(callCtx, resp); err != nil {
			done <- result{nil, fromWire(err)}
			return
		}
		done <- result{resp, nil}
	}()
	select {
	case r := <-done:
		return r.resp, r.err
	case <-ctx.Done():
	}
	grace, cancelGrace := context.WithTimeout(context.WithoutCancel(ctx), c.cancelGrace)
	defer cancelGrace()
	// An agent that has not read session/cancel within cancelSendWait is not reading: its
	// answer will not come either.
	sendCtx, sent := context.WithTimeout(grace, cancelSendWait)
	defer sent()
	err = c.Cancel(sendCtx, &CancelNotification{SessionID: req.SessionID})
	if err == nil {
		err = c.rpc.Flush(sendCtx)
	}
	if err != nil {
		stop()
		<-done
		return nil, fmt.Errorf("cancelling the turn: the agent does not read what it is sent (%w): %w", err, context.Cause(ctx))
	}
	select {
	case r := <-done:
		return r.resp, r.err
	case <-grace.Done():
		stop()
		<-done
		return nil, fmt.Errorf("the agent did not answer session/prompt within %v of session/cancel: %w", c.cancelGrace, context.Cause(ctx))
	}
}

// Cancel sends session/cancel, then withdraws the session's pending permission requests:
// their handlers' contexts end and the agent is answered "cancelled", as ACP requires,
// before it answers the prompt. In that order on the wire, so that an agent learns the
// turn is cancelled before it reads the "cancelled" outcome (one that read the outcome
// first could take it for a refusal and go on with the turn).
func (c *ClientConn) Cancel(ctx context.Context, n *CancelNotification) error {
	err := c.rpc.Notify(ctx, MethodSessionCancel, n)
	c.mu.Lock()
	for cancel := range c.asking[n.SessionID] {
		(*cancel)(ErrTurnCancelled)
	}
	c.mu.Unlock()
	return err
}

// SetSessionMode switches the session's mode.
func (c *ClientConn) SetSessionMode(ctx context.Context, req *SetSessionModeRequest) (*SetSessionModeResponse, error) {
	return call[SetSessionModeResponse](ctx, c.rpc, MethodSetSessionMode, req)
}

// SetSessionConfigOption sets a config option; the response carries the complete list.
func (c *ClientConn) SetSessionConfigOption(ctx context.Context, req *SetSessionConfigOptionRequest) (*SetSessionConfigOptionResponse, error) {
	return call[SetSessionConfigOptionResponse](ctx, c.rpc, MethodSetSessionConfigOption, req)
}

// SetSessionModel is the legacy session/set_model, for agents that return models.
func (c *ClientConn) SetSessionModel(ctx context.Context, req *SetSessionModelRequest) (*SetSessionModelResponse, error) {
	return call[SetSessionModelResponse](ctx, c.rpc, MethodSetSessionModel, req)
}

// CallExtension sends an extension request (a method name starting with "_", or one the
// agent offers outside the protocol, such as "authentication/status") and decodes its
// result into result, which may be nil. An agent that does not know the method answers
// CodeMethodNotFound.
func (c *ClientConn) CallExtension(ctx context.Context, method string, params, result any) error {
	return callRaw(ctx, c.rpc, method, params, result)
}

// NotifyExtension sends an extension notification (a method name starting with "_").
func (c *ClientConn) NotifyExtension(ctx context.Context, method string, params any) error {
	return c.rpc.Notify(ctx, method, params)
}

// Done is closed when the connection has ended (the agent closed its output, or Close was
// called), and, for a connection made by StartAgent, the agent process has ended too.
func (c *ClientConn) Done() <-chan struct{} {
	if c.done != nil {
		return c.done
	}
	return c.rpc.Done()
}

// Err tells why the connection ended: nil while it runs or after Close, io.EOF when the
// agent closed its output. For a connection made by StartAgent it also says how the agent
// ended when it exited by itself with a failure.
func (c *ClientConn) Err() error {
	err := c.rpc.Err()
	if err == nil || c.proc == nil {
		return err
	}
	if exit := c.proc.exitError(); exit != nil {
		return fmt.Errorf("the agent ended (%w): %w", exit, err)
	}
	return err
}

// Close ends the connection in order: it stops reading, withdraws the requests being
// handled, writes what is queued, then closes the stream. For a connection made by
// StartAgent it then ends the agent process (see StartAgent) before it returns.
func (c *ClientConn) Close() error {
	err := c.rpc.Close()
	if c.proc != nil {
		err = errors.Join(err, c.proc.stop())
	}
	return err
}
