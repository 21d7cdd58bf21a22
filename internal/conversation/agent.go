package conversation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/host"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/parley-acp/parley/internal/workspace"
)

// AgentOptions say how to start an agent server.
type AgentOptions struct {
	// Name is the agent as the user chose it (an --agent name, or the command line): it
	// names the agent in messages, and its permission decisions are kept under it.
	Name string
	Spec agentproc.Spec
	// Stderr receives the agent's stderr (its log file); LogName is that file's name, for
	// messages ("" when it is not logged).
	Stderr  io.Writer
	LogName string
	// Timeout bounds initialize and every request to the agent but session/prompt: an
	// agent that works answers them quickly, and one that never does must not hang
	// parley without a word.
	Timeout time.Duration
	// Start says what starting the agent involves (a download); see progress.go.
	Start StartOptions
	// Sandbox, when set, confines every terminal/create command to writing inside its
	// session's roots and the sandbox's own directories (Landlock).
	Sandbox *sandbox.Policy
	Logger  *slog.Logger
	// TerminalAuth advertises terminal sign-in (clientCapabilities.auth.terminal, and the
	// older _meta["terminal-auth"]): the agent's command can be run again, in a terminal
	// the user types in, by Conversation.SignIn's RunTerminal or by `parley login`.
	TerminalAuth bool
	// ElicitForms and ElicitURLs advertise the elicitation modes (clientCapabilities
	// .elicitation). A conversation without a person to ask still declines them.
	ElicitForms, ElicitURLs bool
	// Dial, when set, reaches an agent that runs elsewhere instead of starting Spec: the
	// stream it opens (a parley server's WebSocket, internal/remote) is the ACP
	// connection, initialized as a process's would be. Nothing is started here then.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error)
}

// DefaultTimeout is AgentOptions.Timeout when it is not set: agents launched through npx
// may first install themselves.
const DefaultTimeout = agentproc.DefaultInitializeTimeout

// Agent is one agent server process and its ACP connection, shared by the conversations
// opened on it; it is their ACP client (see the package comment). Its methods are safe
// for concurrent use.
type Agent struct {
	opts   AgentOptions
	logger *slog.Logger
	fs     *host.FileSystem
	terms  *host.Terminals

	mu       sync.Mutex
	proc     *agentproc.Server // the running process; nil before the first start
	starting chan struct{}     // closed when the start under way ends; nil when none is
	closed   bool
	sessions map[acp.SessionID]*Conversation

	// deliverMu keeps updates in order while attach releases the held ones.
	deliverMu sync.Mutex
	// held are updates for session ids no conversation has (yet): the early updates of
	// a session being opened, released by attach, and updates for ids parley never
	// opened, which are never shown. At most maxHeld, the oldest dropped first.
	held []*acp.SessionNotification

	// Under mu: sign-in (auth.go) and URL elicitations (elicitation.go).
	authEnv    []string // variables an env var sign-in gave, added at every start
	signingIn  *Conversation
	urlElicits map[acp.ElicitationID]*Conversation
}

// maxHeld bounds the updates held for sessions not attached.
const maxHeld = 1024

// NewAgent returns an Agent that is not started yet: the first conversation on it starts
// it.
func NewAgent(opts AgentOptions) *Agent {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	a := &Agent{opts: opts, logger: opts.Logger, sessions: map[acp.SessionID]*Conversation{}}
	a.fs = &host.FileSystem{RootsFor: a.rootsFor}
	a.terms = host.NewTerminals(a.rootsFor)
	return a
}

// Name is the agent as the user chose it.
func (a *Agent) Name() string { return a.opts.Name }

// capabilities are what parley advertises to the agent: files and terminals, every
// config option type and session update it shows, and the sign-in and elicitation forms
// its owner can carry out.
func (a *Agent) capabilities() acp.ClientCapabilities {
	caps := acp.ClientCapabilities{
		FS:       acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
		Terminal: true,
		Session: &acp.ClientSessionCapabilities{
			ConfigOptions: &acp.SessionConfigOptionsCapabilities{Boolean: &acp.BooleanConfigOptionCapabilities{}},
			Notices:       &acp.NoticeCapabilities{},
			Compaction:    &acp.CompactionCapabilities{},
		},
	}
	if a.opts.TerminalAuth {
		caps.Auth.Terminal = true
		// The marker agents read before terminal sign-in was part of ACP.
		caps.Meta = acp.Meta{"terminal-auth": []byte("true")}
	}
	if a.opts.ElicitForms || a.opts.ElicitURLs {
		caps.Elicitation = &acp.ElicitationCapabilities{}
		if a.opts.ElicitForms {
			caps.Elicitation.Form = &acp.ElicitationFormCapabilities{}
		}
		if a.opts.ElicitURLs {
			caps.Elicitation.URL = &acp.ElicitationURLCapabilities{}
		}
	}
	return caps
}

