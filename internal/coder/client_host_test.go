package coder

import (
	"context"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/host"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/parley-acp/parley/internal/workspace"
)

// hostClient is an ACP client for testing parley's agent against: it serves fs/* and
// terminal/* inside each session's workspace roots with parley's own (internal/host),
// decides permission requests with a permission.Policy, and hands every session update to
// the test. (parley's front-ends use internal/conversation, which does the same.)
type hostClient struct {
	host.FileSystem
	*host.Terminals
	policy   *permission.Policy
	sandbox  *sandbox.Policy // nil: terminal commands are not confined
	onUpdate func(ctx context.Context, n *acp.SessionNotification)
	onAsk    func(req *acp.RequestPermissionRequest, resp *acp.RequestPermissionResponse, err error)

	mu    sync.Mutex
	roots map[acp.SessionID]*workspace.Roots

	// deliverMu keeps updates in order while AddSession releases the held ones.
	deliverMu sync.Mutex
	// held are updates for session ids not added (yet): the early updates of a session
	// being opened, released by AddSession, and updates for ids parley never opened,
	// which are never shown. At most maxHeld, the oldest dropped first.
	held []*acp.SessionNotification
}

// maxHeld bounds the updates held for sessions not added.
const maxHeld = 1024

// hostClientOptions configure a hostClient.
type hostClientOptions struct {
	Policy *permission.Policy
	// Sandbox, when set, confines every terminal/create command to writing inside the
	// session's roots and the sandbox's own directories (Landlock).
	Sandbox *sandbox.Policy
	// OnUpdate receives every session update, one at a time, in order.
	OnUpdate func(ctx context.Context, n *acp.SessionNotification)
	// OnPermission is told of every permission request, how it was answered, and any
	// problem deciding it (the answer then failed closed).
	OnPermission func(req *acp.RequestPermissionRequest, resp *acp.RequestPermissionResponse, err error)
}

// newHostClient returns a client with no sessions yet; add each with AddSession.
func newHostClient(opts hostClientOptions) *hostClient {
	c := &hostClient{policy: opts.Policy, sandbox: opts.Sandbox, onUpdate: opts.OnUpdate, onAsk: opts.OnPermission, roots: map[acp.SessionID]*workspace.Roots{}}
	c.FileSystem = host.FileSystem{RootsFor: c.rootsFor}
	c.Terminals = host.NewTerminals(c.rootsFor)
	return c
}

// Capabilities are what the client advertises in initialize.
func (c *hostClient) Capabilities() acp.ClientCapabilities {
	return acp.ClientCapabilities{
		FS:       acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
		Terminal: true,
	}
}

// AddSession confines the session's file and terminal access to roots, and shows the
// updates that came for it before it was added (agents send some before their
// session/new response; the ACP connection passes them on when the response comes,
// before the caller can add the session).
func (c *hostClient) AddSession(id acp.SessionID, roots *workspace.Roots) {
	c.deliverMu.Lock()
	defer c.deliverMu.Unlock()
	c.mu.Lock()
	c.roots[id] = roots
	c.mu.Unlock()
	var ready []*acp.SessionNotification
	kept := c.held[:0]
	for _, n := range c.held {
		if n.SessionID == id {
			ready = append(ready, n)
		} else {
			kept = append(kept, n)
		}
	}
	clear(c.held[len(kept):])
	c.held = kept
	for _, n := range ready {
		c.deliver(context.Background(), n)
	}
}

func (c *hostClient) rootsFor(id acp.SessionID) (*workspace.Roots, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.roots[id]
	if !ok {
		return nil, acp.ErrSessionNotFound(id)
	}
	return r, nil
}

// SessionUpdate hands the update to the front-end. An update for a session not added is
// held until AddSession adds it: one for a session parley never opened is never shown
// (it is not the reply to anything the user asked).
func (c *hostClient) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	c.deliverMu.Lock()
	defer c.deliverMu.Unlock()
	if _, err := c.rootsFor(n.SessionID); err != nil {
		if len(c.held) == maxHeld {
			c.held = append(c.held[:0], c.held[1:]...)
		}
		c.held = append(c.held, n)
		return nil
	}
	c.deliver(ctx, n)
	return nil
}

// deliver hands an update to the front-end; c.deliverMu is held.
func (c *hostClient) deliver(ctx context.Context, n *acp.SessionNotification) {
	if c.onUpdate != nil {
		c.onUpdate(ctx, n)
	}
}

// RequestPermission decides with the policy (which may ask the user). A request for a
// session parley never opened is refused with an error: nothing is asked, allowed or
// shown for it.
func (c *hostClient) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	if _, err := c.rootsFor(req.SessionID); err != nil {
		return nil, err
	}
	resp, err := c.policy.Decide(ctx, req)
	if c.onAsk != nil {
		c.onAsk(req, resp, err)
	}
	return resp, nil
}

// CreateTerminal runs the command if the policy lets it: the user's rules hold for
// terminal/create whether or not the agent asked first (see
// permission.Policy.DecideTerminal).
func (c *hostClient) CreateTerminal(ctx context.Context, req *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error) {
	roots, err := c.rootsFor(req.SessionID)
	if err != nil {
		return nil, err
	}
	dir := roots.Dirs()[0]
	if req.Cwd != "" {
		dir = req.Cwd // confined by Terminals; a relative one is refused there
	}
	d := c.policy.DecideTerminal(ctx, req.SessionID, append([]string{req.Command}, req.Args...), req.Env, dir)
	if d.Request != nil && c.onAsk != nil {
		c.onAsk(d.Request, d.Response, d.Err)
	}
	if !d.Allowed {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%s", d.Reason)
	}
	if c.sandbox != nil {
		confined := *req
		confined.Command, confined.Args = c.sandbox.Wrap(roots.Dirs(), req.Command, req.Args)
		req = &confined
	}
	return c.Terminals.CreateTerminal(ctx, req)
}

// Close kills every terminal the agent left running.
func (c *hostClient) Close() { c.Terminals.Close() }
