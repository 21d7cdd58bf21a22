package conversation

import (
	"context"
	"slices"
	"time"

	"github.com/parley-acp/parley/internal/mailbox"
)

// Subscription is one view's feed of a conversation's events. The conversation never
// waits for it: events accumulate until the view takes them, and nothing is dropped. What
// accumulates is what the agent sent while the view was busy, so a view that stops taking
// should Close its subscription.
type Subscription struct {
	c    *Conversation
	box  *mailbox.Box[Event]
	kind subKind
}

// subKind says what a subscription is sent of the turn.
type subKind uint8

const (
	modelSub  subKind = iota // TurnUpdate: toolui's model (Subscribe)
	relaySub                 // AgentUpdate and TerminalReleased: the agent's own updates (SubscribeRelay)
	statusSub                // neither, and no transcript (SubscribeStatus)
)

// Subscribe starts a feed of events for a view. Its first event is a Snapshot of where
// the conversation stands.
func (c *Conversation) Subscribe() *Subscription { return c.subscribe(modelSub) }

// SubscribeRelay is Subscribe for a view that passes the agent's updates on as they came
// (see AgentUpdate): it receives AgentUpdate in place of TurnUpdate.
func (c *Conversation) SubscribeRelay() *Subscription { return c.subscribe(relaySub) }

// SubscribeStatus is Subscribe for one who follows only where the conversation stands
// (its start, its prompts and turns, its questions), not what the turns show: it
// receives neither TurnUpdate nor AgentUpdate, and its Snapshot has no Transcript.
func (c *Conversation) SubscribeStatus() *Subscription { return c.subscribe(statusSub) }

// subscribe waits until the actor has the subscription: a conversation that ends first
// (with the request unhandled in its inbox) would never tell it Closed.
func (c *Conversation) subscribe(kind subKind) *Subscription {
	s := &Subscription{c: c, box: mailbox.New[Event](), kind: kind}
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
	m.s.box.Post(c.snapshot(m.s.kind))
	c.st.subs = append(c.st.subs, m.s)
}

// snapshot is where the conversation stands, for a subscription of kind.
func (c *Conversation) snapshot(kind subKind) Snapshot {
	snap := Snapshot{
		Ready: c.st.proc != nil && !c.st.starting, Starting: c.st.starting, Failed: c.st.start,
		Session: c.st.session, Queue: append([]Prompt(nil), c.st.queue...),
		SignIn: c.st.wantSignIn, SigningIn: c.st.signIn != nil, SignInMethod: c.st.signInWith,
	}
	if c.st.starting {
		snap.Start, snap.Progress = c.st.startEv, c.st.progress
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
	if kind != statusSub {
		snap.Transcript = c.st.transcript.updates()
	}
	if kind == relaySub {
		snap.Terminals = c.st.released.copy()
		snap.Refusals = slices.Clone(c.st.refusals)
	}
	return snap
}

// LastActive is when the conversation last changed: the agent's last update, or the
// last prompt that started.
func (c *Conversation) LastActive(ctx context.Context) (time.Time, error) {
	reply := make(chan time.Time, 1)
	return roundTrip(ctx, c, lastActiveMsg{reply}, reply)
}

type lastActiveMsg struct{ reply chan<- time.Time }

func (m lastActiveMsg) handle(c *Conversation) {
	c.touch()
	m.reply <- c.st.updated
}

type unsubscribeMsg struct{ s *Subscription }

func (m unsubscribeMsg) handle(c *Conversation) {
	c.st.subs = slices.DeleteFunc(c.st.subs, func(s *Subscription) bool { return s == m.s })
}