// running returns the agent process, starting it when it has not started or has died.
// Concurrent callers share one start. restarted reports that a process ran before.
func (a *Agent) running(ctx context.Context) (proc *agentproc.Server, restarted bool, err error) {
	for {
		a.mu.Lock()
		if a.closed {
			a.mu.Unlock()
			return nil, false, errors.New("parley is closing the agent")
		}
		if a.proc != nil && !exited(a.proc) {
			p := a.proc
			a.mu.Unlock()
			return p, false, nil
		}
		if wait := a.starting; wait != nil {
			a.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
		}
		old := a.proc
		done := make(chan struct{})
		a.starting = done
		a.mu.Unlock()

		if old != nil {
			old.Close()
		}
		p, err := a.launch(ctx)
		a.mu.Lock()
		a.starting = nil
		if err == nil {
			if a.closed {
				err = errors.New("parley is closing the agent")
			} else {
				a.proc = p
			}
		}
		a.mu.Unlock()
		close(done)
		if err != nil {
			if p != nil {
				p.Close()
			}
			return nil, false, err
		}
		return p, old != nil, nil
	}
}

func exited(p *agentproc.Server) bool {
	select {
	case <-p.Exited():
		return true
	default:
		return false
	}
}

func (a *Agent) launch(ctx context.Context) (*agentproc.Server, error) {
	return a.startProcess(ctx) // progress.go
}

// call makes a request to the agent that sets a session up (new, load, resume, list,
// set_mode, set_model, set_config_option, close), bounded by the agent timeout.
func (a *Agent) call(ctx context.Context, p *agentproc.Server, method string, do func(context.Context, *acp.ClientConn) error) error {
	callCtx, cancel := context.WithTimeout(ctx, a.opts.Timeout)
	defer cancel()
	err := do(callCtx, p.Conn)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		logName := a.opts.LogName
		if logName == "" {
			logName = "none"
		}
		return fmt.Errorf("%s did not answer %s within %v: it may be stuck, or still busy starting up (its log: %s); to wait longer, run parley again with --agent-timeout",
			a.opts.Name, method, a.opts.Timeout, logName)
	}
	if isAuthRequired(err) {
		return &AuthRequiredError{Agent: a.opts.Name, During: method, Methods: a.methodsOf(p), Err: err}
	}
	if err != nil {
		return p.Explain(fmt.Errorf("%s: %w", method, err))
	}
	return nil
}

// attach makes c the owner of session id, and returns the updates that came for the id
// before (agents send some before their session/new response; the ACP connection passes
// them on when the response comes, before the caller can attach). Later updates go to c.
func (a *Agent) attach(id acp.SessionID, c *Conversation) []*acp.SessionNotification {
	a.deliverMu.Lock()
	defer a.deliverMu.Unlock()
	a.mu.Lock()
	a.sessions[id] = c
	a.mu.Unlock()
	var ready []*acp.SessionNotification
	kept := a.held[:0]
	for _, n := range a.held {
		if n.SessionID == id {
			ready = append(ready, n)
		} else {
			kept = append(kept, n)
		}
	}
	clear(a.held[len(kept):])
	a.held = kept
	return ready
}

// detach forgets session id: its updates are held (and never shown), its requests refused.
func (a *Agent) detach(id acp.SessionID, c *Conversation) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sessions[id] == c {
		delete(a.sessions, id)
	}
}

func (a *Agent) owner(id acp.SessionID) (*Conversation, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.sessions[id]
	if !ok {
		return nil, acp.ErrSessionNotFound(id)
	}
	return c, nil
}

func (a *Agent) rootsFor(id acp.SessionID) (*workspace.Roots, error) {
	c, err := a.owner(id)
	if err != nil {
		return nil, err
	}
	return c.opts.Roots, nil
}

