package conversation

import (
	"context"
	"errors"
	"fmt"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/store"
)

// Carrying a conversation on: continuing it in a later run, forking it, handing it to
// another agent, rewinding it.
//
// parley keeps every conversation it holds as a client host in its store, per workspace
// (internal/store's transcripts: the user's prompts, the agent's replies, the tool calls
// with their outcome, each turn's number in the record of changes; keeper.go writes them
// as turns end, for every front-end). A conversation goes on in a new session in one of
// the agent's own ways where initialize offered it, else by parley's:
//
//   - resume or load (sessionCapabilities.resume, loadSession): the same session of the
//     agent, which remembers everything (session/resume is tried first where the caller
//     prefers no replay: parley run);
//   - fork (sessionCapabilities.fork, unstable in ACP): a new session of the agent that
//     starts with the conversation; parley sends the workspace directory as its cwd;
//   - seeded: a new session whose first prompt starts with the transcript as text
//     (seed.go), then the user's prompt; "summarised" when the transcript did not fit
//     the budget (the last turns whole, the earlier ones cut down, deterministically).
//
// A seeded session loses what the agent kept beyond the words: its own tool results in
// full, its reasoning, files it read, its context caches; it gains only what the
// transcript says. A rewind cannot use the agent's fork (a fork starts from the end), so
// it is always seeded with the turns before the one rewound; a hand-off to another agent
// is seeded too. What came after stays reachable: the old conversation keeps its
// transcript (parley sessions), and the agent still has its session.

// How a session carries a conversation on (Session.Carried).
const (
	CarriedResume     = "resume"
	CarriedLoad       = "load"
	CarriedFork       = "fork"
	CarriedSeeded     = "seeded"
	CarriedSummarised = "summarised"
)

// Carry says how a new session carries an earlier conversation on: the agent's session
// Resume (session/resume, else session/load) or Fork (session/fork) where the agent
// offers that, else (or when it fails) a new session whose first prompt starts with
// Seed. With neither Resume nor Fork, the session is seeded.
type Carry struct {
	Resume     acp.SessionID
	Fork       acp.SessionID
	Seed       []acp.ContentBlock
	Summarised bool // Seed is a summary of the transcript
	// PreferResume tries session/resume before session/load (no replay to show).
	PreferResume bool
}

// opening is how open opens a session: a new one (the zero value), the agent's session
// load (resume or load), a fork of fork, or a new one seeded.
type opening struct {
	load, fork   acp.SessionID
	seed         []acp.ContentBlock
	summarised   bool
	preferResume bool
}

func (c Carry) opening() opening {
	o := opening{load: c.Resume, fork: c.Fork, seed: c.Seed, summarised: c.Summarised, preferResume: c.PreferResume}
	if o.seed == nil && o.load == "" && o.fork == "" {
		o.seed = []acp.ContentBlock{} // a seed of nothing: a plain new session, said "seeded"
	}
	return o
}

// opening is the first session's: Carry's, or Load's.
func (o Options) opening() opening {
	if o.Carry != nil {
		return o.Carry.opening()
	}
	return opening{load: o.Load}
}

// seeded opens a new session (newSession) that will take o's seed before its first
// prompt; why is the agent's own way's failure, if that was tried.
func (c *Conversation) seeded(s *Session, o opening, newSession func() error, why error) error {
	s.Carried = ""
	if err := newSession(); err != nil || o.seed == nil { // nil: nothing to carry on
		return err
	}
	s.Carried, s.CarryErr = CarriedSeeded, why
	if o.summarised {
		s.Carried = CarriedSummarised
	}
	if len(o.seed) > 0 {
		s.seed = o.seed
	}
	return nil
}

// reopened says the session is one the agent had (resume, load), or forked from one:
// the agent knows a conversation.
func (s Session) reopened() bool {
	return s.Carried == CarriedResume || s.Carried == CarriedLoad || s.Carried == CarriedFork
}

// fresh says no prompt has gone to the session: session/new opened it.
func (s Session) fresh() bool { return !s.reopened() }

// noteCarry tells the views when the agent's own way failed and the session was seeded.
func (c *Conversation) noteCarry(s Session) {
	if s.CarryErr != nil {
		c.emit(Notice{Text: fmt.Sprintf("The agent could not carry the conversation on itself (%v): its new session starts with the transcript instead.", s.CarryErr)})
	}
}

