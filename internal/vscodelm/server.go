package vscodelm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/mcpbridge"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/toolui"
)

// Codes the client relies on: -32800 with "cancelled" in the message becomes VS Code's
// CancellationError; -32000 is an agent or session failure, shown to the user.
const codeAgentFailure = -32000

// Options configure the server.
type Options struct {
	Logger  *slog.Logger
	Version string
	// IdleTimeout closes a conversation's session after this long without activity
	// (30 minutes when 0); an agent process left without sessions ends.
	IdleTimeout time.Duration
	// MaxConversations bounds the conversations kept; past it the least recently used
	// idle one is closed (256 when 0).
	MaxConversations int
	// AgentTimeout bounds every call to an agent other than a turn: starting it
	// (initialize), session/new and session/close (60 seconds when 0). When it passes,
	// the request is answered with an error that says so.
	AgentTimeout time.Duration
	// AgentLog opens the file an agent's stderr is appended to, by the agent's name; nil
	// drops the stderr (its last lines still explain a failure).
	AgentLog func(name string) (io.WriteCloser, error)
	// Spares bounds the sessions opened ahead of time, one per agent, for agents the user
	// configured (when the models are listed) or has used: a new conversation takes one
	// and does not wait for the agent. 0 means 2; negative, none.
	Spares int
	// Sandbox, when set, confines the commands agents run in parley's terminals
	// (terminal/create) to writing in their workspace (Landlock).
	Sandbox *sandbox.Policy
	// Confine, when set, says how each agent process is confined (the agent called
	// name, started by spec, for a conversation in roots); nil leaves it unconfined.
	Confine func(name string, spec agentproc.Spec, roots []string) *sandbox.AgentSpec
	// Store is parley's database: the permission decisions the user asked parley to
	// remember, and the record of changes (with ChangeLimits). Nil, with StoreErr saying
	// why, when it could not be opened: nothing is remembered or recorded then.
	Store        *store.Store
	StoreErr     error
	ChangeLimits changes.Limits
	// Rules are the user's permission rules (config.json's "permissions").
	Rules []permission.Rule
	// Config reads the user's configuration file, whose agent_servers are offered as
	// models beside the built-in and installed agents. It is called each time the models
	// are listed or a sign-in names an agent, so that an agent added to the file is
	// offered without a restart; the library never reads the file itself. Nil means no
	// file: only the built-in and installed agents.
	Config func() (*config.File, error)
}

// Server is the backend of the VS Code extension's LanguageModelChatProvider. Its
// goroutine is the router (router.go); each conversation has a worker (worker.go).
type Server struct {
	logger   *slog.Logger
	conn     *jsonrpc2.Conn
	pool     *pool
	bridge   *mcpbridge.Bridge
	cwd      string
	idle     time.Duration
	max      int
	spares   int
	store    *store.Store
	storeErr error
	changes  *changes.Log // nil: changes are not recorded
	rules    []permission.Rule
	config   func() (*config.File, error) // nil: no configuration file

	inbox      chan routerMsg // the router's messages; bounded, posters wait
	stopped    chan struct{}  // closed when the router takes no more messages
	quit       chan struct{}  // closed to stop the workers
	goroutines sync.WaitGroup

	router *router // runs on Serve's goroutine
}

// Serve runs the backend on stream (the process's stdin and stdout) until the client
// closes it or ctx ends. When ctx ends (a signal), the agents are stopped first, then
// the open requests answered, then the stream closed.
func Serve(ctx context.Context, stream io.ReadWriteCloser, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 30 * time.Minute
	}
	if opts.MaxConversations <= 0 {
		opts.MaxConversations = 256
	}
	if opts.AgentTimeout <= 0 {
		opts.AgentTimeout = 60 * time.Second
	}
	if opts.Spares == 0 {
		opts.Spares = 2
	}
	bridge, err := mcpbridge.New(mcpbridge.Options{Logger: opts.Logger})
	if err != nil {
		return fmt.Errorf("starting the tool bridge: %w", err)
	}
	cwd, _ := os.Getwd()
	s := &Server{
		logger: opts.Logger, bridge: bridge, cwd: cwd, idle: opts.IdleTimeout, max: opts.MaxConversations, spares: opts.Spares,
		pool:  newPool(opts.Logger, opts.AgentTimeout, opts.AgentLog, opts.Sandbox, confineWithBridge(opts.Confine, bridge.Port())),
		store: opts.Store, storeErr: opts.StoreErr, rules: opts.Rules, config: opts.Config,
		inbox: make(chan routerMsg, 256), stopped: make(chan struct{}), quit: make(chan struct{}),
	}
	if opts.Store != nil && !opts.ChangeLimits.Off {
		s.changes = changes.NewLog(opts.Store, opts.ChangeLimits)
	}
	s.router = newRouter(s)
	jsonrpc2.NewConn(stream, jsonrpc2.BinderFunc(func(conn *jsonrpc2.Conn) jsonrpc2.Options {
		s.conn = conn
		return jsonrpc2.Options{Handler: s, Logger: opts.Logger}
	}))
	signalled := s.router.run(ctx)

	close(s.stopped)
	close(s.quit) // workers answer their requests -32800, close their conversations and end
	s.goroutines.Wait()
	s.pool.close()
	bridge.Close()
	if signalled {
		s.closeConn()
	}
	if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// closeConn closes the client connection, which answers and flushes what is open. The