// Close ends the agent process, the terminals its commands run in, and every conversation's
// hold on it. Conversations on it should be closed first.
func (a *Agent) Close() {
	a.mu.Lock()
	a.closed = true
	p, wait := a.proc, a.starting
	a.mu.Unlock()
	if wait != nil {
		<-wait // a start under way sees closed and ends its process itself
	}
	if p != nil {
		p.Close()
	}
	a.terms.Close()
}

// The agent's ACP client: what it asks of parley.

var (
	_ acp.Client     = (*Agent)(nil)
	_ acp.FileSystem = (*Agent)(nil)
	_ acp.Terminals  = (*Agent)(nil)
)

// SessionUpdate hands the update to the conversation that owns the session. One for a
// session no conversation has is held until one attaches it: one for a session parley
// never opened is never shown (it is not the reply to anything the user asked).
//
// The post happens outside deliverMu: the actor may be attaching a session (which takes
// deliverMu) while its inbox is full. Order still holds: updates come from the
// connection's one dispatcher goroutine, and the held updates attach returns are applied
// by the actor before it reads its inbox again.
func (a *Agent) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	a.deliverMu.Lock()
	c, err := a.owner(n.SessionID)
	if err != nil {
		if len(a.held) == maxHeld {
			a.held = append(a.held[:0], a.held[1:]...)
		}
		a.held = append(a.held, n)
		a.deliverMu.Unlock()
		return nil
	}
	a.deliverMu.Unlock()
	c.postUpdate(ctx, n)
	return nil
}

// RequestPermission is decided by the session's conversation (its policy, then its
// views). A request for a session parley never opened is refused with an error: nothing
// is asked, allowed or shown for it.
func (a *Agent) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	c, err := a.owner(req.SessionID)
	if err != nil {
		return nil, err
	}
	return c.requestPermission(ctx, req), nil
}

func (a *Agent) ReadTextFile(ctx context.Context, req *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	return a.fs.ReadTextFile(ctx, req)
}

// WriteTextFile writes through the session's record of changes, when it keeps one: what
// the file held is recorded before the write (changes.go).
func (a *Agent) WriteTextFile(ctx context.Context, req *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	return a.writeTextFile(ctx, req)
}

// CreateTerminal runs the command if the session's policy lets it: the user's rules hold
// for terminal/create whether or not the agent asked first (see
// permission.Policy.DecideTerminal).
func (a *Agent) CreateTerminal(ctx context.Context, req *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error) {
	c, err := a.owner(req.SessionID)
	if err != nil {
		return nil, err
	}
	roots := c.opts.Roots
	dir := roots.Dirs()[0]
	if req.Cwd != "" {
		dir = req.Cwd // confined by Terminals; a relative one is refused there
	}
	if reason, ok := c.decideTerminal(ctx, req.SessionID, append([]string{req.Command}, req.Args...), req.Env, dir); !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%s", reason)
	}
	if a.opts.Sandbox != nil {
		confined := *req
		confined.Command, confined.Args = a.opts.Sandbox.Wrap(roots.Dirs(), req.Command, req.Args)
		req = &confined
	}
	return a.terms.CreateTerminal(ctx, req)
}

func (a *Agent) TerminalOutput(ctx context.Context, req *acp.TerminalOutputRequest) (*acp.TerminalOutputResponse, error) {
	return a.terms.TerminalOutput(ctx, req)
}

func (a *Agent) WaitForTerminalExit(ctx context.Context, req *acp.WaitForTerminalExitRequest) (*acp.WaitForTerminalExitResponse, error) {
	return a.terms.WaitForTerminalExit(ctx, req)
}

func (a *Agent) KillTerminal(ctx context.Context, req *acp.KillTerminalRequest) (*acp.KillTerminalResponse, error) {
	return a.terms.KillTerminal(ctx, req)
}

// ReleaseTerminal forgets the terminal. Its last output goes to the relaying views first
// (TerminalReleased): a command that ended before a view read it is still shown.
func (a *Agent) ReleaseTerminal(ctx context.Context, req *acp.ReleaseTerminalRequest) (*acp.ReleaseTerminalResponse, error) {
	if c, err := a.owner(req.SessionID); err == nil {
		if out, err := a.terms.TerminalOutput(ctx, &acp.TerminalOutputRequest{SessionID: req.SessionID, TerminalID: req.TerminalID}); err == nil {
			c.postCtx(ctx, terminalReleasedMsg{TerminalReleased{ID: req.TerminalID, Output: out}})
		}
	}
	return a.terms.ReleaseTerminal(ctx, req)
}
