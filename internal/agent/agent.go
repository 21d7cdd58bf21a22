package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/mcpclient"
	"github.com/parley-acp/parley/internal/workspace"
)

// Options configure the agent.
type Options struct {
	Provider llm.Provider
	Model    string
	// MaxTurnRequests bounds the model requests of one turn (25 when 0).
	MaxTurnRequests int
	NumCtx          int  // Ollama's context size; 0 = the server's default
	NoThink         bool // never ask for reasoning
	Version         string
	Logger          *slog.Logger
	// Gate decides each tool call; nil allows all (approvals come with the next issue).
	Gate Gate
}

// Serve runs the agent on stream until the client goes away or ctx ends.
func Serve(ctx context.Context, stream io.ReadWriteCloser, opts Options) error {
	if opts.MaxTurnRequests <= 0 {
		opts.MaxTurnRequests = 25
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Gate == nil {
		opts.Gate = allowAll{}
	}
	a := &agent{opts: opts, sessions: map[acp.SessionID]*session{}}
	acp.NewAgentConn(stream, func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, &acp.ConnOptions{Logger: opts.Logger})
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
		a.conn.Close()
	}
	a.closeAll()
	if err := a.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("agent: %w", err)
	}
	return nil
}

type agent struct {
	opts Options
	conn *acp.AgentConn

	mu       sync.Mutex
	caps     acp.ClientCapabilities
	info     *llm.ModelInfo // fetched once, at the first session
	sessions map[acp.SessionID]*session
	next     int
	callIDs  atomic.Int64
}

// session is one conversation: its workspace, history and MCP servers. turnMu holds a
// turn at a time.
type session struct {
	id      acp.SessionID
	roots   *workspace.Roots
	tools   *tools.Session
	mcp     map[string]mcpTool
	clients []*mcp.ClientSession
	history []llm.Message

	turnMu sync.Mutex
	cancel atomic.Pointer[context.CancelFunc]
}

func (a *agent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = req.ClientCapabilities
	a.mu.Unlock()
	return &acp.InitializeResponse{
		ProtocolVersion: acp.NegotiateVersion(req.ProtocolVersion),
		AgentCapabilities: acp.AgentCapabilities{
			PromptCapabilities:  acp.PromptCapabilities{EmbeddedContext: true},
			McpCapabilities:     acp.McpCapabilities{HTTP: true},
			SessionCapabilities: acp.SessionCapabilities{Close: &acp.SessionCloseCapabilities{}},
		},
		AgentInfo: &acp.Implementation{Name: "parley-agent", Title: "parley (" + a.opts.Model + ")", Version: a.opts.Version},
	}, nil
}

// modelInfo asks the server about the model once: whether it can call tools natively,
// think, and how large its context is. A missing model or server is the user's to fix,
// so the error says how.
func (a *agent) modelInfo(ctx context.Context) (llm.ModelInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.info != nil {
		return *a.info, nil
	}
	info, err := a.opts.Provider.Info(ctx, a.opts.Model)
	if err != nil {
		return llm.ModelInfo{}, jsonrpc2.Errorf(jsonrpc2.CodeInternalError, "%v", err)
	}
	a.info = &info
	return info, nil
}

func (a *agent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	roots, err := workspace.NewRoots(append([]string{req.Cwd}, req.AdditionalDirectories...)...)
	if err != nil {
		return nil, acp.ErrInvalidParams("workspace: %v", err)
	}
	if _, err := a.modelInfo(ctx); err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.next++
	id := acp.SessionID(fmt.Sprintf("parley-%d-%d", time.Now().Unix(), a.next))
	caps := a.caps
	a.mu.Unlock()
	s := &session{id: id, roots: roots, mcp: map[string]mcpTool{}}
	s.tools = tools.NewSession(newClientEnv(a.conn, id, caps, roots), roots)
	a.connectMCP(ctx, s, req.McpServers)
	a.mu.Lock()
	a.sessions[id] = s
	a.mu.Unlock()
	return &acp.NewSessionResponse{SessionID: id}, nil
}

