package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/lazy"
	"github.com/parley-acp/parley/internal/linechat"
	"github.com/parley-acp/parley/internal/logfile"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
	"github.com/parley-acp/parley/internal/xdg"
)

type sessionOptions struct {
	spec      agentproc.Spec
	agentName string
	// agentCommand and cwdFlag are --agent-command and --cwd as given, for the command
	// lines parley suggests.
	agentCommand, cwdFlag string
	roots                 *workspace.Roots
	dir                   string // the first of roots: the session's cwd
	yolo                  bool
	rules                 []permission.Rule // configured by the user
	// agentTimeout bounds initialize and every session request but prompt.
	agentTimeout time.Duration
	// sandboxMode and sandboxWritable say how terminal/create's commands are
	// confined (see commandSandbox).
	sandboxMode     string
	sandboxWritable []string
	// sandboxRead and sandboxNet are --sandbox-read and --sandbox-net: with the mode,
	// the writable directories and cfg, they say how the agent itself is confined (see
	// confineAgent).
	sandboxRead, sandboxNet []string
	cfg                     *config.File
	// signingIn: the agent is started to sign in (parley login).
	signingIn bool
	// fetch is the package the agent's command downloads before it starts (npx, uvx),
	// if any: a start that downloads it is allowed longer, and says so.
	fetch *catalog.Fetch
	// changeLimits bound the record of what the agent changes (config.json's "changes").
	changeLimits changes.Limits
	// elicit: the person who answers permission questions answers the agent's
	// elicitations too (chat, login); without it they are declined (run).
	elicit bool
	// carried, when set, is how the session carries a kept conversation on (run's
	// --continue, --session, --fork, --from).
	carried *conversation.Carried
	// noKeep: the conversation's transcript is not kept (parley login).
	noKeep bool
	// remote, when set, is parley chat --connect's server: the agent runs there.
	remote *remoteChat
}

// session is what run and chat hold of one conversation: the agent process, the
// conversation on it (internal/conversation does the rest), and the resources they use.
type session struct {
	agent *conversation.Agent
	conv  *conversation.Conversation
	// keeper keeps the conversation's transcript (parley sessions), when the store is open.
	keeper *conversation.Keeper
	store  *store.Store
	log    *logfile.File
	// sandboxCleanup removes the confined commands' temporary directory.
	sandboxCleanup func()
	// remote: the agent is a parley server (chat --connect), whose conversation goes on
	// without this view.
	remote bool
}

// startSession starts the conversation: the agent and its session start in the
// background, and the caller follows them through the conversation's events. interactive
// says a person answers the permission questions.
func startSession(g *globals, con *linechat.Console, opts sessionOptions, interactive bool) (*session, error) {
	if opts.remote != nil {
		return startRemoteSession(g, opts, interactive)
	}
	s := &session{}
	var err, storeErr error
	if s.store, storeErr = store.Open(store.DefaultPath()); storeErr != nil {
		con.Say("parley: remembered permission decisions cannot be read, so none is used and --yolo allows nothing unasked: %v", storeErr)
	}
	home, _ := os.UserHomeDir()
	policy := &permission.Policy{
		Store: s.store, StoreErr: storeErr, Agent: opts.agentName, Workspace: opts.dir, Roots: opts.roots.Dirs(), Home: home,
		Yolo: opts.yolo, Rules: opts.rules,
	}
	box, cleanup, err := commandSandbox(opts.sandboxMode, opts.sandboxWritable, "parley-terminal-")
	if err != nil {
		s.close()
		return nil, &exitError{code: exitUsage, err: err}
	}
	s.sandboxCleanup = cleanup
	warnUnconfined(g.logger, opts.sandboxMode)
	confined, err := confineAgent(confineRequest{
		mode: opts.sandboxMode, name: opts.agentName, spec: opts.spec, roots: opts.roots.Dirs(), cfg: opts.cfg,
		write: opts.sandboxWritable, read: opts.sandboxRead, net: opts.sandboxNet, login: opts.signingIn,
	})
	if err != nil {
		s.close()
		return nil, &exitError{code: exitUsage, err: err}
	}
	if opts.elicit && confined.describe != "" { // chat and login; run says only what does not hold
		con.Say("parley: %s.", confined.describe)
	}
	for _, w := range confined.warnings {
		con.Say("parley: %s.", w)
	}
	opts.spec.Sandbox = confined.spec
	// "Allow while confined" holds only while both the agent and parley's terminals are.
	policy.Confined = confined.spec != nil && box != nil
	s.agent, s.log = newAgent(g, opts, box, interactive && opts.elicit)
	convOpts := conversation.Options{
		Agent: s.agent, Roots: opts.roots, Policy: policy,
		Interactive: interactive, Elicit: interactive && opts.elicit,
	}
	if s.store != nil && !opts.changeLimits.Off {
		// Every turn's changes are recorded (parley changes, parley undo, /undo); the
		// conversation closes the record when it ends.
		rec, err := changes.NewLog(s.store, opts.changeLimits).Conversation(context.Background(), opts.roots, opts.agentName)
		if err != nil {
			con.Say("parley: the agent's changes will not be recorded: %v", err)
		} else {
			convOpts.Changes = rec
			if c := opts.carried; c != nil && c.From.ContinuesRecord && !c.From.SameRecord {
				rec.ContinueFrom(c.From.Agent, c.From.AgentSession)
			}
		}
	}
	var from *conversation.CarryFrom
	if opts.carried != nil {
		convOpts.Carry, from = &opts.carried.Carry, &opts.carried.From
	}
	s.conv = conversation.New(convOpts)
	if s.store != nil && !opts.noKeep {
		s.keeper = conversation.Keep(s.conv, conversation.KeeperOptions{Store: s.store, Agent: opts.agentName, Workspace: opts.dir, Logger: g.logger, From: from, SeedBudget: seedBudget()})
	}
	return s, nil
}

