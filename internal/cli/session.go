package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/host"
	"github.com/parley-acp/parley/internal/logfile"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/parley-acp/parley/internal/workspace"
	"github.com/parley-acp/parley/internal/xdg"
)

type sessionOptions struct {
	spec      agentproc.Spec
	agentName string
	roots     *workspace.Roots
	dir       string // the first of roots: the session's cwd
	yolo      bool
	rules     []permission.Rule // configured by the user
	// agentTimeout bounds initialize and every session request but prompt.
	agentTimeout time.Duration
	// sandboxMode and sandboxWritable say how terminal/create's commands are
	// confined (see commandSandbox).
	sandboxMode     string
	sandboxWritable []string
}

// session is one agent process with one ACP session open in the workspace, as run and
// chat use it: the agent is restarted (and the session reopened) when it dies.
type session struct {
	g      *globals
	con    *console
	opts   sessionOptions
	client *host.Client
	agent  *host.Agent
	store  *store.Store
	log    *logfile.File
	roots  *workspace.Roots
	id     acp.SessionID
	// sandboxCleanup removes the confined commands' temporary directory.
	sandboxCleanup func()

	// The session's settings as the agent last reported them; updates arrive on the
	// connection's goroutine, so mu guards them.
	mu                sync.Mutex
	availableCommands []acp.AvailableCommand
	configOptions     []acp.SessionConfigOption
	modes             *acp.SessionModeState
	models            *acp.SessionModelState
	refused           string // the title of what parley refused in this turn, for want of someone to ask
}

func startSession(ctx context.Context, g *globals, con *console, opts sessionOptions) (*session, error) {
	s := &session{g: g, con: con, opts: opts, roots: opts.roots}
	var err error
	if s.store, err = store.Open(store.DefaultPath()); err != nil {
		con.say("parley: permission decisions will not be remembered: %v", err)
	}
	home, _ := os.UserHomeDir()
	policy := &permission.Policy{
		Store: s.store, Agent: opts.agentName, Workspace: opts.dir, Roots: opts.roots.Dirs(), Home: home,
		Yolo: opts.yolo, Rules: opts.rules,
	}
	if con.canAsk() {
		policy.Ask = con.ask
	}
	box, cleanup, err := commandSandbox(opts.sandboxMode, opts.sandboxWritable, "parley-terminal-")
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	s.sandboxCleanup = cleanup
	warnUnconfined(g.logger, opts.sandboxMode)
	s.client = host.NewClient(host.ClientOptions{Policy: policy, Sandbox: box, OnUpdate: s.onUpdate, OnPermission: s.onPermission})
	if s.log, err = openAgentLog(opts.agentName); err != nil {
		g.logger.Warn("the agent's stderr is not logged", "error", err)
	}
	if err := s.launch(ctx); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// launch starts the agent and opens a session.
func (s *session) launch(ctx context.Context) error {
	spec := s.opts.spec
	spec.Dir = s.opts.dir
	var stderr io.Writer // the agent's stderr: its log file, if it could be opened
	if s.log != nil {
		stderr = s.log
	}
	agent, err := host.Launch(ctx, spec, host.LaunchOptions{
		Client:            s.client,
		Capabilities:      s.client.Capabilities(),
		Logger:            s.g.logger,
		Stderr:            stderr,
		InitializeTimeout: s.opts.agentTimeout,
	})
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	s.agent = agent
	return s.open(ctx)
}

// open starts a new session with the running agent.
func (s *session) open(ctx context.Context) error {
	var resp *acp.NewSessionResponse
	err := s.setup(ctx, acp.MethodNewSession, func(ctx context.Context) (err error) {
		resp, err = s.agent.Conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: s.opts.dir, McpServers: []acp.McpServer{}})
		return err
	})
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("opening a session: %w", err)}
	}
	s.id = resp.SessionID
	s.client.AddSession(resp.SessionID, s.roots)
	s.setSettings(resp.Modes, resp.ConfigOptions, resp.Models)
	return nil
}

// setup makes one of the requests that set a session up (new, load, resume, list,
// set_mode, set_model, set_config_option), bounded by --agent-timeout: an agent that
// works answers them quickly, and without a deadline one that never does would hang parley
// without a word.
func (s *session) setup(ctx context.Context, method string, call func(context.Context) error) error {
	callCtx, cancel := context.WithTimeout(ctx, s.opts.agentTimeout)
	defer cancel()
	err := call(callCtx)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("%s did not answer %s within %v: it may be stuck, or still busy starting up (its log: %s); to wait longer, run parley again with --agent-timeout",
			s.opts.agentName, method, s.opts.agentTimeout, s.logName())
	}
	if err != nil {
		return s.agent.Explain(fmt.Errorf("%s: %w", method, err))
	}
	return nil
}

// logName is where the agent's stderr goes, for messages.
func (s *session) logName() string {
	if s.log == nil {
		return "none"
	}
	return s.log.Name()
}

func (s *session) setSettings(modes *acp.SessionModeState, options []acp.SessionConfigOption, models *acp.SessionModelState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modes, s.configOptions, s.models = modes, options, models
}

// onUpdate keeps the session's settings current, then shows the update.
func (s *session) onUpdate(ctx context.Context, n *acp.SessionNotification) {
	u := n.Update
	s.mu.Lock()
	switch {
	case u.AvailableCommandsUpdate != nil:
		s.availableCommands = u.AvailableCommandsUpdate.AvailableCommands
	case u.ConfigOptionUpdate != nil:
		s.configOptions = u.ConfigOptionUpdate.ConfigOptions
	case u.CurrentModeUpdate != nil && s.modes != nil:
		s.modes.CurrentModeID = u.CurrentModeUpdate.CurrentModeID
	}
	s.mu.Unlock()
	s.con.onUpdate(ctx, n)
}

