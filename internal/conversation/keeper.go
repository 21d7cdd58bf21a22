package conversation

import (
	"context"
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
	done      chan struct{}

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
	// From, when set, is the conversation the first session carries on (see Expect).
	From *CarryFrom
}

// Keep starts keeping conv's transcript. Close it after the conversation (it writes what
// the conversation's last events say, then returns).
func Keep(conv *Conversation, o KeeperOptions) *Keeper {
	k := &Keeper{conv: conv, store: o.Store, agent: o.Agent, workspace: o.Workspace, logger: o.Logger, done: make(chan struct{}), expected: o.From}
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
	tools  []*toolstate.ToolCall
	byID   map[acp.ToolCallID]int
	stop   string
	ended  bool
}

func (k *Keeper) run(sub *Subscription) {
	defer close(k.done)
	defer sub.Close()
	var session Session
	var turn *keptTurn
	recorded := k.conv.Recorded()
	for {
		<-sub.Ready()
		for _, ev := range sub.Take() {
			switch e := ev.(type) {
			case Snapshot:
				if e.Ready {
					k.sessionIs(e.Session, &session)
				}
			case Ready:
				k.sessionIs(e.Session, &session)
			case SessionChanged:
				k.sessionIs(e.Session, &session)
			case TurnStarted:
				if !e.Replay {
					turn = &keptTurn{id: e.Prompt.ID, prompt: e.Prompt.Text(), byID: map[acp.ToolCallID]int{}}
				}
			case TurnUpdate:
				if turn != nil && e.Turn == turn.id {
					turn.apply(e.Update)
				}
			case TurnEnded:
				if turn == nil || e.Turn != turn.id || e.Replay {
					continue
				}
				turn.ended, turn.stop = true, string(e.StopReason)
				if e.Err != nil {
					turn.stop = "error"
				}
				if !recorded {
					k.write(session, turn, 0)
					turn = nil
				}
			case TurnChanges:
				if turn != nil && turn.ended && e.Turn == turn.id {
					k.write(session, turn, e.Record.Number)
					turn = nil
				}
			case Closed:
				if turn != nil && turn.ended {
					k.write(session, turn, 0)
				}
				return
			}
		}
	}
}

func (t *keptTurn) apply(u toolstate.Event) {
	switch u.Kind {
	case toolstate.TextDelta:
		t.reply.WriteString(u.Text)
	case toolstate.ToolStarted, toolstate.ToolUpdated, toolstate.PermissionRequested, toolstate.PermissionDecided:
		if u.Tool == nil {
			return
		}
		if i, ok := t.byID[u.Tool.ID]; ok {
			t.tools[i] = u.Tool
			return
		}
		t.byID[u.Tool.ID] = len(t.tools)
		t.tools = append(t.tools, u.Tool)
	}
}

// sessionIs follows the session: another one is another transcript (found when its
// first turn ends, or now when it has one), and the agent's title names it.
func (k *Keeper) sessionIs(s Session, was *Session) {
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
	id, err := k.store.CreateTranscript(ctx, store.Transcript{Workspace: k.workspace, Agent: k.agent, AgentSession: string(s.ID),
		Title: title, FromID: from.ID, FromTurn: len(from.Turns), How: s.Carried}, turns)
	if err != nil {
		k.logger.Warn("the conversation's transcript is not kept", "error", err)
		return
	}
	k.mu.Lock()
	k.id = id
	k.mu.Unlock()
}

// write adds the turn to the session's transcript, which it creates first if need be.
func (k *Keeper) write(s Session, t *keptTurn, changeTurn int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kept := store.TranscriptTurn{Prompt: t.prompt, Reply: t.reply.String(), Stop: t.stop, ChangeTurn: changeTurn, EndedAt: time.Now()}
	for _, tool := range t.tools {
		kept.Tools = append(kept.Tools, store.TranscriptTool{Title: tool.Title, Kind: string(tool.Kind), Status: toolOutcome(tool)})
	}
	title := firstLine(t.prompt)
	if s.Title != "" {
		title = s.Title
	}
	id := k.ID()
	if id == "" {
		var err error
		id, err = k.store.CreateTranscript(ctx, store.Transcript{Workspace: k.workspace, Agent: k.agent, AgentSession: string(s.ID), Title: title}, nil)
		if err != nil {
			k.logger.Warn("the conversation's transcript is not kept", "error", err)
			return
		}
		k.mu.Lock()
		k.id = id
		k.mu.Unlock()
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