// newAgent makes the agent of opts, its stderr appended to its log (returned, nil when
// it cannot be opened). Every view advertises terminal sign-in (the command it takes is
// `parley login`, or /login in a chat) and form elicitations (a view without a person
// declines them); URL elicitations only where a person may open the page.
func newAgent(g *globals, opts sessionOptions, box *sandbox.Policy, elicitURLs bool) (*conversation.Agent, *logfile.File) {
	log, err := openAgentLog(logName(opts))
	if err != nil {
		g.logger.Warn("the agent's stderr is not logged", "error", err)
	}
	spec := opts.spec
	spec.Dir = opts.dir
	agentOpts := conversation.AgentOptions{
		Name: opts.agentName, Spec: spec, Timeout: opts.agentTimeout, Sandbox: box, Logger: g.logger,
		TerminalAuth: true, ElicitForms: true, ElicitURLs: elicitURLs,
	}
	if opts.fetch.NeedsDownload(opts.dir) {
		agentOpts.Start.Download = opts.fetch.String()
		agentOpts.Start.DownloadTimeout = downloadTimeout()
	}
	if log != nil { // a nil *logfile.File in the interface would not read as "no log"
		agentOpts.Stderr, agentOpts.LogName = log, log.Name()
	}
	return conversation.NewAgent(agentOpts), log
}

// downloadTimeout is $PARLEY_DOWNLOAD_TIMEOUT (a Go duration), or 0 for the default: how
// long the start of an agent that npx or uvx first downloads may take.
func downloadTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("PARLEY_DOWNLOAD_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 0
}

// events is a view's subscription that can take back what a reader took and did not
// handle: waitReady stops at the event that opens the session, and what came behind it
// in the same batch (the agent's commands, a question) is for the view's loop.
type events struct {
	*conversation.Subscription
	back []conversation.Event
}

var readyNow = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Ready is the subscription's, or ready at once while something was put back.
func (e *events) Ready() <-chan struct{} {
	if len(e.back) > 0 {
		return readyNow
	}
	return e.Subscription.Ready()
}

// Take returns what was put back, then what the conversation posted since (nothing
// more without a subscription, as in a test).
func (e *events) Take() []conversation.Event {
	back := e.back
	e.back = nil
	if e.Subscription == nil {
		return back
	}
	return append(back, e.Subscription.Take()...)
}

// waitReady shows the events of the conversation's start until its session is open; the
// events after that one are left for the next Take. showEarly shows the updates the
// agent sends before the session is open (a chat attaching to a server's conversation
// shows its history); a run that carries a conversation on does not print it again.
func waitReady(con *linechat.Console, sub *events, stop <-chan struct{}, showEarly bool) (conversation.Session, error) {
	for {
		batch := sub.Take()
		for i, ev := range batch {
			rest := func() { sub.back = batch[i+1:] }
			switch e := ev.(type) {
			case conversation.Snapshot: // the start may be over before the view came
				switch {
				case e.Ready:
					rest()
					return e.Session, nil
				case e.Failed != nil && !e.Starting:
					return conversation.Session{}, &exitError{code: exitFailure, err: e.Failed}
				}
			case conversation.Ready:
				rest()
				return e.Session, nil
			case conversation.StartFailed:
				if _, ok := errors.AsType[*conversation.AuthRequiredError](e.Err); ok {
					rest()
					return conversation.Session{}, e.Err // the caller offers to sign in, or says how
				}
				return conversation.Session{}, &exitError{code: exitFailure, err: e.Err}
			case conversation.SignInRequired:
				// Shown by the caller, from StartFailed's error.
			case conversation.TurnUpdate:
				// What the agent sent before its session opened: updates before the
				// session/new answer, or the history of a session it loads (which the
				// conversation kept already, and parley run --continue does not print).
				if showEarly {
					con.Show(ev)
				}
			default:
				con.Show(ev)
			}
		}
		select {
		case <-sub.Ready():
		case <-stop:
			return conversation.Session{}, &exitError{code: exitCancelled, err: errors.New("interrupted while the agent was starting")}
		}
	}
}

