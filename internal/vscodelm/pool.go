package vscodelm

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/host"
)

// pool keeps one agent process per agent definition, shared by every conversation with
// that agent (ACP allows many sessions per connection), and restarts it when it died.
type pool struct {
	self   string // parley's own binary, for Eliza
	logger *slog.Logger

	mu     sync.Mutex
	agents map[AgentKey]*pooled
}

// pooled is one running agent and the workers of its sessions.
type pooled struct {
	agent *host.Agent

	mu      sync.Mutex
	workers map[acp.SessionID]*worker
}

func newPool(logger *slog.Logger) *pool {
	self, _ := os.Executable()
	return &pool{self: self, logger: logger, agents: map[AgentKey]*pooled{}}
}

func (p *pool) spec(key AgentKey) agentproc.Spec {
	if key.Kind == "eliza" {
		args := []string{"eliza"}
		if key.Deterministic {
			args = append(args, "--deterministic")
		}
		return agentproc.Spec{Command: p.self, Args: args}
	}
	return agentproc.Spec{Command: key.Command, Args: key.Args(), Env: key.Env()}
}

// get returns the running agent for key, starting it if there is none or it died.
func (p *pool) get(ctx context.Context, key AgentKey) (*pooled, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a := p.agents[key]; a != nil {
		select {
		case <-a.agent.Exited():
			a.agent.Close()
			delete(p.agents, key)
		default:
			return a, nil
		}
	}
	a := &pooled{workers: map[acp.SessionID]*worker{}}
	agent, err := host.Launch(ctx, p.spec(key), host.LaunchOptions{Client: a, Logger: p.logger})
	if err != nil {
		return nil, fmt.Errorf("starting the agent: %w", err)
	}
	a.agent = agent
	p.agents[key] = a
	return a, nil
}

func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, a := range p.agents {
		a.agent.Close()
		delete(p.agents, k)
	}
}

func (a *pooled) add(id acp.SessionID, w *worker) {
	a.mu.Lock()
	a.workers[id] = w
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

// RequestPermission asks the conversation's worker, which may ask VS Code.
func (a *pooled) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	w := a.worker(req.SessionID)
	if w == nil {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	reply := make(chan acp.RequestPermissionOutcome, 1)
	w.post(ctx, evPermission{req: req, reply: reply})
	select {
	case o := <-reply:
		return &acp.RequestPermissionResponse{Outcome: o}, nil
	case <-ctx.Done():
		return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
	}
}

// release forgets a closed session; an agent left with none is stopped (idle processes
// end).
func (p *pool) release(key AgentKey, a *pooled, id acp.SessionID) {
	a.mu.Lock()
	delete(a.workers, id)
	empty := len(a.workers) == 0
	a.mu.Unlock()
	if !empty {
		return
	}
	p.mu.Lock()
	if p.agents[key] == a {
		delete(p.agents, key)
	}
	p.mu.Unlock()
	a.agent.Close()
}
