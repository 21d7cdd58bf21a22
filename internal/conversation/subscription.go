package conversation

import (
	"context"

	"github.com/parley-acp/parley/internal/mailbox"
)

// Subscription is one view's feed of a conversation's events. The conversation never
// waits for it: events accumulate until the view takes them, and nothing is dropped. What
// accumulates is what the agent sent while the view was busy, so a view that stops taking
// should Close its subscription.
type Subscription struct {
	c   *Conversation
	box *mailbox.Box[Event]
	// relay: the view relays the agent's own updates (AgentUpdate instead of TurnUpdate).
	relay bool
}

// Subscribe starts a feed of events for a view. Its first event is a Snapshot of where
// the conversation stands.
func (c *Conversation) Subscribe() *Subscription { return c.subscribe(false) }

// SubscribeRelay is Subscribe for a view that passes the agent's updates on as they came
// (see AgentUpdate): it receives AgentUpdate in place of TurnUpdate.
func (c *Conversation) SubscribeRelay() *Subscription { return c.subscribe(true) }

// subscribe waits until the actor has the subscription: a conversation that ends first
// (with the request unhandled in its inbox) would never tell it Closed.
func (c *Conversation) subscribe(relay bool) *Subscription {
	s := &Subscription{c: c, box: mailbox.New[Event](), relay: relay}
	added := make(chan struct{}, 1)
	if _, err := roundTrip(context.Background(), c, subscribeMsg{s, added}, added); err != nil {
		s.box.Post(Closed{Err: err})
		s.box.Close()
	}
	return s
}

// Ready has a token when there may be events to Take.
func (s *Subscription) Ready() <-chan struct{} { return s.box.Ready() }

// Take returns the events that arrived since the last Take, in order. After Closed, it
// returns nothing more.
func (s *Subscription) Take() []Event { return s.box.Take() }

// Close ends the feed; the conversation goes on.
func (s *Subscription) Close() {
	s.c.post(unsubscribeMsg{s})
	s.box.Close()
}

type subscribeMsg struct {
	s     *Subscription
	added chan<- struct{}
}

func (m subscribeMsg) handle(c *Conversation) {
	defer func() { m.added <- struct{}{} }()
	snap := Snapshot{
		Ready: c.st.proc != nil && !c.st.starting, Starting: c.st.starting, Failed: c.st.start,
		Session: c.st.session, Queue: append([]Prompt(nil), c.st.queue...),
	}
	if t := c.st.turn; t != nil {
		p := t.prompt
		snap.Running = &p
	}
	if len(c.st.questions) > 0 {
		switch q := c.st.questions[0]; {
		case q.e != nil:
			snap.Elicitation = &ElicitationAsked{ID: q.id, Elicitation: q.e}
		default:
			snap.Question = &QuestionAsked{ID: q.id, Question: q.q}
			if tc := c.st.shown.Call(q.q.Request.ToolCall.ToolCallID); tc != nil {
				snap.Question.Tool = tc.Clone()
			}
		}
	}
	snap.SigningIn = c.st.signIn != nil
	m.s.box.Post(snap)
	c.st.subs[m.s] = true
}

type unsubscribeMsg struct{ s *Subscription }

func (m unsubscribeMsg) handle(c *Conversation) { delete(c.st.subs, m.s) }
