package vscodelm

import (
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/sandbox"
)

// pool keeps one conversation.Agent per agent definition, shared by every conversation
// with that agent: the conversation core's Agent is one process and its ACP connection,
// and routes each session's updates and requests to the conversation that owns it. An
// agent starts when its first conversation needs it (never under the pool's lock: the
// core starts it on the conversation's own helper goroutine, so one slow agent blocks no
// conversation of another), is started again by the core when it died, and is closed
// once no conversation uses it (idle processes end).
type pool struct {
	self     string // parley's own binary, for Eliza
	logger   *slog.Logger
	timeout  time.Duration
	agentLog func(name string) (io.WriteCloser, error)
	sandbox  *sandbox.Policy
	// confine, when set, confines each agent process (see Options.Confine): a process is
	// then kept per agent and workspace, since what it may write is fixed at its start.
	confine func(name string, spec agentproc.Spec, roots []string) *sandbox.AgentSpec

	mu     sync.Mutex
	closed bool
	agents map[poolKey]*pooled
}

// poolKey is one agent process of the pool: the agent and, when agents are confined, the
// workspace roots it may write.
type poolKey struct {
	AgentKey
	roots string
}

// pooled is one agent of the pool and the conversations that use it.
type pooled struct {
	key   poolKey
	name  string
	agent *conversation.Agent
	log   io.WriteCloser // its stderr, nil when not logged
	users int            // conversations on it; guarded by pool.mu
	// discoversEarly: a session of this process connected to vscode_tools before its
	// first prompt, so the agent discovers MCP servers in the background of session/new
	// and a first prompt waits for it (worker.awaitDiscovery).
	discoversEarly atomic.Bool
	// renewed: the user signed in to this agent since it started (lm/signedIn): a
	// conversation whose start failed for want of a sign-in takes a new process.
	renewed atomic.Bool
}

func newPool(logger *slog.Logger, timeout time.Duration, agentLog func(string) (io.WriteCloser, error), box *sandbox.Policy,
	confine func(string, agentproc.Spec, []string) *sandbox.AgentSpec) *pool {
	self, _ := os.Executable()
	return &pool{self: self, logger: logger, timeout: timeout, agentLog: agentLog, sandbox: box, confine: confine, agents: map[poolKey]*pooled{}}
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

// get returns the agent for def and counts one more user of it (release gives it back);
// nil once the pool is closed. It does not start the agent.
func (p *pool) get(def AgentDef, roots []string) *pooled {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	key := poolKey{AgentKey: def.Key}
	if p.confine != nil {
		key.roots = strings.Join(roots, "\x00")
	}
	a := p.agents[key]
	if a == nil {
		a = &pooled{key: key, name: def.Label()}
		spec := p.spec(def.Key)
		if p.confine != nil {
			spec.Sandbox = p.confine(a.name, spec, roots)
		}
		opts := conversation.AgentOptions{
			Name: a.name, Spec: spec, Timeout: p.timeout, Logger: p.logger, Sandbox: p.sandbox,
			// Sign-in runs in a terminal of VS Code (`parley login`); the agent may offer
			// its terminal methods for it. What the agent asks (elicitations) is shown by
			// a client that can (@parley), and declined for the others.
			TerminalAuth: true, ElicitForms: true, ElicitURLs: true,
		}
		if p.agentLog != nil {
			if log, err := p.agentLog(a.name); err != nil {
				p.logger.Warn("cannot open the agent's log; its stderr is dropped", "agent", a.name, "error", err)
			} else {
				a.log, opts.Stderr = log, log
				if n, ok := log.(interface{ Name() string }); ok {
					opts.LogName = n.Name()
				}
			}
		}
		a.agent = conversation.NewAgent(opts)
		p.agents[key] = a
	}
	a.users++
	return a
}

// release gives back what get counted: an agent left without users is closed.
func (p *pool) release(a *pooled) {
	p.mu.Lock()
	a.users--
	last := a.users == 0
	if last && p.agents[a.key] == a {
		delete(p.agents, a.key)
	}
	p.mu.Unlock()
	if last {
		a.close()
	}
}

// renew makes the next get of key start a new process: the user signed in, and the
// running one may not know it. The running one ends once its conversations have let go of
// it.
func (p *pool) renew(key AgentKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, a := range p.agents {
		if k.AgentKey == key {
			a.renewed.Store(true)
			delete(p.agents, k)
		}
	}
}

func (a *pooled) close() {
	a.agent.Close()
	if a.log != nil {
		a.log.Close()
	}
}

// close ends every agent, those still starting included, and waits for them. The
// conversations on them should be closed first.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	agents := p.agents
	p.agents = map[poolKey]*pooled{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Go(a.close)
	}
	wg.Wait()
}
