package acpserver

import "context"

// Peer says who is on the other end of a connection: what lets the server's log name
// who attached, answered or was refused, and whether the client runs on another
// machine (its session/new cwd then names a directory there, not in the workspace).
type Peer struct {
	// Name is the name of what let the client in (a token's name in parley web), or ""
	// (stdio: the user who started parley).
	Name string
	// Remote is true for a connection over the network (parley web's /acp).
	Remote bool
}

type peerKey struct{}

// WithPeer returns ctx carrying who the connection served under it is; Serve reads it.
func WithPeer(ctx context.Context, p Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

// peerOf is the Peer WithPeer put in ctx (the zero Peer if none).
func peerOf(ctx context.Context) Peer {
	p, _ := ctx.Value(peerKey{}).(Peer)
	return p
}
