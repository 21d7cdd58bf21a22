package agent

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/mcpclient"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
)

// Options configure the agent.
type Options struct {
	Provider llm.Provider
	Model    string
	// MaxTurnRequests bounds the model requests of one turn (25 when 0).
	MaxTurnRequests int
	// Context is the most tokens of context the agent uses (--context): Ollama runs the
	// model with a window this large at most, and an OpenAI-compatible server is taken
	// to have one this large. 0: what the server reports (see window.go).
	Context int
	// Vision says the model takes images although the server does not report it
	// (OpenAI-compatible servers mostly do not).
	Vision  bool
	NoThink bool // never ask for reasoning
	Version string
	Logger  *slog.Logger
	// Store keeps sessions, checkpoints and the approvals a user chose to remember for a
	// workspace. Nil keeps nothing: sessions cannot be listed, loaded or resumed, and
	// turns cannot be undone.
	Store *store.Store
	// StoreErr says why the database could not be opened (Store is then nil): the
	// answers remembered for the workspace cannot be read, so nothing is approved
	// without a question (a rejection may be among them).
	StoreErr error
	// Auto says what runs without asking the user; critical commands always ask.
	Auto AutoApprove
	// Changes bound what the record of changes (the checkpoints) keeps.
	Changes changes.Limits
	// Sandbox confines the commands the agent runs; nil runs them unconfined.
	Sandbox Sandbox
	// SensitiveFiles decides which edits are of sensitive files; nil means safety's
	// defaults.
	SensitiveFiles *safety.FileRules

	judge judge // tests only: the default is internal/safety
}

// Serve runs the agent on stream until the client goes away or ctx ends.
func Serve(ctx context.Context, stream io.ReadWriteCloser, opts Options) error {
	if opts.MaxTurnRequests <= 0 {
		opts.MaxTurnRequests = 25
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.judge == nil {
		opts.judge = newSafetyJudge(opts.SensitiveFiles)
	}
	a := &agent{opts: opts, sessions: map[acp.SessionID]*session{}}
	if opts.Store != nil {
		a.changes = changes.NewLog(opts.Store, opts.Changes)
	}
	err := acp.Serve(ctx, stream, func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, &acp.ConnOptions{Logger: opts.Logger})
	a.closeAll()
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	return nil
}

type agent struct {
	opts    Options
	conn    *acp.AgentConn
	changes *changes.Log // the record checkpoints live in; nil without a store

	mu       sync.Mutex
	caps     acp.ClientCapabilities
	info     *llm.ModelInfo // fetched once, at initialize or the first session
	win      *window        // sized with info
	sessions map[acp.SessionID]*session
	callIDs  atomic.Int64
	cal      calibration // token estimates against the server's counts (one model)
}

// session is one conversation: its workspace, history and MCP servers. turnMu holds a
// turn at a time.
type session struct {
	id       acp.SessionID
	roots    *workspace.Roots
	tools    *tools.Session
	mcp      map[string]mcpTool
	clients  []*mcp.ClientSession
	approver *approver
	ckpts    *checkpoints // nil without a store

	turnMu sync.Mutex // one turn at a time; it guards what follows
	conv   conversation
	title  string // the first prompt, once there was one
}

func (a *agent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = req.ClientCapabilities
	a.mu.Unlock()
	// Whether prompts may carry images depends on the model; a server that is not up
	// yet is no reason to fail here (session/new says what is wrong), only to offer none.
	infoCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	info, err := a.modelInfo(infoCtx)
	cancel()
	vision := err == nil && (info.Vision || a.opts.Vision)
	sessions := acp.SessionCapabilities{Close: &acp.SessionCloseCapabilities{}}
	kept := a.opts.Store != nil
	if kept {
		sessions.List = &acp.SessionListCapabilities{}
		sessions.Resume = &acp.SessionResumeCapabilities{}
	}
	return &acp.InitializeResponse{
		ProtocolVersion: acp.NegotiateVersion(req.ProtocolVersion),
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:         kept,
			PromptCapabilities:  acp.PromptCapabilities{EmbeddedContext: true, Image: vision},
			MCPCapabilities:     acp.MCPCapabilities{HTTP: true},
			SessionCapabilities: sessions,
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
		return llm.ModelInfo{}, acp.Errorf(acp.CodeInternalError, "%v", err)
	}
	a.info = &info
	a.win = newWindow(a.opts.Context, info, llm.SetsWindow(a.opts.Provider))
	if a.win.assumed {
		a.opts.Logger.Warn("the server does not say how large the model's context window is; assuming a size (--context sets it)", "model", a.opts.Model, "tokens", a.win.Size())
	} else if a.opts.Context > 0 && info.ContextLength > 0 && a.opts.Context > info.ContextLength {
		a.opts.Logger.Warn("--context is larger than the model's window; using the model's", "model", a.opts.Model, "tokens", info.ContextLength)
	}
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
	id := acp.SessionID("parley-" + strings.ToLower(rand.Text()))
	if a.opts.Store != nil {
		if err := a.opts.Store.SaveSession(ctx, storedSession(id, roots, "")); err != nil {
			return nil, acp.Errorf(acp.CodeInternalError, "%v", err)
		}
	}
	s := a.openSession(ctx, id, roots, req.MCPServers, nil, "")
	a.announce(ctx, s)
	return &acp.NewSessionResponse{SessionID: id}, nil
}

// openSession makes a session live in this process, with history from an earlier run,
// and registers it.
func (a *agent) openSession(ctx context.Context, id acp.SessionID, roots *workspace.Roots, servers []acp.MCPServer, history []llm.Message, title string) *session {
	a.mu.Lock()
	caps := a.caps
	a.mu.Unlock()
	env := newClientEnv(a.conn, id, caps, a.opts.Sandbox, roots)
	s := &session{id: id, roots: roots, mcp: map[string]mcpTool{}, conv: conversation{messages: history, saved: len(history)}, title: title}
	s.tools = tools.NewSession(env, roots)
	s.approver = &approver{
		ask:       a.conn.RequestPermission,
		session:   id,
		auto:      a.opts.Auto,
		store:     a.opts.Store,
		storeErr:  a.opts.StoreErr,
		workspace: roots.Dirs()[0],
		logger:    a.opts.Logger,
	}
	if a.opts.Store != nil {
		s.ckpts = a.newCheckpoints(ctx, id, roots, env)
	}
	a.connectMCP(ctx, s, servers)
	a.mu.Lock()
	old := a.sessions[id]
	a.sessions[id] = s
	a.mu.Unlock()
	if old != nil {
		old.close() // loaded again: the new one replaces it
	}
	return s
}

// announce tells the client the session's slash commands, once the response that
// introduces the session has gone out.
func (a *agent) announce(ctx context.Context, s *session) {
	acp.AfterResponse(ctx, func(ctx context.Context) {
		a.conn.Update(ctx, s.id, acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: availableCommands(s.ckpts != nil)}})
	})
}

