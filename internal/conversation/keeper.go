package conversation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/toolstate"
)

// Keeper writes a conversation's transcript to the store as its turns end (see
// carry.go): one subscriber, which every front-end that holds a conversation starts
// (run, chat, the web chat and parley acp). The transcript of a session is found by the
// agent's session id in the workspace, so a session that carries one on (resumed,
// loaded) goes on writing it, and one a carry made (a fork, a seeded session) writes the
// transcript the carry created for it. A session with no turn gets no transcript.
type Keeper struct {
	conv      *Conversation
	store     *store.Store
	agent     string
	workspace string
	logger    *slog.Logger
	budget    int
	done      chan struct{}
	sync      chan chan struct{}

	// The keeper's goroutine's own.
	recorded bool
	session  Session
	turn     *keptTurn

	mu       sync.Mutex
	id       string     // the transcript of the current session, once known
	expected *CarryFrom // what the next session that carries a conversation on starts with
}

// KeeperOptions say whose transcript a Keeper writes.
type KeeperOptions struct {
	Store     *store.Store
	Agent     string // as the user named it
	Workspace string // the session's working directory
	Logger    *slog.Logger
	// SeedBudget bounds the seed of the sessions Carry opens (0: DefaultSeedBudget).
	SeedBudget int
	// From, when set, is the conversation the first session carries on (see Expect).
	From *CarryFrom
}

// Keep starts keeping conv's transcript. Close it after the conversation (it writes what
// the conversation's last events say, then returns).
func Keep(conv *Conversation, o KeeperOptions) *Keeper {
	k := &Keeper{conv: conv, store: o.Store, agent: o.Agent, workspace: o.Workspace, logger: o.Logger, done: make(chan struct{}), sync: make(chan chan struct{}),
		expected: o.From, budget: o.SeedBudget}
	if k.logger == nil {
		k.logger = slog.New(slog.DiscardHandler)
	}
	sub := conv.Subscribe()
	go k.run(sub)
	return k
}

// Close waits until the keeper has written the conversation's last turn; the
// conversation must be closed first (or closing).
func (k *Keeper) Close() { <-k.done }

// Expect says that the next session which carries a conversation on (Session.Carried)
// carries from on: its transcript starts with from's turns, and names from as where it
// came from. Call it before Conversation.Carry.
func (k *Keeper) Expect(from CarryFrom) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.expected = &from
}

// Plan says how a new session carries the current conversation on (see PlanCarry),
// once what the views saw of it is written.
func (k *Keeper) Plan(ctx context.Context, p CarryPlan) (Carried, error) {
	if err := k.Sync(ctx); err != nil {
		return Carried{}, err
	}
	id := k.ID()
	if id == "" {
		return Carried{}, errors.New("there is nothing to carry on yet: no turn of this conversation is kept (send a prompt first)")
	}
	t, ok, err := k.store.FindTranscript(ctx, id)
	if err != nil {
		return Carried{}, err
	}
	if !ok {
		return Carried{}, fmt.Errorf("conversation %s is no longer kept", id)
	}
	if p.Budget == 0 {
		p.Budget = k.budget
	}
	return PlanCarry(ctx, k.store, t, p)
}

// Carry goes on with the conversation in a new session of the same agent, as p says
// (CarryFork, CarryRewind; see Conversation.Carry), the record of changes going on: the
// new session's transcript starts with the turns it carries on. The old transcript stays.
func (k *Keeper) Carry(ctx context.Context, p CarryPlan) (Session, Carried, error) {
	c, err := k.Plan(ctx, p)
	if err != nil {
		return Session{}, c, err
	}
	c.From.SameRecord = true
	k.Expect(c.From)
	s, err := k.conv.Carry(ctx, c.Carry)
	if err != nil {
		k.mu.Lock()
		k.expected = nil
		k.mu.Unlock()
		return s, c, err
	}
	return s, c, nil
}

// ID is the transcript the keeper writes now ("" before the session's first turn ended).
func (k *Keeper) ID() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.id
}

// keptTurn is the turn being gathered.
type keptTurn struct {
	id     int
	prompt string
	reply  strings.Builder
	tools  []store.TranscriptTool
	byID   map[acp.ToolCallID]int
	stop   string
	ended  bool
}

func (k *Keeper) run(sub *Subscription) {
	defer close(k.done)
	defer sub.Close()
	k.recorded = k.conv.Recorded()
	for {
		var synced chan struct{}
		select {
		case <-sub.Ready():
		case synced = <-k.sync:
		}
		closed := k.handle(sub.Take())
		if synced != nil {
			close(synced)
		}
		if closed {
			return
		}
	}
}

