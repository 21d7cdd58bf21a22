// Package eliza is parley's built-in ACP agent: Weizenbaum's 1966 DOCTOR script behind a
// real ACP agent connection. It needs no model, answers deterministically when asked to,
// and understands test commands (one per prompt line) that exercise every path a bridge
// has to carry: MCP tools, permission requests, tool calls, thoughts, slow and flooding
// streams. See Commands for the list.
package eliza

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parley-acp/parley/acp"
)

// Commands documents the test commands, one per line of a prompt.
const Commands = `  list tools from <server>             list the tools of an MCP server given in session/new
  use tool <server>::<tool> with <json>  call it; replies "OK: <text>" or "ERROR: <message>"
                                       (several such lines run concurrently, reported in order)
  request permission <title>           ask session/request_permission; replies "permission: <kind>"
  tool call <title>                    report a tool call pending → in_progress → completed
  think <text>                         send <text> as a thought
  slowly <text>                        one chunk per word, 20 ms apart (honours cancel)
  flood <n>                            n short chunks as fast as the connection takes them
  recall                               say every prompt of the session, this one included
  anything else                        the DOCTOR answers`

// Options configure the agent.
type Options struct {
	// Deterministic makes every fresh session answer the same inputs identically.
	Deterministic bool
	// StdioMCPOnly leaves out mcpCapabilities.http, so clients must give stdio MCP
	// servers (to test the paths that need them).
	StdioMCPOnly bool
	// Version is reported in agentInfo.
	Version string
	Logger  *slog.Logger
	// SessionDir, when set, keeps each session's conversation there (carry.go), so
	// that a later process loads, resumes or forks it.
	SessionDir string
	// NoReopen offers none of session/load, session/resume and session/fork; NoResume
	// leaves out session/resume only (as gemini-cli does).
	NoReopen, NoResume bool
}

// Serve runs the agent on stream until the client goes away or ctx ends.
func Serve(ctx context.Context, stream io.ReadWriteCloser, opts Options) error {
	a := newAgent(opts)
	err := acp.Serve(ctx, stream, func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, &acp.ConnOptions{Logger: a.logger})
	a.closeAll()
	if err != nil {
		return fmt.Errorf("eliza: %w", err)
	}
	return nil
}

// agent implements acp.Agent. Its session table is guarded by mu; each session's own
// state is guarded by that session's lock (one turn at a time per session).
type agent struct {
	opts   Options
	logger *slog.Logger
	conn   *acp.AgentConn

	mu       sync.Mutex
	sessions map[acp.SessionID]*session
	next     int
	// client is what the client advertised in initialize. Not under mu: closeAll holds mu
	// while the connection ends, and an initialize read just before stdin closed must
	// still be answered.
	client atomic.Pointer[acp.ClientCapabilities]
}

func newAgent(opts Options) *agent {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &agent{opts: opts, logger: opts.Logger, sessions: map[acp.SessionID]*session{}}
}

func (a *agent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	caps := req.ClientCapabilities
	a.client.Store(&caps)
	agentCaps := acp.AgentCapabilities{
		LoadSession:        true,
		PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
		MCPCapabilities:    acp.MCPCapabilities{HTTP: !a.opts.StdioMCPOnly},
		SessionCapabilities: acp.SessionCapabilities{Close: &acp.SessionCloseCapabilities{},
			Resume: &acp.SessionResumeCapabilities{}, Fork: &acp.SessionForkCapabilities{}},
	}
	if a.opts.NoResume {
		agentCaps.SessionCapabilities.Resume = nil
	}
	if a.opts.NoReopen {
		agentCaps.LoadSession = false
		agentCaps.SessionCapabilities.Resume, agentCaps.SessionCapabilities.Fork = nil, nil
	}
	return &acp.InitializeResponse{
		ProtocolVersion:   acp.NegotiateVersion(req.ProtocolVersion),
		AgentCapabilities: agentCaps,
		AgentInfo:         &acp.Implementation{Name: "parley-eliza", Title: "Eliza (DOCTOR)", Version: a.opts.Version},
		AuthMethods:       []acp.AuthMethod{},
	}, nil
}

func (a *agent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	if err := checkCwd(req.Cwd); err != nil {
		return nil, err
	}
	a.mu.Lock()
	id := a.newID()
	s := newSession(id, req.Cwd, req.MCPServers, NewTherapist(TherapistOptions{Deterministic: a.opts.Deterministic}))
	a.sessions[id] = s
	a.mu.Unlock()
	acp.AfterResponse(ctx, func(ctx context.Context) {
		// Setup updates go out after the response that introduces the session id.
		a.conn.Update(ctx, id, acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: availableCommands()}})
	})
	return &acp.NewSessionResponse{SessionID: id}, nil
}

func checkCwd(cwd string) error {
	if cwd == "" || !strings.HasPrefix(cwd, "/") && !(len(cwd) > 2 && cwd[1] == ':') {
		return acp.ErrInvalidParams("cwd must be an absolute path, got %q", cwd)
	}
	return nil
}

func availableCommands() []acp.AvailableCommand {
	return []acp.AvailableCommand{
		{Name: "flood", Description: "send n short chunks as fast as possible", Input: hint("n")},
		{Name: "slowly", Description: "stream the text one word every 20 ms", Input: hint("text")},
		{Name: "think", Description: "send the text as a thought", Input: hint("text")},
	}
}

func hint(h string) *acp.AvailableCommandInput {
	return &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: h}}
}

// LoadSession reopens a session of this process and replays its conversation.
func (a *agent) LoadSession(ctx context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	if a.opts.NoReopen {
		return nil, acp.ErrMethodNotFound
	}
	s, err := a.reopenIn(req.SessionID, req.Cwd, req.MCPServers)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	for _, t := range s.history {
		a.conn.Update(ctx, s.id, acp.UserMessageChunk(acp.TextBlock(t.user)))
		a.conn.Update(ctx, s.id, acp.AgentMessageChunk(acp.TextBlock(t.agent)))
	}
	return &acp.LoadSessionResponse{}, nil
}

// CloseSession forgets the session (the connection has already cancelled its turn).
func (a *agent) CloseSession(ctx context.Context, req *acp.CloseSessionRequest) (*acp.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[req.SessionID]
	delete(a.sessions, req.SessionID)
	a.mu.Unlock()
	if s == nil {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	s.mu.Lock()
	s.closeMCP()
	s.mu.Unlock()
	return &acp.CloseSessionResponse{}, nil
}

func (a *agent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	s := a.session(req.SessionID)
	if s == nil {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	s.mu.Lock() // one turn at a time per session; a second prompt waits its turn
	defer s.mu.Unlock()
	text := acp.PromptText(req.Prompt)
	t := &turn{agent: a, session: s, ctx: ctx, text: text} // ctx ends on session/cancel
	t.run(text)
	s.history = append(s.history, exchange{user: text, agent: t.said.String()})
	a.save(s)
	if ctx.Err() != nil {
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Usage: t.usage}, nil
}

func (a *agent) session(id acp.SessionID) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *agent) closeAll() {
	a.mu.Lock()
	sessions := a.sessions
	a.sessions = map[acp.SessionID]*session{}
	a.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		s.closeMCP()
		s.mu.Unlock()
	}
}