// connectMCP connects the session's MCP servers and offers their tools as
// "<server>__<tool>". A server that fails is logged and left out: the session still works.
func (a *agent) connectMCP(ctx context.Context, s *session, servers []acp.MCPServer) {
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

func mcpSpec(srv acp.MCPServer) (mcpclient.Server, bool) {
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
	turnCtx, cancel := context.WithCancel(ctx) // ctx ends on session/cancel and session/close
	defer cancel()

	rec := &transcript{}
	for _, b := range req.Prompt {
		rec.record(acp.UserMessageChunk(b))
	}
	send := func(u acp.SessionUpdate) {
		rec.record(u)
		if err := a.conn.Update(ctx, s.id, u); err != nil {
			cancel() // nothing reaches the client: the turn ends here, not after the model's next replies
		}
	}
	text := acp.PromptText(req.Prompt)
	if s.title == "" {
		s.title = oneLine(text, 80)
	}
	defer a.persist(context.WithoutCancel(ctx), s, rec)
	if cmd, ok := parseCommand(text); ok {
		return &acp.PromptResponse{StopReason: a.runCommand(turnCtx, s, cmd, send)}, nil
	}
	images, refusal := a.promptImages(turnCtx, req.Prompt)
	if refusal != "" {
		send(acp.AgentMessageChunk(acp.TextBlock(refusal)))
		return &acp.PromptResponse{StopReason: acp.StopReasonRefusal}, nil
	}
	usage := &turnUsage{}
	stop, err := a.modelTurn(turnCtx, s, text, images, usage, send, cancel)
	if err != nil {
		if turnCtx.Err() != nil {
			return &acp.PromptResponse{StopReason: acp.StopReasonCancelled, Usage: usage.acp()}, nil
		}
		return nil, acp.Errorf(acp.CodeInternalError, "the model failed: %v", err)
	}
	return &acp.PromptResponse{StopReason: stop, Usage: usage.acp()}, nil
}

// promptImages are the prompt's images for the model, or a refusal to show when the
// model cannot see them.
func (a *agent) promptImages(ctx context.Context, prompt []acp.ContentBlock) ([]llm.Image, string) {
	var images []llm.Image
	for _, b := range prompt {
		if b.Image != nil {
			images = append(images, llm.Image{MIMEType: b.Image.MIMEType, Data: b.Image.Data})
		}
	}
	if len(images) == 0 {
		return nil, ""
	}
	info, err := a.modelInfo(ctx)
	if err == nil && (info.Vision || a.opts.Vision) {
		return images, ""
	}
	return nil, fmt.Sprintf("The prompt has %d image(s), but the model %s does not take images (its server does not report vision), so nothing was sent to it. Use a model that sees images (Ollama lists the capability \"vision\" in `ollama show`; for an OpenAI-compatible server that does not report it, start parley agent with --vision), or describe the image in words.", len(images), a.opts.Model)
}

// modelTurn runs one turn of the model on text: the executor's loop, its tool calls
// guarded and their writes kept in the turn's checkpoint.
func (a *agent) modelTurn(ctx context.Context, s *session, text string, images []llm.Image, usage *turnUsage, send func(acp.SessionUpdate), cancel func()) (acp.StopReason, error) {
	info, err := a.modelInfo(ctx)
	if err != nil {
		return "", err
	}
	turn := s.ckpts.begin(ctx, text)
	defer turn.end(context.WithoutCancel(ctx))
	runner := &toolRunner{registry: tools.DefaultRegistry(), session: s.tools, mcp: s.mcp, send: send, ids: &a.callIDs}
	runner.guard = func(c pendingCall) *callGuard {
		return &callGuard{call: c, approver: s.approver, judge: a.opts.judge, roots: s.roots, turn: turn, cancel: cancel}
	}
	llmTools := offeredTools(runner.llmTools(), a.window().Size())
	ex := &executor{
		model:     a.opts.Model,
		native:    info.Tools,
		think:     info.Thinking && !a.opts.NoThink,
		maxTurns:  a.opts.MaxTurnRequests,
		system:    systemPrompt(s.roots.Dirs(), llmTools, info.Tools),
		tools:     llmTools,
		streamer:  &streamer{provider: a.opts.Provider, known: runner.known, send: send},
		runner:    runner,
		compactor: a.compactor(send, usage),
		send:      send,
		conv:      &s.conv,
		win:       a.window(),
		cal:       &a.cal,
		usage:     usage,
	}
	return ex.run(ctx, text, images)
}

// smallWindow is the window size up to which the model is offered fewer tools: each
// definition takes room in every request, and get_diagnostics does nothing that
// run_terminal_command cannot.
const smallWindow = 8192

// offeredTools are the tools the model is offered with a window of size tokens.
func offeredTools(all []llm.Tool, size int) []llm.Tool {
	if size > smallWindow {
		return all
	}
	out := make([]llm.Tool, 0, len(all))
	for _, t := range all {
		if t.Name != "get_diagnostics" {
			out = append(out, t)
		}
	}
	return out
}

func (a *agent) compactor(send func(acp.SessionUpdate), usage *turnUsage) *compactor {
	return &compactor{provider: a.opts.Provider, model: a.opts.Model, win: a.window(), cal: &a.cal, send: send, ids: &a.callIDs, usage: usage}
}

// window is the model's context window; nil before the model's info was fetched.
func (a *agent) window() *window {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.win
}

func (a *agent) CloseSession(ctx context.Context, req *acp.CloseSessionRequest) (*acp.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[req.SessionID]
	delete(a.sessions, req.SessionID)
	a.mu.Unlock()
	if s != nil {
		s.close()
		return &acp.CloseSessionResponse{}, nil
	}
	if _, ok, _ := a.stored(ctx, req.SessionID); ok {
		return &acp.CloseSessionResponse{}, nil // kept, but not open in this process: nothing to free
	}
	return nil, acp.ErrSessionNotFound(req.SessionID)
}

func (s *session) close() {
	for _, c := range s.clients {
		c.Close()
	}
	s.ckpts.close()
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