// Sync returns once the keeper has written what the conversation's events said until
// now: the turn a view saw end is in the store.
func (k *Keeper) Sync(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case k.sync <- done:
	case <-k.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-k.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// handle writes what the events say; it reports true at the conversation's end.
func (k *Keeper) handle(evs []Event) bool {
	for _, ev := range evs {
		switch e := ev.(type) {
		case Snapshot:
			if e.Ready {
				k.sessionIs(e.Session)
			}
		case Ready:
			k.sessionIs(e.Session)
		case SessionChanged:
			k.sessionIs(e.Session)
		case TurnStarted:
			if !e.Replay {
				k.turn = &keptTurn{id: e.Prompt.ID, prompt: e.Prompt.Text(), byID: map[acp.ToolCallID]int{}}
			}
		case TurnUpdate:
			if k.turn != nil && e.Turn == k.turn.id {
				k.turn.apply(e.Update)
			}
		case TurnEnded:
			t := k.turn
			if t == nil || e.Turn != t.id || e.Replay {
				continue
			}
			t.ended, t.stop = true, string(e.StopReason)
			if e.Err != nil {
				t.stop = "error"
			}
			if !k.recorded {
				k.write(t, 0)
				k.turn = nil
			}
		case TurnChanges:
			if t := k.turn; t != nil && t.ended && e.Turn == t.id {
				k.write(t, e.Record.Number)
				k.turn = nil
			}
		case Closed:
			if t := k.turn; t != nil && t.ended {
				k.write(t, 0)
			}
			return true
		}
	}
	return false
}

// What a kept turn holds at most: a transcript is for reading back and for seeding a
// new session (which summarises far below this), and an agent's flood must not grow it
// (or the process) without end.
const (
	maxKeptReply = 256 << 10 // bytes of the agent's text
	maxKeptTools = 512       // tool calls
)

// cutNote ends a reply the keeper stopped taking.
const cutNote = "\n[… the rest of the reply is not kept]"

func (t *keptTurn) apply(u toolstate.Event) {
	switch u.Kind {
	case toolstate.TextDelta:
		switch room := maxKeptReply - t.reply.Len(); {
		case room <= 0:
		case len(u.Text) < room:
			t.reply.WriteString(u.Text)
		default:
			t.reply.WriteString(u.Text[:room])
			t.reply.WriteString(cutNote)
		}
	case toolstate.ToolStarted, toolstate.ToolUpdated, toolstate.PermissionRequested, toolstate.PermissionDecided:
		if u.Tool == nil {
			return
		}
		if i, ok := t.byID[u.Tool.ID]; ok {
			t.tools[i] = keptTool(u.Tool)
			return
		}
		if len(t.tools) >= maxKeptTools {
			return
		}
		t.byID[u.Tool.ID] = len(t.tools)
		t.tools = append(t.tools, keptTool(u.Tool))
	}
}

// keptTool is what a transcript keeps of a tool call: its title, kind and outcome, not
// its content (which the conversation's own bounded transcript holds while it runs).
func keptTool(c *toolstate.ToolCall) store.TranscriptTool {
	return store.TranscriptTool{Title: c.Title, Kind: string(c.Kind), Status: toolOutcome(c)}
}

// sessionIs follows the session: another one is another transcript (found when its
// first turn ends, or now when it has one), and the agent's title names it.
func (k *Keeper) sessionIs(s Session) {
	was := &k.session
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.ID != was.ID {
		k.mu.Lock()
		k.id = ""
		k.mu.Unlock()
		t, ok, err := k.store.TranscriptOfSession(ctx, k.workspace, k.agent, string(s.ID))
		switch {
		case err != nil:
			k.logger.Warn("the conversation's transcript cannot be read", "error", err)
		case ok:
			k.mu.Lock()
			k.id = t.ID
			k.expected = nil
			k.mu.Unlock()
			k.store.TouchTranscript(ctx, t.ID)
		case s.Carried != "":
			k.mu.Lock()
			from := k.expected
			k.expected = nil
			k.mu.Unlock()
			if from != nil {
				k.carried(ctx, s, *from)
			}
		}
	}
	if s.Title != "" && s.Title != was.Title {
		if id := k.ID(); id != "" {
			k.store.SetTranscriptTitle(ctx, id, s.Title)
		}
	}
	*was = s
}

// carried starts the transcript of a session that carries from on.
func (k *Keeper) carried(ctx context.Context, s Session, from CarryFrom) {
	title := s.Title
	if title == "" && len(from.Turns) > 0 {
		title = firstLine(from.Turns[0].Prompt)
	}
	turns := make([]store.TranscriptTurn, len(from.Turns))
	for i, t := range from.Turns {
		if !from.SameRecord {
			t.ChangeTurn = 0 // numbers in another record of changes
		}
		turns[i] = t
	}
	k.create(ctx, store.Transcript{Workspace: k.workspace, Agent: k.agent, AgentSession: string(s.ID),
		Title: title, FromID: from.ID, FromTurn: len(from.Turns), How: s.Carried}, turns)
}

// create starts the session's transcript and makes it the one the Keeper writes to; ""
// when it could not be kept (said in the log).
func (k *Keeper) create(ctx context.Context, t store.Transcript, turns []store.TranscriptTurn) string {
	id, err := k.store.CreateTranscript(ctx, t, turns)
	if err != nil {
		k.logger.Warn("the conversation's transcript is not kept", "error", err)
		return ""
	}
	k.mu.Lock()
	k.id = id
	k.mu.Unlock()
	return id
}

// write adds the turn to the session's transcript, which it creates first if need be.
func (k *Keeper) write(t *keptTurn, changeTurn int) {
	s := k.session
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kept := store.TranscriptTurn{Prompt: t.prompt, Reply: t.reply.String(), Tools: t.tools, Stop: t.stop, ChangeTurn: changeTurn, EndedAt: time.Now()}
	title := firstLine(t.prompt)
	if s.Title != "" {
		title = s.Title
	}
	id := k.ID()
	if id == "" {
		if id = k.create(ctx, store.Transcript{Workspace: k.workspace, Agent: k.agent, AgentSession: string(s.ID), Title: title}, nil); id == "" {
			return
		}
	}
	if err := k.store.AppendTranscriptTurn(ctx, id, title, kept); err != nil {
		k.logger.Warn("a turn of the conversation is not kept", "error", err)
	}
}

// toolOutcome is how a tool call ended, in a word.
func toolOutcome(t *toolstate.ToolCall) string {
	switch {
	case t.Confirmation != nil && strings.HasPrefix(t.Confirmation.Outcome, "reject"):
		return "rejected"
	case t.State == toolstate.Completed && t.IsError:
		return "failed"
	}
	return t.State.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return cut(s, 80)
}
