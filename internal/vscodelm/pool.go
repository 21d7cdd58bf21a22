package vscodelm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/host"
	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// pool keeps one agent process per agent definition, shared by every conversation with
// that agent (ACP allows many sessions per connection), and restarts it when it died.
//
// Its lock guards only the table of agents and is never held while an agent starts: a
// start runs on its own goroutine, and whoever needs that agent waits for it with its own
// context, so one slow agent (npx installing itself, an agent stuck in initialize) blocks
// no conversation of another agent.
type pool struct {
	self     string // parley's own binary, for Eliza
	logger   *slog.Logger
	timeout  time.Duration
	agentLog func(name string) (io.WriteCloser, error)

	ctx    context.Context // ends at close: starts in progress give up
	cancel context.CancelFunc
	starts sync.WaitGroup

	mu     sync.Mutex
	closed bool
	agents map[AgentKey]*pooled
}

// pooled is one agent process (running, or starting until ready is closed) and the
// workers of its sessions.
type pooled struct {
	key   AgentKey
	name  string
	ready chan struct{} // closed once the start has ended; agent or err is set then
	agent *host.Agent
	err   error
	log   io.WriteCloser // its stderr, nil when not logged
	users int            // sessions open or being opened; guarded by pool.mu
	// discoversEarly: a session of this process connected to vscode_tools before its
	// first prompt, so the agent discovers MCP servers in the background of session/new
	// and a first prompt waits for it (worker.awaitDiscovery).
	discoversEarly atomic.Bool

	mu      sync.Mutex
	workers map[acp.SessionID]*worker
}

func newPool(logger *slog.Logger, timeout time.Duration, agentLog func(string) (io.WriteCloser, error)) *pool {
	self, _ := os.Executable()
	ctx, cancel := context.WithCancel(context.Background())
	return &pool{self: self, logger: logger, timeout: timeout, agentLog: agentLog, ctx: ctx, cancel: cancel, agents: map[AgentKey]*pooled{}}
}

func (p *pool) spec(key AgentKey) agentproc.Spec {
	if key.Kind == AgentEliza {
		args := []string{"eliza"}
		if key.Deterministic {
			args = append(args, "--deterministic")
		}
		return agentproc.Spec{Command: p.self, Args: args}
	}
	return agentproc.Spec{Command: key.Command, Args: key.Args(), Env: key.Env()}
}

// get returns the running agent for key, starting it if there is none or it died, and
// counts one more user of it (release gives it back). It waits for a start at most until
// ctx ends.
func (p *pool) get(ctx context.Context, key AgentKey, name string) (*pooled, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("parley is shutting down")
	}
	a := p.agents[key]
	if a != nil && a.dead() {
		delete(p.agents, key)
		a = nil
	}
	if a == nil {
		a = &pooled{key: key, name: name, ready: make(chan struct{}), workers: map[acp.SessionID]*worker{}}
		p.agents[key] = a
		p.starts.Add(1)
		go p.start(a)
	}
	a.users++
	p.mu.Unlock()

	select {
	case <-a.ready:
	case <-ctx.Done():
		p.release(a)
		return nil, ctx.Err()
	}
	if a.err != nil {
		p.release(a)
		return nil, a.err
	}
	return a, nil
}

// dead reports a start that failed or a process that has ended. pool.mu is held.
func (a *pooled) dead() bool {
	select {
	case <-a.ready:
	default:
		return false // still starting
	}
	if a.err != nil {
		return true
	}
	select {
	case <-a.agent.Exited():
		return true
	default:
		return false
	}
}

// start launches and initializes the agent, within the agent timeout.
func (p *pool) start(a *pooled) {
	defer p.starts.Done()
	defer close(a.ready)
	opts := host.LaunchOptions{Client: a, Logger: p.logger}
	if p.agentLog != nil {
		if log, err := p.agentLog(a.name); err != nil {
			p.logger.Warn("cannot open the agent's log; its stderr is dropped", "agent", a.name, "error", err)
		} else {
			a.log, opts.Stderr = log, log
		}
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.timeout)
	defer cancel()
	agent, err := host.Launch(ctx, p.spec(a.key), opts)
	switch {
	case err == nil:
		a.agent = agent
		return
	case errors.Is(err, context.DeadlineExceeded) && p.ctx.Err() == nil:
		err = fmt.Errorf("the agent %s did not answer initialize within %v; see its log, or give it longer with --agent-timeout: %w", a.name, p.timeout, err)
	default:
		err = fmt.Errorf("starting the agent %s: %w", a.name, err)
	}
	a.err = err
	if a.log != nil {
		a.log.Close()
	}
}

// release gives back what get counted: an agent left without users is stopped (idle
// processes end).
func (p *pool) release(a *pooled) {
	p.mu.Lock()
	a.users--
	last := a.users == 0 && p.agents[a.key] == a && !p.closed
	if last {
		delete(p.agents, a.key)
	}
	p.mu.Unlock()
	if last {
		a.stop()
	}
}

// stop ends the agent (after its start, if it is still starting).
func (a *pooled) stop() {
	<-a.ready
	if a.agent == nil {
		return
	}
	a.agent.Close()
	if a.log != nil {
		a.log.Close()
	}
}

// close ends every agent, those still starting included, and waits for them.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	agents := p.agents
	p.agents = map[AgentKey]*pooled{}
	p.mu.Unlock()
	p.cancel()
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Go(a.stop)
	}
	wg.Wait()
	p.starts.Wait()
}

// callTimeout bounds one call to the agent that is not a turn.
func (p *pool) callTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, p.timeout)
}

// explainTimeout turns a missed deadline of call into an error that says what to do.
func (p *pool) explainTimeout(a *pooled, call string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the agent %s did not answer %s within %v; see its log, or give it longer with --agent-timeout: %w", a.name, call, p.timeout, err)
	}
	return a.agent.Explain(fmt.Errorf("%s: %w", call, err))
}

func (a *pooled) add(id acp.SessionID, w *worker) {
	a.mu.Lock()
	a.workers[id] = w
	a.mu.Unlock()
}

func (a *pooled) remove(id acp.SessionID) {
	a.mu.Lock()
	delete(a.workers, id)
	a.mu.Unlock()
}

func (a *pooled) worker(id acp.SessionID) *worker {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.workers[id]
}

// SessionUpdate routes an update to its conversation's worker.
func (a *pooled) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	if w := a.worker(n.SessionID); w != nil {
		w.post(ctx, evUpdate{update: n.Update})
	}
	return nil
}

// RequestPermission asks the conversation's worker, which may ask VS Code. An answer
// that ends the turn (a declined agent action) comes with the session/cancel to send,
// which goes out in the same write right behind the answer: the agent must see the
// rejection before session/cancel, or it reads the request as cancelled.
func (a *pooled) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	w := a.worker(req.SessionID)
	if w == nil {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	reply := make(chan permAnswer, 1)
	if !w.post(ctx, evPermission{req: req, reply: reply}) {
		return &acp.RequestPermissionResponse{Outcome: choose(req.Options, false)}, nil
	}
	select {
	case ans := <-reply:
		if ans.after != nil {
			jsonrpc2.AfterResponse(ctx, ans.after)
		}
		return &acp.RequestPermissionResponse{Outcome: ans.outcome}, nil
	case <-ctx.Done():
		return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
	}
}
