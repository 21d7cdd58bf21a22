package acp

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// Agent is what an ACP agent implements: the three requests every agent answers. The
// optional interfaces below add the capability-gated methods, Canceller hears of
// session/cancel, and ExtensionHandler serves extension methods; a method the agent does
// not implement is answered CodeMethodNotFound.
//
// Each request runs on its own goroutine, with a context that ends when the client
// withdraws the request ($/cancel_request) or the connection closes.
type Agent interface {
	// Initialize negotiates the protocol version and capabilities. A response whose
	// ProtocolVersion is 0 is sent with NegotiateVersion's answer.
	Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error)
	NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error)
	// Prompt runs one turn. Its session updates must be sent before it returns. ctx also
	// ends, with the cause ErrTurnCancelled, when the client cancels the turn
	// (session/cancel, or session/close of the session): Prompt should then stop and
	// return. An error or a nil response it then returns is answered
	// StopReasonCancelled; a response is sent as it is.
	Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error)
}

// Optional agent methods, each behind the capability the agent advertises.
type (
	Authenticator interface {
		Authenticate(ctx context.Context, req *AuthenticateRequest) (*AuthenticateResponse, error)
	}
	LoggerOuter interface {
		Logout(ctx context.Context, req *LogoutRequest) (*LogoutResponse, error)
	}
	SessionLoader interface {
		LoadSession(ctx context.Context, req *LoadSessionRequest) (*LoadSessionResponse, error)
	}
	SessionResumer interface {
		ResumeSession(ctx context.Context, req *ResumeSessionRequest) (*ResumeSessionResponse, error)
	}
	SessionForker interface {
		ForkSession(ctx context.Context, req *ForkSessionRequest) (*ForkSessionResponse, error)
	}
	SessionLister interface {
		ListSessions(ctx context.Context, req *ListSessionsRequest) (*ListSessionsResponse, error)
	}
	SessionDeleter interface {
		DeleteSession(ctx context.Context, req *DeleteSessionRequest) (*DeleteSessionResponse, error)
	}
	// SessionCloser frees a session. The session's running prompts have had their
	// contexts cancelled (cause ErrTurnCancelled) before CloseSession is called.
	SessionCloser interface {
		CloseSession(ctx context.Context, req *CloseSessionRequest) (*CloseSessionResponse, error)
	}
	ModeSetter interface {
		SetSessionMode(ctx context.Context, req *SetSessionModeRequest) (*SetSessionModeResponse, error)
	}
	ConfigOptionSetter interface {
		SetSessionConfigOption(ctx context.Context, req *SetSessionConfigOptionRequest) (*SetSessionConfigOptionResponse, error)
	}
	// ModelSetter is the legacy session/set_model that real agents still accept.
	ModelSetter interface {
		SetSessionModel(ctx context.Context, req *SetSessionModelRequest) (*SetSessionModelResponse, error)
	}
	// Canceller is told of session/cancel, after the contexts of the session's running
	// prompts were cancelled. An agent needs it only for work that outlives a prompt.
	Canceller interface {
		Cancel(ctx context.Context, n *CancelNotification) error
	}
)

// AgentConn is the agent's side of a connection: it serves an Agent and calls the client.
// Its methods may be called from any goroutine.
type AgentConn struct {
	rpc *jsonrpc2.Conn

	mu    sync.Mutex
	turns map[SessionID]map[*turn]bool // the prompts being answered, by session
}

// turn is one session/prompt being answered.
type turn struct {
	cancel context.CancelCauseFunc
}

// NewAgentConn serves an agent over stream (usually the process's stdin and stdout: see
// Stdio, and Serve, which also waits for the end). bind makes the agent, given the
// connection it will call the client through; it runs before the first message is read.
func NewAgentConn(stream io.ReadWriteCloser, bind func(conn *AgentConn) Agent, opts *ConnOptions) *AgentConn {
	c := &AgentConn{turns: map[SessionID]map[*turn]bool{}}
	newRPC(stream, opts, c.prepare, func(rpc *jsonrpc2.Conn) *router {
		c.rpc = rpc
		return c.routes(bind(c))
	})
	return c
}

// prepare gives each session/prompt a context of its own that session/cancel ends. It
// runs on the dispatcher, in wire order with the notifications, so a session/cancel sent
// right behind a prompt always finds it.
func (c *AgentConn) prepare(ctx context.Context, req *jsonrpc2.Request) context.Context {
	if req.Method != MethodSessionPrompt {
		return ctx
	}
	var id SessionID
	if raw := json.Member(req.Params, "sessionId"); raw == nil || json.Unmarshal(raw, &id) != nil {
		return ctx // the handler rejects the params
	}
	ctx, cancel := context.WithCancelCause(ctx)
	t := &turn{cancel: cancel}
	c.mu.Lock()
	if c.turns[id] == nil {
		c.turns[id] = map[*turn]bool{}
	}
	c.turns[id][t] = true
	c.mu.Unlock()
	context.AfterFunc(ctx, func() { // the prompt was answered (its context ends then) or cancelled
		c.mu.Lock()
		delete(c.turns[id], t)
		if len(c.turns[id]) == 0 {
			delete(c.turns, id)
		}
		c.mu.Unlock()
	})
	return ctx
}

