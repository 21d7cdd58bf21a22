package conversation

import (
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolstate"
)

// Text held back while the agent floods. When the actor is behind the agent (its inflow
// holds more session/updates, or its inbox more messages), the text deltas of consecutive message chunks are joined
// into one TurnUpdate instead of one each: the views get the same text, in the same
// order, in fewer events (on a flood of chunks, each event was an allocation, a post and
// a wake of every view). What is held goes out before any other event, before the actor
// handles anything but updates, as soon as its inbox and inflow are empty, and at maxHeldDeltas or
// maxHeldBytes, so a view never waits for text behind more than that.

const (
	maxHeldDeltas = 64
	maxHeldBytes  = 16 << 10
)

// heldText is the text deltas held, all of one turn and one agent message.
type heldText struct {
	held   bool
	turn   int
	id     acp.MessageID
	text   strings.Builder
	deltas int
}

// holdText holds a text delta of the current turn, after what is held when it is of the
// same message.
func (c *Conversation) holdText(ev toolstate.Event) {
	h := &c.st.text
	if h.held && (h.turn != c.st.lastTurn || h.id != ev.MessageID) {
		c.flushText()
	}
	if !h.held {
		h.held, h.turn, h.id = true, c.st.lastTurn, ev.MessageID
	}
	h.text.WriteString(ev.Text)
	h.deltas++
	if h.deltas >= maxHeldDeltas || h.text.Len() >= maxHeldBytes {
		c.flushText()
	}
}

// flushText sends what is held.
func (c *Conversation) flushText() {
	h := &c.st.text
	if !h.held {
		return
	}
	ev := TurnUpdate{Turn: h.turn, Update: toolstate.Event{Kind: toolstate.TextDelta, Text: h.text.String(), MessageID: h.id}}
	c.st.text = heldText{}
	c.emitNow(ev)
}
