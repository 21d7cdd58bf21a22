package acpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
)

// Launcher knows the agents parley can start; the command line provides it (it reads the
// configuration, the agents' log files, the sandbox).
type Launcher interface {
	// AgentOptions say how to start the agent called name for sessions in roots.
	AgentOptions(name string, roots *workspace.Roots) (conversation.AgentOptions, error)
	// Policy is the permission policy of one conversation with the agent in roots. Its
	// Ask must be nil: the conversation asks its views.
	Policy(name string, roots *workspace.Roots) *permission.Policy
	// Agents lists the agents parley knows, for _parley/agents.
	Agents() []AgentEntry
	// Changes is the record of what a conversation of the agent in roots changes; nil
	// when nothing is recorded (the conversation closes it).
	Changes(name string, roots *workspace.Roots) *changes.Record
}

// Options configure a Server.
type Options struct {
	Launcher Launcher
	// DefaultAgent is the agent of a session/new that names none.
	DefaultAgent string
	// Workspace is the directory sessions work in: a session/new's cwd must be inside it
	// (it defaults to it).
	Workspace string
	Logger    *slog.Logger
	// IdleTimeout closes a session nobody has watched for that long while it had no turn
	// running or queued (its agent ends with its last session); 0 keeps sessions until
	// session/close or Close.
	IdleTimeout time.Duration
	// Store, when set, keeps each conversation's transcript (parley sessions; parley run
	// --continue and --session go on with one a page started).
	Store *store.Store
}

// Server serves parley's agents to ACP clients; see the package comment. Its methods are
// safe for concurrent use.
type Server struct {
	opts      Options
	logger    *slog.Logger
	workspace *workspace.Roots

	mu     sync.Mutex
	agents map[agentKey]*sharedAgent
	// retired are agent processes new sessions no longer get (renewAgent), kept until
	// their last session ends.
	retired  map[*conversation.Agent]*sharedAgent
	sessions map[acp.SessionID]*session
	closed   bool
	watchers sync.WaitGroup // the sessions' idle watches (session.watchIdle)
}

// agentKey names a shared agent process: one per agent and working directory.
type agentKey struct{ name, dir string }

type sharedAgent struct {
	agent *conversation.Agent
	users int // sessions on it
}

// New returns a server for the agents opts.Launcher knows, in opts.Workspace.
func New(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ws, err := workspace.NewRoots(opts.Workspace)
	if err != nil {
		return nil, fmt.Errorf("the workspace: %w", err)
	}
	return &Server{opts: opts, logger: opts.Logger, workspace: ws, agents: map[agentKey]*sharedAgent{}, retired: map[*conversation.Agent]*sharedAgent{}, sessions: map[acp.SessionID]*session{}}, nil
}

// Workspace is the directory sessions work in.
func (s *Server) Workspace() string { return s.workspace.Dirs()[0] }

// Serve serves one client over stream until it disconnects or ctx ends. Its sessions
// outlive it.
func (s *Server) Serve(ctx context.Context, stream io.ReadWriteCloser) error {
	connCtx, cancel := context.WithCancel(context.Background())
	c := &conn{srv: s, views: map[acp.SessionID]*view{}, ctx: connCtx, peer: peerOf(ctx)}
	err := acp.Serve(ctx, stream, func(ac *acp.AgentConn) acp.Agent {
		c.ac = ac
		return c
	}, &acp.ConnOptions{Logger: s.logger})
	cancel()
	c.detachAll()
	return err
}

// Close closes every session and agent. Connections still served end with their
// streams (their views have nothing more to show).
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	sessions := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.sessions = map[acp.SessionID]*session{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, ss := range sessions {
		wg.Go(ss.close)
	}
	wg.Wait()
	s.watchers.Wait() // each ends with its session's conversation
	s.mu.Lock()
	agents := make([]*sharedAgent, 0, len(s.agents)+len(s.retired))
	for _, a := range s.agents {
		agents = append(agents, a)
	}
	for _, a := range s.retired {
		agents = append(agents, a)
	}
	s.agents = map[agentKey]*sharedAgent{}
	s.retired = map[*conversation.Agent]*sharedAgent{}
	s.mu.Unlock()
	for _, a := range agents {
		a.agent.Close()
	}
}

var errServerClosed = errors.New("parley is shutting down")

// roots confines a session to cwd, which must be the workspace or inside it. The cwd of
// a remote client (see Peer) names a directory on its own machine: one that is not a
// directory inside the workspace is taken as the workspace, and moved says so.
func (s *Server) roots(cwd string, remote bool) (roots *workspace.Roots, moved bool, err error) {
	if cwd == "" {
		return s.workspace, false, nil
	}
	dir, err := s.workspace.Resolve(cwd)
	if err == nil {
		roots, err = workspace.NewRoots(dir)
	}
	switch {
	case err == nil:
		return roots, false, nil
	case remote:
		return s.workspace, true, nil
	}
	return nil, false, acp.ErrInvalidParams("cwd %q: %v", cwd, err)
}

// inWorkspace is dir resolved if it is the workspace or a directory inside it.
func (s *Server) inWorkspace(dir string) (string, bool) {
	resolved, err := s.workspace.Resolve(dir)
	return resolved, err == nil
}