// Carry leaves the session for a new one that carries the conversation on as carry says
// (see Carry), on the same agent; it returns the new session (Carried says how). The
// session left stays with the agent. Refused while a turn runs.
func (c *Conversation) Carry(ctx context.Context, carry Carry) (Session, error) {
	if carry.Resume != "" && carry.Fork != "" {
		return Session{}, errors.New("carry on by resuming or by forking, not both")
	}
	return c.reopen(ctx, carry.opening())
}

// What a new session does with the conversation it carries on (CarryPlan.Kind).
const (
	CarryContinue = "continue" // the same agent goes on with it: resume or load, else seeded
	CarryFork     = "fork"     // the same agent, a new session: fork, else seeded
	CarryHandoff  = "handoff"  // another agent: seeded
	CarryRewind   = "rewind"   // from before a turn: seeded with the turns before it
)

// CarryPlan asks PlanCarry for a way to carry a kept conversation on.
type CarryPlan struct {
	Kind   string
	Before int // for CarryRewind: the turn (its number in the record of changes, as /changes lists them)
	Budget int // of the seed, in characters (0: DefaultSeedBudget)
}

// Carried is what PlanCarry found: how to open the new session (Options.Carry or
// Conversation.Carry), what its keeper starts the new transcript with (Keeper.Expect),
// and the seed, to show when it is a summary.
type Carried struct {
	Carry Carry
	From  CarryFrom
	Seed  Seed
}

// CarryFrom is the kept conversation a new session carries on, and the turns of it the
// new one starts with.
type CarryFrom struct {
	ID    string
	Turns []store.TranscriptTurn
	// SameRecord: the new session's turns go on in the record of changes the turns were
	// numbered in (a chat's fork or rewind), so their numbers still hold.
	SameRecord bool
	// ContinuesRecord: the new session goes on with the conversation (a continue, a
	// hand-off), so its turns go on in the conversation's record of changes, the one
	// Agent had in AgentSession (changes.Record.ContinueFrom); a fork or a rewind starts
	// its own.
	ContinuesRecord     bool
	Agent, AgentSession string
}

// PlanCarry reads the kept conversation t and says how a new session carries it on.
func PlanCarry(ctx context.Context, st *store.Store, t store.Transcript, p CarryPlan) (Carried, error) {
	turns, err := st.TranscriptTurns(ctx, t.ID)
	if err != nil {
		return Carried{}, err
	}
	if p.Kind == CarryRewind {
		if p.Before < 1 {
			return Carried{}, errors.New("rewind to before which turn? (a number from 1)")
		}
		turns = TurnsBefore(turns, p.Before)
	}
	seed := MakeSeed(turns, SeedOptions{Budget: p.Budget, Agent: t.Agent})
	c := Carried{Seed: seed, From: CarryFrom{ID: t.ID, Turns: turns, Agent: t.Agent, AgentSession: t.AgentSession,
		ContinuesRecord: p.Kind == CarryContinue || p.Kind == CarryHandoff}}
	c.Carry = Carry{Seed: seed.Blocks(), Summarised: seed.Summarised, PreferResume: true}
	switch p.Kind {
	case CarryContinue:
		c.Carry.Resume = acp.SessionID(t.AgentSession)
	case CarryFork:
		c.Carry.Fork = acp.SessionID(t.AgentSession)
	case CarryHandoff, CarryRewind:
	default:
		return Carried{}, fmt.Errorf("carry a conversation on how? %q is none of continue, fork, handoff, rewind", p.Kind)
	}
	if c.Carry.Resume == "" && c.Carry.Fork == "" && p.Kind != CarryHandoff && p.Kind != CarryRewind {
		return Carried{}, fmt.Errorf("conversation %s has no session of the agent's to %s", t.ID, p.Kind)
	}
	return c, nil
}

// TurnsBefore is the turns before turn n of the record of changes: those the record
// numbered below n, or, for a conversation whose turns it did not number, the first n-1.
func TurnsBefore(turns []store.TranscriptTurn, n int) []store.TranscriptTurn {
	numbered := false
	for i, t := range turns {
		if t.ChangeTurn != 0 {
			numbered = true
			if t.ChangeTurn >= n {
				return turns[:i]
			}
		}
	}
	if numbered {
		return turns
	}
	return turns[:min(n-1, len(turns))]
}
