package acp

import (
	"context"
	"io"

	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// Agent is what an ACP agent implements. The connection calls it for the client's
// baseline requests; the optional interfaces below add the capability-gated ones. A method
// the agent does not implement is answered -32601.
type Agent interface {
	Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error)
	NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error)
	// Prompt runs one turn. Its session updates must be sent before it returns; on
	// session/cancel it must return StopReasonCancelled, not an error.
	Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error)
	// Cancel is the session/cancel notification: stop the session's turn.
	Cancel(ctx context.Context, req *CancelNotification) error
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
	SessionLister interface {
		ListSessions(ctx context.Context, req *ListSessionsRequest) (*ListSessionsResponse, error)
	}
	SessionDeleter interface {
		DeleteSession(ctx context.Context, req *DeleteSessionRequest) (*DeleteSessionResponse, error)
	}
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
)

// AgentConn is the agent's side of a connection: it serves an Agent and calls the client.
type AgentConn struct {
	rpc *jsonrpc2.Conn
}

// NewAgentConn serves an agent over stream (usually the process's stdin and stdout). bind
// makes the agent, given the connection it will call the client through; it runs before
// the first message is read.
func NewAgentConn(stream io.ReadWriteCloser, bind func(conn *AgentConn) Agent, opts *ConnOptions) *AgentConn {
	c := &AgentConn{}
	newRPC(stream, opts, func(rpc *jsonrpc2.Conn) *router {
		c.rpc = rpc
		return agentRoutes(bind(c))
	})
	return c
}

// agentRoutes are the methods an agent answers: the baseline, and those its optional
// interfaces implement.
func agentRoutes(agent Agent) *router {
	rt := &router{routes: map[string]route{
		MethodInitialize: routeOf(func(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error) {
			resp, err := agent.Initialize(ctx, req)
			if err == nil && resp != nil && resp.ProtocolVersion == 0 {
				resp.ProtocolVersion = NegotiateVersion(req.ProtocolVersion)
			}
			return resp, err
		}),
		MethodNewSession:    routeOf(agent.NewSession),
		MethodSessionPrompt: routeOf(agent.Prompt),
		MethodSessionCancel: notificationOf(agent.Cancel),
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
	if a, ok := agent.(SessionLister); ok {
		rt.routes[MethodListSessions] = routeOf(a.ListSessions)
	}
	if a, ok := agent.(SessionDeleter); ok {
		rt.routes[MethodDeleteSession] = routeOf(a.DeleteSession)
	}
	if a, ok := agent.(SessionCloser); ok {
		rt.routes[MethodCloseSession] = routeOf(a.CloseSession)
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
	return rt
}

// NegotiateVersion is the version an agent answers to a client that asked for requested:
// the same when parley speaks it, otherwise parley's own latest.
func NegotiateVersion(requested uint16) uint16 {
	return ProtocolVersion
}

// SessionUpdate sends a session/update notification.
func (c *AgentConn) SessionUpdate(ctx context.Context, n *SessionNotification) error {
	return c.rpc.Notify(ctx, MethodSessionUpdate, n)
}

// Update sends one update for a session.
func (c *AgentConn) Update(ctx context.Context, session SessionID, u SessionUpdate) error {
	return c.SessionUpdate(ctx, &SessionNotification{SessionID: session, Update: u})
}

// RequestPermission asks the client to approve a tool call.
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

// CreateElicitation asks the user something through the client (gate:
// clientCapabilities.elicitation, per mode).
func (c *AgentConn) CreateElicitation(ctx context.Context, req *CreateElicitationRequest) (*CreateElicitationResponse, error) {
	return call[CreateElicitationResponse](ctx, c.rpc, MethodCreateElicitation, req)
}

// CompleteElicitation tells the client that a URL elicitation's page is done with.
func (c *AgentConn) CompleteElicitation(ctx context.Context, n *CompleteElicitationNotification) error {
	return c.rpc.Notify(ctx, MethodCompleteElicitation, n)
}

// CallExtension sends an extension request and decodes its result into result.
func (c *AgentConn) CallExtension(ctx context.Context, method string, params, result any) error {
	return c.rpc.Call(ctx, method, params, result)
}

// Done is closed when the connection has ended.
func (c *AgentConn) Done() <-chan struct{} { return c.rpc.Done() }

// Err tells why the connection ended (nil after Close).
func (c *AgentConn) Err() error { return c.rpc.Err() }

// Close ends the connection in order.
func (c *AgentConn) Close() error { return c.rpc.Close() }