// reader may sit in a read of a stdin that cannot be interrupted (a terminal): the wait
// for it is bounded, as the process is about to exit anyway.
func (s *Server) closeConn() {
	done := make(chan struct{})
	go func() {
		s.conn.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		s.logger.Debug("stdin could not be interrupted; leaving it")
	}
}

// post hands the router a message; false when the router has stopped or ctx ended.
func (s *Server) post(ctx context.Context, msg routerMsg) bool {
	select {
	case s.inbox <- msg:
		return true
	case <-s.stopped:
	case <-ctx.Done():
	}
	return false
}

// Handle answers the client.
func (s *Server) Handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "lm/provideLanguageModelChatResponse":
		return s.chat(ctx, req)
	case "lm/cancel":
		var p CancelParams
		if err := jsonrpc2.DecodeParams(req, &p); err == nil {
			s.post(ctx, routeCancel{id: idKey(p.RequestID)})
		}
		return nil, nil
	case "lm/provideTokenCount":
		var p TokenCountParams
		if err := jsonrpc2.DecodeParams(req, &p); err != nil {
			return nil, err
		}
		return CountTokens(p.Text), nil
	case "lm/provideLanguageModelChatInformation":
		var p ModelInfoParams
		if len(req.Params) > 0 {
			if err := jsonrpc2.DecodeParams(req, &p); err != nil {
				return nil, err
			}
		}
		if err := checkWorkspace(p.Cwd, p.AdditionalDirectories); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
		}
		return s.models(ctx, p), nil
	case "lm/signedIn":
		if err := s.signedIn(req); err != nil {
			if req.IsCall() {
				return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
			}
			s.logger.Warn("lm/signedIn: ignored", "error", err)
		}
		return nil, nil
	case "lm/prepareSession":
		if err := s.prepareSession(ctx, req); err != nil {
			if req.IsCall() {
				return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
			}
			s.logger.Warn("lm/prepareSession: ignored", "error", err)
		}
		return nil, nil
	}
	if h := requestHandlers[req.Method]; h != nil {
		return h(s, ctx, req)
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

// prepareSession hands the router the agent of the model the user chose last in the
// workspace, to get a spare session ready for it.
func (s *Server) prepareSession(ctx context.Context, req *jsonrpc2.Request) error {
	var p PrepareSessionParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return fmt.Errorf("params: %v: %w", err, ErrInvalidParams)
	}
	if err := checkWorkspace(p.Cwd, p.AdditionalDirectories); err != nil {
		return err
	}
	def, err := ParseAgent(p.Agent)
	if err != nil {
		return err
	}
	s.post(ctx, routePrepare{def: def, cwd: p.Cwd, dirs: p.AdditionalDirectories})
	return nil
}

// userConfig is the user's configuration as Options.Config reads it now: never nil, empty
// when there is none or it cannot be read (and the error says why).
func (s *Server) userConfig() (*config.File, error) {
	if s.config == nil {
		return &config.File{}, nil
	}
	cfg, err := s.config()
	if err != nil || cfg == nil {
		return &config.File{}, err
	}
	return cfg, nil
}