// connectMCP connects the session's MCP servers and offers their tools as
// "<server>__<tool>". A server that fails is logged and left out: the session still works.
func (a *agent) connectMCP(ctx context.Context, s *session, servers []acp.McpServer) {
	for _, srv := range servers {
		spec, ok := mcpSpec(srv)
		if !ok {
			continue // a transport this agent does not speak
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		client, err := mcpclient.Connect(cctx, spec)
		if err == nil {
			var list *mcp.ListToolsResult
			if list, err = client.ListTools(cctx, nil); err == nil {
				s.clients = append(s.clients, client)
				for _, t := range list.Tools {
					s.mcp[spec.Name+"__"+t.Name] = mcpTool{client: client, name: t.Name, tool: t}
				}
			} else {
				client.Close()
			}
		}
		cancel()
		if err != nil {
			a.opts.Logger.Warn("MCP server left out", "server", spec.Name, "error", err)
		}
	}
}

func mcpSpec(srv acp.McpServer) (mcpclient.Server, bool) {
	switch {
	case srv.Stdio != nil:
		s := mcpclient.Server{Name: srv.Stdio.Name, Command: srv.Stdio.Command, Args: srv.Stdio.Args}
		for _, e := range srv.Stdio.Env {
			s.Env = append(s.Env, e.Name+"="+e.Value)
		}
		return s, true
	case srv.HTTP != nil:
		s := mcpclient.Server{Name: srv.HTTP.Name, URL: srv.HTTP.URL, Headers: map[string]string{}}
		for _, h := range srv.HTTP.Headers {
			s.Headers[h.Name] = h.Value
		}
		return s, true
	}
	return mcpclient.Server{}, false
}

func (a *agent) session(id acp.SessionID) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *agent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	s := a.session(req.SessionID)
	if s == nil {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	s.turnMu.Lock()
	defer s.turnMu.Unlock()
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.cancel.Store(&cancel)
	defer s.cancel.Store(nil)

	info, err := a.modelInfo(ctx)
	if err != nil {
		return nil, err
	}
	send := func(u acp.SessionUpdate) {
		if err := a.conn.Update(ctx, s.id, u); err != nil {
			cancel() // nothing reaches the client: the turn ends here, not after the model's next replies
		}
	}
	runner := &toolRunner{registry: tools.DefaultRegistry(), session: s.tools, mcp: s.mcp, gate: a.opts.Gate, send: send, ids: &a.callIDs}
	llmTools := runner.llmTools()
	ex := &executor{
		model:    a.opts.Model,
		native:   info.Tools,
		think:    info.Thinking && !a.opts.NoThink,
		numCtx:   a.opts.NumCtx,
		maxTurns: a.opts.MaxTurnRequests,
		system:   systemPrompt(s.roots.Dirs(), llmTools, info.Tools),
		tools:    llmTools,
		streamer: &streamer{provider: a.opts.Provider, known: runner.known, send: send},
		runner:   runner,
		send:     send,
		history:  &s.history,
		ctxSize:  info.ContextLength,
	}
	if a.opts.NumCtx > 0 {
		ex.ctxSize = a.opts.NumCtx
	}
	stop, err := ex.run(turnCtx, acp.PromptText(req.Prompt))
	if err != nil {
		if turnCtx.Err() != nil {
			return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInternalError, "the model failed: %v", err)
	}
	return &acp.PromptResponse{StopReason: stop}, nil
}

func (a *agent) Cancel(ctx context.Context, req *acp.CancelNotification) error {
	if s := a.session(req.SessionID); s != nil {
		if c := s.cancel.Load(); c != nil {
			(*c)()
		}
	}
	return nil
}

func (a *agent) CloseSession(ctx context.Context, req *acp.CloseSessionRequest) (*acp.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[req.SessionID]
	delete(a.sessions, req.SessionID)
	a.mu.Unlock()
	if s == nil {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	s.close()
	return &acp.CloseSessionResponse{}, nil
}

func (s *session) close() {
	if c := s.cancel.Load(); c != nil {
		(*c)()
	}
	for _, c := range s.clients {
		c.Close()
	}
}

func (a *agent) closeAll() {
	a.mu.Lock()
	sessions := a.sessions
	a.sessions = map[acp.SessionID]*session{}
	a.mu.Unlock()
	for _, s := range sessions {
		s.close()
	}
}
