package conversation

import (
	"context"
	"sync"

	"github.com/parley-acp/parley/acp"
)

// The agent's session/updates reach the actor through the inflow, not one message each.
// The connection's dispatcher appends an update under a mutex and wakes the actor
// (updatesMsg) only when the inflow was empty; the actor takes everything there at once.
// On a flood of chunks that is one append per update and one wake per batch, where a
// message per update cost a channel hand-off each and, whenever the actor had caught up,
// a wake of its goroutine.
//
// Order is kept: the actor applies what the inflow holds before it handles any other
// message, so whatever the agent sent after an update (a permission request, the
// prompt's answer) is handled after it. The inflow holds at most inboxSize updates: the
// dispatcher then waits (for room, the conversation's end or its ctx), and the agent's
// connection stops reading, as it did when the inbox was full.

type inflow struct {
	mu    sync.Mutex
	queue []*acp.SessionNotification
	spare []*acp.SessionNotification // the batch the actor applied last, reused
	room  chan struct{}              // a poster waiting for room is told (cap 1)
}

// postUpdate hands an update to the actor, in the order the agent sent it (it is called
// from the connection's one dispatcher goroutine). It waits while the inflow is full.
func (c *Conversation) postUpdate(ctx context.Context, n *acp.SessionNotification) {
	in := &c.in
	in.mu.Lock()
	for len(in.queue) >= inboxSize {
		in.mu.Unlock()
		select {
		case <-in.room:
		case <-c.done:
			return
		case <-ctx.Done():
			return
		}
		in.mu.Lock()
	}
	wake := len(in.queue) == 0
	in.queue = append(in.queue, n)
	in.mu.Unlock()
	if wake {
		// Should ctx end before the wake is posted (the connection is closing), the update
		// still goes out with the next message the actor handles.
		c.postCtx(ctx, updatesMsg{})
	}
}

// updatesMsg says that the inflow has updates; the actor applies them before it handles
// any message (run), so handling it is nothing more.
type updatesMsg struct{}

func (updatesMsg) handle(*Conversation) {}

// applyInflow applies every update the inflow holds, in order. It runs on the actor.
func (c *Conversation) applyInflow() {
	in := &c.in
	in.mu.Lock()
	batch := in.queue
	if len(batch) == 0 {
		in.mu.Unlock()
		return
	}
	in.queue, in.spare = in.spare[:0], nil
	in.mu.Unlock()
	select {
	case in.room <- struct{}{}:
	default:
	}
	for i, n := range batch {
		batch[i] = nil // the batch is reused: it must not keep the update alive
		if n.SessionID != c.st.session.ID {
			continue // an update of a session this conversation left (after load or new)
		}
		c.applyUpdate(n)
	}
	in.mu.Lock()
	if in.spare == nil {
		in.spare = batch[:0]
	}
	in.mu.Unlock()
}

// inflowEmpty reports whether no update waits in the inflow.
func (c *Conversation) inflowEmpty() bool {
	c.in.mu.Lock()
	defer c.in.mu.Unlock()
	return len(c.in.queue) == 0
}