func (s *session) close() {
	if s.remote && s.agent != nil {
		// The connection ends first: leaving the view must not cancel the server's turn
		// or close its conversation (session/cancel, session/close), which other views
		// may show; with the connection gone, closing the conversation sends nothing.
		s.agent.Close()
	}
	if s.conv != nil {
		s.conv.Close()
	}
	if s.keeper != nil {
		s.keeper.Close() // it writes the last turn, then the store may close
	}
	if s.agent != nil {
		s.agent.Close()
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

// turnError is how parley run reports the end of its one turn: its stop reason becomes
// the exit status. interrupted says the user pressed Ctrl-C.
func turnError(end conversation.TurnEnded, interrupted bool) error {
	if end.Err != nil {
		if interrupted {
			return &exitError{code: exitCancelled, err: end.Err}
		}
		return &exitError{code: exitFailure, err: fmt.Errorf("the turn failed: %w", end.Err)}
	}
	if end.StopReason == acp.StopReasonCancelled && !interrupted {
		// Nobody pressed Ctrl-C: the agent ended its turn itself, as some do when a
		// permission is refused. That is not the user's cancel (exit 130).
		if end.Refused != "" {
			return &exitError{code: exitFailure, err: fmt.Errorf("the agent ended its turn (cancelled) after parley refused %q; run on a terminal to answer, or allow with --yolo", end.Refused)}
		}
		return &exitError{code: exitFailure, err: errors.New("the agent cancelled its turn by itself")}
	}
	if end.Refused != "" && end.StopReason == acp.StopReasonEndTurn {
		return &exitError{code: exitPermissionRefused, err: fmt.Errorf("refused %q without asking anyone (no terminal to ask, a rule, or an earlier \"always\"; --json's permission events say which): answer on a terminal, or allow it with --yolo or a rule", end.Refused)}
	}
	return stopError(end.StopReason)
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

var unsafeName = lazy.Regexp(`[^A-Za-z0-9._-]+`)

// agentLogLimit bounds an agent's stderr log; past it the log is rotated (one previous
// file is kept), so an agent writing to its stderr without end costs little disk.
const agentLogLimit = 8 << 20

// logName is the short name of an agent's log: its name, or for a command line, the
// program's name and a short hash of the whole line (two command lines, two logs).
func logName(opts sessionOptions) string {
	if opts.agentName != opts.spec.String() || opts.spec.Command == "" {
		return opts.agentName
	}
	prog := opts.spec.Command
	if filepath.Base(prog) == "env" { // env VAR=value program: the program names it
		for _, a := range opts.spec.Args {
			if !strings.Contains(a, "=") && !strings.HasPrefix(a, "-") {
				prog = a
				break
			}
		}
	}
	sum := sha256.Sum256([]byte(opts.agentName))
	return "cmd-" + filepath.Base(prog) + "-" + hex.EncodeToString(sum[:4])
}

// shortAgentName names the agent on a screen: its name, or for a command line, its
// program's name.
func shortAgentName(opts sessionOptions) string {
	if opts.agentName != opts.spec.String() || opts.spec.Command == "" {
		return opts.agentName
	}
	prog := opts.spec.Command
	if filepath.Base(prog) == "env" {
		for _, a := range opts.spec.Args {
			if !strings.Contains(a, "=") && !strings.HasPrefix(a, "-") {
				prog = a
				break
			}
		}
	}
	return filepath.Base(prog)
}

// openAgentLog opens the file the agent's stderr is appended to.
func openAgentLog(agent string) (*logfile.File, error) {
	name := unsafeName().ReplaceAllString(agent, "_")
	if len(name) > 60 {
		name = name[:60]
	}
	dir := filepath.Join(xdg.StateDir(), "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return logfile.Open(filepath.Join(dir, name+".log"), agentLogLimit)
}
