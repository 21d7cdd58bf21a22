package host

import (
	"context"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/workspace"
)

// Client is parley's full ACP client, as parley run and parley chat use it: it serves
// fs/* and terminal/* inside each session's workspace roots, decides permission requests
// with a permission.Policy, and hands every session update to the front-end.
type Client struct {
	FileSystem
	*Terminals
	policy   *permission.Policy
	onUpdate func(ctx context.Context, n *acp.SessionNotification)
	onAsk    func(req *acp.RequestPermissionRequest, resp *acp.RequestPermissionResponse, err error)

	mu    sync.Mutex
	roots map[acp.SessionID]*workspace.Roots
}

// ClientOptions configure a Client.
type ClientOptions struct {
	Policy *permission.Policy
	// OnUpdate receives every session update, one at a time, in order.
	OnUpdate func(ctx context.Context, n *acp.SessionNotification)
	// OnPermission is told of every permission request, how it was answered, and any
	// problem deciding it (the answer then failed closed).
	OnPermission func(req *acp.RequestPermissionRequest, resp *acp.RequestPermissionResponse, err error)
}

// NewClient returns a client with no sessions yet; add each with AddSession.
func NewClient(opts ClientOptions) *Client {
	c := &Client{policy: opts.Policy, onUpdate: opts.OnUpdate, onAsk: opts.OnPermission, roots: map[acp.SessionID]*workspace.Roots{}}
	c.FileSystem = FileSystem{RootsFor: c.rootsFor}
	c.Terminals = NewTerminals(c.rootsFor)
	return c
}

// Capabilities are what the client advertises in initialize.
func (c *Client) Capabilities() acp.ClientCapabilities {
	return acp.ClientCapabilities{
		FS:       acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
		Terminal: true,
	}
}

// AddSession confines the session's file and terminal access to roots.
func (c *Client) AddSession(id acp.SessionID, roots *workspace.Roots) {
	c.mu.Lock()
	c.roots[id] = roots
	c.mu.Unlock()
}

func (c *Client) rootsFor(id acp.SessionID) (*workspace.Roots, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.roots[id]
	if !ok {
		return nil, acp.ErrSessionNotFound(id)
	}
	return r, nil
}

// SessionUpdate hands the update to the front-end.
func (c *Client) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	if c.onUpdate != nil {
		c.onUpdate(ctx, n)
	}
	return nil
}

// RequestPermission decides with the policy (which may ask the user).
func (c *Client) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	resp, err := c.policy.Decide(ctx, req)
	if c.onAsk != nil {
		c.onAsk(req, resp, err)
	}
	return resp, nil
}

// Close kills every terminal the agent left running.
func (c *Client) Close() { c.Terminals.Close() }