// cancelTurns ends the contexts of a session's running prompts.
func (c *AgentConn) cancelTurns(id SessionID) {
	c.mu.Lock()
	var cancels []context.CancelCauseFunc
	for t := range c.turns[id] {
		cancels = append(cancels, t.cancel)
	}
	c.mu.Unlock()
	for _, cancel := range cancels {
		cancel(ErrTurnCancelled)
	}
}

// routes are the methods an agent answers: the baseline, and those its optional
// interfaces implement.
func (c *AgentConn) routes(agent Agent) *router {
	rt := &router{routes: map[string]route{
		MethodInitialize: routeOf(func(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error) {
			resp, err := agent.Initialize(ctx, req)
			if err == nil && resp != nil && resp.ProtocolVersion == 0 {
				resp.ProtocolVersion = NegotiateVersion(req.ProtocolVersion)
			}
			return resp, err
		}),
		MethodNewSession: routeOf(agent.NewSession),
		MethodSessionPrompt: routeOf(func(ctx context.Context, req *PromptRequest) (*PromptResponse, error) {
			resp, err := agent.Prompt(ctx, req)
			if (err != nil || resp == nil) && errors.Is(context.Cause(ctx), ErrTurnCancelled) {
				// ACP: a cancelled turn is answered "cancelled", never with an error,
				// however the abort surfaced in the agent.
				return &PromptResponse{StopReason: StopReasonCancelled}, nil
			}
			return resp, err
		}),
		MethodSessionCancel: notificationOf(func(ctx context.Context, n *CancelNotification) error {
			c.cancelTurns(n.SessionID)
			if a, ok := agent.(Canceller); ok {
				return a.Cancel(ctx, n)
			}
			return nil
		}),
	}}
	if a, ok := agent.(Authenticator); ok {
		rt.routes[MethodAuthenticate] = routeOf(a.Authenticate)
	}
	if a, ok := agent.(LoggerOuter); ok {
		rt.routes[MethodLogout] = routeOf(a.Logout)
	}
	if a, ok := agent.(SessionLoader); ok {
		rt.routes[MethodLoadSession] = routeOf(a.LoadSession)
	}
	if a, ok := agent.(SessionResumer); ok {
		rt.routes[MethodResumeSession] = routeOf(a.ResumeSession)
	}
	if a, ok := agent.(SessionForker); ok {
		rt.routes[MethodForkSession] = routeOf(a.ForkSession)
	}
	if a, ok := agent.(SessionLister); ok {
		rt.routes[MethodListSessions] = routeOf(a.ListSessions)
	}
	if a, ok := agent.(SessionDeleter); ok {
		rt.routes[MethodDeleteSession] = routeOf(a.DeleteSession)
	}
	if a, ok := agent.(SessionCloser); ok {
		rt.routes[MethodCloseSession] = routeOf(func(ctx context.Context, req *CloseSessionRequest) (*CloseSessionResponse, error) {
			c.cancelTurns(req.SessionID) // ACP: close cancels the session's work as session/cancel does
			return a.CloseSession(ctx, req)
		})
	}
	if a, ok := agent.(ModeSetter); ok {
		rt.routes[MethodSetSessionMode] = routeOf(a.SetSessionMode)
	}
	if a, ok := agent.(ConfigOptionSetter); ok {
		rt.routes[MethodSetSessionConfigOption] = routeOf(a.SetSessionConfigOption)
	}
	if a, ok := agent.(ModelSetter); ok {
		rt.routes[MethodSetSessionModel] = routeOf(a.SetSessionModel)
	}
	if e, ok := agent.(ExtensionHandler); ok {
		rt.extensions = e
	}
	return rt
}

// NegotiateVersion is the version an agent answers to a client that asked for requested:
// the same when this package speaks it, otherwise its own latest (ProtocolVersion).
func NegotiateVersion(requested uint16) uint16 {
	return ProtocolVersion
}

// SessionUpdate sends a session/update notification. It returns once the message is
// queued: messages sent from one goroutine go out in the order they were sent. ctx bounds
// only the wait for room in the queue, so an update that reports how a cancelled turn
// ended still goes out with the turn's context.
func (c *AgentConn) SessionUpdate(ctx context.Context, n *SessionNotification) error {
	return c.rpc.Notify(ctx, MethodSessionUpdate, n)
}

