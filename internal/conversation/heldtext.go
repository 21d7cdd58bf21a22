package conversation

import (
	"strings"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolstate"
)

// Text held back while the agent floods. When the actor is behind the agent (its inbox
// holds more session/updates), the text deltas of consecutive message chunks are joined
// into one TurnUpdate instead of one each: the views get the same text, in the same
// order, in fewer events (on a flood of chunks, each event was an allocation, a post and
// a wake of every view, and in vscodelm a notification to VS Code and a wake of it).
// What is held goes out before any other event, before the actor handles anything but
// an update, at maxHeldBytes, and once the actor has caught up with the agent: at once
// when it is a turn's first text (the first part of a reply is never held) or fewer than
// floodDeltas (an agent that streams at a reader's pace is shown chunk by chunk, as it
// came), else once the first of them is maxHeldFor old (a timer posts heldTextDueMsg).
// So a flood gives the views a few events per millisecond, not one per catch-up, and no
// view waits for text longer than that, far less than a frame of a screen.

const (
	maxHeldFor   = time.Millisecond
	maxHeldBytes = 64 << 10
	// floodDeltas is how many deltas found waiting together make a flood: a reply an
	// agent sends in a few chunks at once is not one.
	floodDeltas = 16
	// ageCheck: while the actor stays behind (it never settles), the age of what it
	// holds is read every ageCheck deltas.
	ageCheck = 64
)

// heldText is the text deltas held, all of one turn and one agent message.
type heldText struct {
	held   bool
	turn   int
	id     acp.MessageID
	text   strings.Builder
	deltas int
	since  time.Time   // when the first of them came
	due    *time.Timer // armed by settleText
}

// holdText holds a text delta of the current turn, after what is held when it is of the
// same message.
func (c *Conversation) holdText(ev toolstate.Event) {
	h := &c.st.text
	if h.held && (h.turn != c.st.lastTurn || h.id != ev.MessageID) {
		c.flushText()
	}
	if !h.held {
		h.held, h.turn, h.id, h.since = true, c.st.lastTurn, ev.MessageID, time.Now()
	}
	h.text.WriteString(ev.Text)
	h.deltas++
	if h.text.Len() >= maxHeldBytes || (h.deltas%ageCheck == 0 && time.Since(h.since) >= maxHeldFor) {
		c.flushText()
	}
}

// settleText runs once the actor has caught up with the agent: what it holds goes out,
// unless it is text of a flood (floodDeltas or more, and not the turn's first text)
// younger than maxHeldFor, which waits for more until then.
func (c *Conversation) settleText() {
	h := &c.st.text
	if !h.held {
		return
	}
	age := time.Since(h.since)
	if h.deltas < floodDeltas || h.turn != c.st.textTurn || age >= maxHeldFor {
		c.flushText()
		return
	}
	if h.due == nil {
		h.due = time.AfterFunc(maxHeldFor-age, func() { c.postCtx(c.ctx, heldTextDueMsg{}) })
	}
}

// heldTextDueMsg: held text is maxHeldFor old. The actor sends what is held before it
// handles any message but an update (run), so handling it is nothing more; one that comes
// after the text went out otherwise finds nothing held, or newer text, which goes out a
// little early.
type heldTextDueMsg struct{}

func (heldTextDueMsg) handle(*Conversation) {}

// flushText sends what is held.
func (c *Conversation) flushText() {
	h := &c.st.text
	if !h.held {
		return
	}
	if h.due != nil {
		h.due.Stop()
	}
	ev := TurnUpdate{Turn: h.turn, Update: toolstate.Event{Kind: toolstate.TextDelta, Text: h.text.String(), MessageID: h.id}}
	c.st.text, c.st.textTurn = heldText{}, h.turn
	c.emitNow(ev)
}