// acquireAgent returns the shared agent process for name in roots' first directory,
// made (not started) if there is none yet.
func (s *Server) acquireAgent(name string, roots *workspace.Roots) (*conversation.Agent, error) {
	key := agentKey{name, roots.Dirs()[0]}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errServerClosed
	}
	if a := s.agents[key]; a != nil {
		a.users++
		return a.agent, nil
	}
	opts, err := s.opts.Launcher.AgentOptions(name, roots)
	if err != nil {
		return nil, acp.ErrInvalidParams("%v", err)
	}
	a := &sharedAgent{agent: conversation.NewAgent(opts), users: 1}
	s.agents[key] = a
	return a.agent, nil
}

// releaseAgent lets go of agent, a process acquireAgent returned for name in roots, and
// ends it when no session uses it any more.
func (s *Server) releaseAgent(name string, roots *workspace.Roots, agent *conversation.Agent) {
	key := agentKey{name, roots.Dirs()[0]}
	s.mu.Lock()
	a := s.agents[key]
	retired := a == nil || a.agent != agent
	if retired {
		a = s.retired[agent]
	}
	if a == nil {
		s.mu.Unlock()
		return
	}
	a.users--
	if a.users > 0 {
		s.mu.Unlock()
		return
	}
	if retired {
		delete(s.retired, agent)
	} else {
		delete(s.agents, key)
	}
	s.mu.Unlock()
	a.agent.Close()
}

// renewAgent makes the sessions opened from now on with the agent called name start a
// process of their own: the user signed in to it outside parley (`parley login`), which a
// running process may not know. The sessions open keep theirs until they end.
func (s *Server) renewAgent(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, a := range s.agents {
		if key.name == name {
			delete(s.agents, key)
			s.retired[a.agent] = a
		}
	}
}

// newSessionID is an id no client can guess: a session id is also what lets a
// connection attach to a session.
func newSessionID() acp.SessionID {
	var b [16]byte
	rand.Read(b[:])
	return acp.SessionID("parley-" + hex.EncodeToString(b[:]))
}

// openSession starts a conversation with the agent called name in roots (reopening the
// agent's session load, if set) and registers it under id.
// elicit says the client that opens it answers elicitations. An elicitation is asked when
// a view attached takes its mode (or, with none attached, one that was did); otherwise
// it is declined at once rather than left waiting for a view that may never come.
func (s *Server) openSession(id acp.SessionID, name string, roots *workspace.Roots, load acp.SessionID, elicit bool) (*session, error) {
	agent, err := s.acquireAgent(name, roots)
	if err != nil {
		return nil, err
	}
	ss := newSession(s, id, name, roots, agent, nil)
	if elicit {
		// Until its view attaches, the opener is who will answer.
		ss.elicitModes[acp.ElicitationModeForm], ss.elicitModes[acp.ElicitationModeURL] = true, true
	}
	// ss.conv is set before ss is known to anyone; ElicitFor reads only what ss.mu guards.
	ss.conv = conversation.New(conversation.Options{
		Agent: agent, Roots: roots, Policy: s.opts.Launcher.Policy(name, roots), Interactive: true, ElicitFor: ss.canElicit, Load: load,
		Changes: s.opts.Launcher.Changes(name, roots),
	})
	if s.opts.Store != nil {
		ss.keeper = conversation.Keep(ss.conv, conversation.KeeperOptions{Store: s.opts.Store, Agent: name, Workspace: roots.Dirs()[0], Logger: s.logger})
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ss.close()
		return nil, errServerClosed
	}
	if s.sessions[id] != nil {
		s.mu.Unlock()
		ss.close()
		return nil, acp.ErrInvalidParams("session %q is open already", id)
	}
	s.sessions[id] = ss
	s.mu.Unlock()
	return ss, nil
}

func (s *Server) session(id acp.SessionID) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.sessions[id]; ss != nil {
		return ss, nil
	}
	return nil, acp.ErrSessionNotFound(id)
}

// forget removes a session that closed.
func (s *Server) forget(ss *session) {
	s.mu.Lock()
	if s.sessions[ss.id] == ss {
		delete(s.sessions, ss.id)
	}
	s.mu.Unlock()
}

// liveSessions lists the sessions parley holds.
func (s *Server) liveSessions() []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}

// probeTimeout bounds the start of the default agent that initialize waits for, to learn
// what it takes: an agent that starts slowly (a download) is then taken to accept only
// what every agent does.
const probeTimeout = 30 * time.Second

// promptCapabilities are what the agent called name accepts in a prompt, from its
// initialize: it is started in the workspace (or found running) for that. release lets go
// of it: until then the process stays for the sessions that follow. An agent that does
// not start is taken to accept what every agent does (text and resource links); its
// session/new will say why it did not start.
func (s *Server) promptCapabilities(ctx context.Context, name string) (caps acp.PromptCapabilities, release func()) {
	agent, err := s.acquireAgent(name, s.workspace)
	if err != nil {
		return caps, func() {}
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	info, err := agent.Start(ctx)
	if err != nil {
		s.logger.Warn("the default agent did not start to say what it accepts: initialize tells only what every agent accepts", "agent", name, "error", err)
	} else {
		caps = info.Capabilities.PromptCapabilities
		caps.Meta, caps.Extra = nil, nil
	}
	return caps, sync.OnceFunc(func() { s.releaseAgent(name, s.workspace, agent) })
}