// ensureAlive restarts the agent, with a new session, if it died since the last turn.
func (s *session) ensureAlive(ctx context.Context) error {
	select {
	case <-s.agent.Exited():
	default:
		return nil
	}
	s.con.say("parley: the agent exited (%v); restarting it with a new session", s.agent.Explain(errors.New("gone")))
	s.agent.Close()
	return s.launch(ctx)
}

// reopen starts a new session (/new).
func (s *session) reopen(ctx context.Context) error {
	if err := s.ensureAlive(ctx); err != nil {
		return err
	}
	if err := s.open(ctx); err != nil {
		return err
	}
	s.con.say("(new session %s)", s.id)
	return nil
}

func (s *session) onPermission(req *acp.RequestPermissionRequest, resp *acp.RequestPermissionResponse, err error) {
	s.con.onPermission(req, resp)
	if err != nil {
		s.con.say("parley: %s", toolui.SafeText(err.Error()))
	}
	if !s.con.canAsk() && resp.Outcome.Selected != nil {
		if o, ok := optionByID(req.Options, resp.Outcome.Selected.OptionID); ok && (o.Kind == acp.PermissionOptionKindRejectOnce || o.Kind == acp.PermissionOptionKindRejectAlways) {
			s.con.say("parley: refused %s: there is no terminal to ask (--yolo allows all but critical commands)", oneLineSafe(req.ToolCall.Title))
			s.mu.Lock()
			s.refused = req.ToolCall.Title
			s.mu.Unlock()
		}
	}
}

func optionByID(options []acp.PermissionOption, id acp.PermissionOptionID) (acp.PermissionOption, bool) {
	for _, o := range options {
		if o.OptionID == id {
			return o, true
		}
	}
	return acp.PermissionOption{}, false
}

// turn sends one prompt and shows the turn. ctx ending cancels the turn, and so does the
// output failing (nobody sees the turn any more): that is the turn's error.
func (s *session) turn(ctx context.Context, text string) (acp.StopReason, error) {
	s.mu.Lock()
	s.refused = ""
	s.mu.Unlock()
	s.con.newTurn()
	ctx, cancel := context.WithCancel(ctx)
	var watch sync.WaitGroup
	watch.Go(func() {
		select {
		case <-s.con.outputFailed():
			cancel()
		case <-ctx.Done():
		}
	})
	defer watch.Wait()
	defer cancel() // runs first: it ends the watch
	resp, err := s.agent.Conn.Prompt(ctx, &acp.PromptRequest{SessionID: s.id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if outErr := s.con.outputErr(); outErr != nil {
		return "", outErr
	}
	if ctx.Err() != nil {
		s.con.cancelTurn()
	}
	if err != nil {
		s.con.endTurn("")
		return "", s.agent.Explain(err)
	}
	s.con.endTurn(resp.StopReason)
	return resp.StopReason, nil
}

// prompt is parley run's one turn: its stop reason becomes the exit status.
func (s *session) prompt(ctx context.Context, text string) error {
	stop, err := s.turn(ctx, text)
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{code: exitCancelled, err: err}
		}
		return &exitError{code: exitFailure, err: fmt.Errorf("the turn failed: %w", err)}
	}
	if stop == acp.StopReasonCancelled && ctx.Err() == nil {
		// Nobody pressed Ctrl-C: the agent ended its turn itself, as some do when a
		// permission is refused. That is not the user's cancel (exit 130).
		s.mu.Lock()
		refused := s.refused
		s.mu.Unlock()
		if refused != "" {
			return &exitError{code: exitFailure, err: fmt.Errorf("the agent ended its turn (cancelled) after parley refused %q; run on a terminal to answer, or allow with --yolo", refused)}
		}
		return &exitError{code: exitFailure, err: errors.New("the agent cancelled its turn by itself")}
	}
	return stopError(stop)
}

func stopError(stop acp.StopReason) error {
	switch stop {
	case acp.StopReasonEndTurn:
		return nil
	case acp.StopReasonCancelled:
		return &exitError{code: exitCancelled, err: errors.New("the turn was cancelled")}
	case acp.StopReasonRefusal:
		return &exitError{code: exitRefusal, err: errors.New("the agent refused the prompt")}
	case acp.StopReasonMaxTokens:
		return &exitError{code: exitMaxTokens, err: errors.New("the agent stopped: it reached its token limit")}
	case acp.StopReasonMaxTurnRequests:
		return &exitError{code: exitMaxTurnRequests, err: errors.New("the agent stopped: it reached its limit of model requests for one turn")}
	}
	return &exitError{code: exitFailure, err: fmt.Errorf("the agent stopped for an unknown reason %q", stop)}
}

func (s *session) close() {
	if s.agent != nil {
		s.agent.Close()
	}
	if s.client != nil {
		s.client.Close()
	}
	if s.store != nil {
		s.store.Close()
	}
	if s.log != nil {
		s.log.Close()
	}
	if s.sandboxCleanup != nil {
		s.sandboxCleanup() // after the terminals: their commands are gone
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// agentLogLimit bounds an agent's stderr log; past it the log is rotated (one previous
// file is kept), so an agent writing to its stderr without end costs little disk.
const agentLogLimit = 8 << 20

// openAgentLog opens the file the agent's stderr is appended to.
func openAgentLog(agent string) (*logfile.File, error) {
	name := unsafeName.ReplaceAllString(agent, "_")
	if len(name) > 60 {
		name = name[:60]
	}
	dir := filepath.Join(xdg.StateDir(), "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return logfile.Open(filepath.Join(dir, name+".log"), agentLogLimit)
}