// models is one model per agent the user can choose: the built-in ones that can run here,
// and every agent of the configuration file's agent_servers and the client's own
// (params.agentServers, which win over the file's), each with the definition to send back
// as params.agent. A configured agent whose command is missing is listed with the reason
// as its detail (hiding it would leave the user guessing); the others get a spare session.
func (s *Server) models(ctx context.Context, p ModelInfoParams) ModelInfoResult {
	res := ModelInfoResult{Models: []ModelInfo{}, AgentActionRefusals: true}
	cfg, err := s.userConfig()
	if err != nil {
		s.logger.Warn("reading the agents", "error", err)
	}
	if cfg.AgentServers == nil {
		cfg.AgentServers = map[string]config.AgentServer{}
	}
	for name, server := range p.AgentServers {
		cfg.AgentServers[name] = server
	}
	listed := routeListed{cwd: p.Cwd, dirs: p.AdditionalDirectories}
	for _, a := range catalog.New(cfg).All() {
		if a.NotRunnable != "" && a.Source == "built-in" {
			continue
		}
		display := a.Name
		if d := builtinNames[a.Name]; d != "" && a.Source == "built-in" {
			display = d
		}
		env := []map[string]string{}
		for _, kv := range a.Spec.Env {
			name, value, _ := strings.Cut(kv, "=")
			env = append(env, map[string]string{"name": name, "value": value})
		}
		agent, _ := json.Marshal(map[string]any{"id": a.Name, "name": display, "command": a.Spec.Command, "args": append([]string{}, a.Spec.Args...), "env": env})
		detail := a.Source
		if _, ok := p.AgentServers[a.Name]; ok {
			detail = "from the parley.agentServers setting"
		}
		if a.NotRunnable != "" {
			detail = a.NotRunnable
		}
		res.Models = append(res.Models, ModelInfo{
			// The picker shows the name and detail (a settings name, an agent's reason it
			// cannot run): made visible, as every front-end shows such text.
			ID: a.Name, Name: toolui.SafeText(display) + " (parley)", Family: "parley", Version: "1", Detail: toolui.SafeText(detail),
			MaxInputTokens: 200000, MaxOutputTokens: 100000, Capabilities: ModelCapabilities{ToolCalling: true},
			Agent: agent,
		})
		if a.Source != "built-in" && a.NotRunnable == "" {
			if def, err := ParseAgent(agent); err == nil {
				listed.configured = append(listed.configured, def)
			}
		}
	}
	s.post(ctx, listed)
	return res
}

// builtinNames are the built-in agents' names as the model picker shows them.
var builtinNames = map[string]string{"eliza": "Eliza", "parley": "parley agent", "codex": "Codex", "claude": "Claude", "gemini": "Gemini"}

// chatRequest is one lm/provideLanguageModelChatResponse waiting for its answer. The
// handler creates it; the router fills in the match before it hands it to the worker,
// and nobody changes it after that. Only answered is shared, through finish.
type chatRequest struct {
	id     json.RawMessage
	key    string // the id's compact JSON text
	params *ChatRequestParams
	def    AgentDef
	tools  []ToolDefinition // the bridged ones
	action string           // the agent-action tool offered, "" for none

	conv    string    // set by the router
	new     []Message // what the agent has not seen
	context []Message // the request before new

	answered chan error // receives the outcome once: nil = complete
	once     sync.Once
}

// finish answers the request (once): nil completes it, else the error.
func (r *chatRequest) finish(err error) {
	r.once.Do(func() { r.answered <- err })
}

func (s *Server) chat(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p ChatRequestParams
	if err := jsonrpc2.DecodeParams(req, &p); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
	}
	def, err := ParseAgent(p.Agent)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
	}
	if p.Cwd == "" {
		p.Cwd = s.cwd
	}
	r := &chatRequest{id: json.RawMessage(req.ID.String()), params: &p, def: def, answered: make(chan error, 1)}
	r.key = idKey(r.id)
	r.tools, r.action = splitTools(p.Tools())

	var answer error
	if !s.post(ctx, routeChat{req: r}) {
		answer = errCancelled
	} else {
		select {
		case answer = <-r.answered:
		case <-ctx.Done():
			answer = errCancelled
			s.post(context.Background(), routeCancel{id: r.key})
		case <-s.stopped:
			select {
			case answer = <-r.answered:
			case <-s.quit:
				answer = errCancelled
			}
		}
	}
	s.post(context.Background(), routeAnswered{id: r.key})
	if answer != nil {
		return nil, answer
	}
	s.conn.Notify(context.Background(), "lm/responseComplete", ResponseCompleteParams{RequestID: r.id})
	return struct{}{}, nil
}

// send streams a part of the answer to a request.
func (s *Server) send(r *chatRequest, part ContentPart) {
	s.conn.Notify(context.Background(), "lm/responsePart", ResponsePartParams{RequestID: r.id, Part: part})
}

// notify sends a notification about a request (wire_features.go).
func (s *Server) notify(r *chatRequest, method string, params any) {
	s.conn.Notify(context.Background(), method, params)
}

func idKey(raw json.RawMessage) string {
	if b, err := json.Compact(raw); err == nil {
		return string(b)
	}
	return string(raw)
}

// Agent-action tool names: parley's, and Symposium's for existing clients.
var actionTools = []string{"parley-agent-action", "symposium-agent-action"}

// splitTools separates the agent-action tool from the tools bridged to the agent.
func splitTools(tools []ToolDefinition) (bridged []ToolDefinition, action string) {
	for _, t := range tools {
		switch t.Name {
		case actionTools[0]:
			action = t.Name
		case actionTools[1]:
			if action == "" {
				action = t.Name
			}
		default:
			bridged = append(bridged, t)
		}
	}
	return bridged, action
}