// Update sends one update for a session (see SessionUpdate).
func (c *AgentConn) Update(ctx context.Context, session SessionID, u SessionUpdate) error {
	return c.SessionUpdate(ctx, &SessionNotification{SessionID: session, Update: u})
}

// RequestPermission asks the client to approve a tool call. After session/cancel the
// client answers the cancelled outcome (RequestPermissionOutcome.Cancelled).
func (c *AgentConn) RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error) {
	return call[RequestPermissionResponse](ctx, c.rpc, MethodRequestPermission, req)
}

// ReadTextFile reads a file through the client (gate: fs.readTextFile).
func (c *AgentConn) ReadTextFile(ctx context.Context, req *ReadTextFileRequest) (*ReadTextFileResponse, error) {
	return call[ReadTextFileResponse](ctx, c.rpc, MethodReadTextFile, req)
}

// WriteTextFile writes a file through the client (gate: fs.writeTextFile).
func (c *AgentConn) WriteTextFile(ctx context.Context, req *WriteTextFileRequest) (*WriteTextFileResponse, error) {
	return call[WriteTextFileResponse](ctx, c.rpc, MethodWriteTextFile, req)
}

// CreateTerminal starts a command in the client (gate: terminal).
func (c *AgentConn) CreateTerminal(ctx context.Context, req *CreateTerminalRequest) (*CreateTerminalResponse, error) {
	return call[CreateTerminalResponse](ctx, c.rpc, MethodCreateTerminal, req)
}

// TerminalOutput reads a terminal's output so far.
func (c *AgentConn) TerminalOutput(ctx context.Context, req *TerminalOutputRequest) (*TerminalOutputResponse, error) {
	return call[TerminalOutputResponse](ctx, c.rpc, MethodTerminalOutput, req)
}

// WaitForTerminalExit waits for a terminal's command to end.
func (c *AgentConn) WaitForTerminalExit(ctx context.Context, req *WaitForTerminalExitRequest) (*WaitForTerminalExitResponse, error) {
	return call[WaitForTerminalExitResponse](ctx, c.rpc, MethodWaitForTerminalExit, req)
}

// KillTerminal stops a terminal's command; the terminal stays valid.
func (c *AgentConn) KillTerminal(ctx context.Context, req *KillTerminalRequest) (*KillTerminalResponse, error) {
	return call[KillTerminalResponse](ctx, c.rpc, MethodKillTerminal, req)
}

// ReleaseTerminal kills (if needed) and forgets a terminal.
func (c *AgentConn) ReleaseTerminal(ctx context.Context, req *ReleaseTerminalRequest) (*ReleaseTerminalResponse, error) {
	return call[ReleaseTerminalResponse](ctx, c.rpc, MethodReleaseTerminal, req)
}

// CreateElicitation asks the user for structured input (a form) or to visit a URL (gate:
// elicitation.form or elicitation.url).
func (c *AgentConn) CreateElicitation(ctx context.Context, req *CreateElicitationRequest) (*CreateElicitationResponse, error) {
	return call[CreateElicitationResponse](ctx, c.rpc, MethodCreateElicitation, req)
}

// CompleteElicitation tells the client that a URL elicitation is done.
func (c *AgentConn) CompleteElicitation(ctx context.Context, n *CompleteElicitationNotification) error {
	return c.rpc.Notify(ctx, MethodCompleteElicitation, n)
}

// CallExtension sends an extension request (a method name starting with "_") and decodes
// its result into result, which may be nil. A client that does not know the method
// answers CodeMethodNotFound.
func (c *AgentConn) CallExtension(ctx context.Context, method string, params, result any) error {
	return callRaw(ctx, c.rpc, method, params, result)
}

// NotifyExtension sends an extension notification (a method name starting with "_").
func (c *AgentConn) NotifyExtension(ctx context.Context, method string, params any) error {
	return c.rpc.Notify(ctx, method, params)
}

// Done is closed when the connection has ended.
func (c *AgentConn) Done() <-chan struct{} { return c.rpc.Done() }

// Ending is closed when the connection begins to end, before the contexts of the requests
// being handled are cancelled: a handler whose context ends can tell the client's
// withdrawal of its request from the client going away.
func (c *AgentConn) Ending() <-chan struct{} { return c.rpc.Ending() }

// Err tells why the connection ended: nil while it runs or after Close, io.EOF when the
// client closed the stream.
func (c *AgentConn) Err() error { return c.rpc.Err() }

// Close ends the connection in order: it stops reading, cancels the contexts of the
// requests being handled and waits for their answers, writes what is queued, then closes
// the stream.
func (c *AgentConn) Close() error { return c.rpc.Close() }
