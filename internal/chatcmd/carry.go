package chatcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/conversation"
)

// What /fork, /rewind and /handoff do to the conversation (see
// internal/conversation/carry.go); the front-ends say the results.

// ErrNotKept is the answer of a command that carries a conversation on when parley keeps
// no transcript of it (its store could not be opened).
var ErrNotKept = errors.New("parley keeps no transcript of this conversation (its database could not be opened), so it cannot carry it on")

// Fork is /fork: the conversation goes on in a new session with the same agent.
func Fork(ctx context.Context, k *conversation.Keeper) (conversation.Session, conversation.Carried, error) {
	if k == nil {
		return conversation.Session{}, conversation.Carried{}, ErrNotKept
	}
	return k.Carry(ctx, conversation.CarryPlan{Kind: conversation.CarryFork})
}

// Rewind is /rewind TURN: the files back to before the turn (Undo with rewind), then the
// conversation: a new session seeded with the turns before it. A *changes.ConflictError
// says why the files were not (all) brought back; the conversation is then left as it is.
func Rewind(ctx context.Context, conv *conversation.Conversation, k *conversation.Keeper, turn int) (changes.UndoResult, conversation.Session, conversation.Carried, error) {
	if turn <= 0 {
		return changes.UndoResult{}, conversation.Session{}, conversation.Carried{}, errors.New("/rewind needs the number of a turn (see /changes)")
	}
	if k == nil {
		return changes.UndoResult{}, conversation.Session{}, conversation.Carried{}, ErrNotKept
	}
	// The plan first: a conversation that cannot be carried on is not rewound halfway.
	if _, err := k.Plan(ctx, conversation.CarryPlan{Kind: conversation.CarryRewind, Before: turn}); err != nil {
		return changes.UndoResult{}, conversation.Session{}, conversation.Carried{}, err
	}
	var res changes.UndoResult
	if conv.Recorded() {
		var err error
		res, err = Undo(ctx, conv, Target{Turn: turn}, true)
		if err != nil && !errors.Is(err, changes.ErrNothingToUndo) {
			return res, conversation.Session{}, conversation.Carried{}, err
		}
	}
	s, c, err := k.Carry(ctx, conversation.CarryPlan{Kind: conversation.CarryRewind, Before: turn})
	return res, s, c, err
}

// CarriedText says how a session carries the conversation on, for a chat.
func CarriedText(c conversation.Carried, s conversation.Session) string {
	turns := fmt.Sprintf("%d turns", len(c.From.Turns))
	if len(c.From.Turns) == 1 {
		turns = "1 turn"
	}
	switch s.Carried {
	case conversation.CarriedFork:
		return fmt.Sprintf("Going on in a fork of the conversation (%s): the agent's session %s (session/fork). The original is kept (parley sessions).", turns, s.ID)
	case conversation.CarriedResume, conversation.CarriedLoad:
		return fmt.Sprintf("Going on in the agent's session %s (session/%s).", s.ID, s.Carried)
	case conversation.CarriedSummarised:
		return fmt.Sprintf("Going on in a new session (%s); its first prompt will carry this summary of the transcript (%d characters):\n%s",
			s.ID, len(c.Seed.Text), strings.TrimRight(c.Seed.Text, "\n"))
	}
	if len(c.From.Turns) == 0 {
		return fmt.Sprintf("Going on in a new session (%s), from the start of the conversation.", s.ID)
	}
	return fmt.Sprintf("Going on in a new session (%s); its first prompt will carry the transcript of %s (%d characters).", s.ID, turns, len(c.Seed.Text))
}

// HandoffText says what a hand-off to agent carries, before its session opens.
func HandoffText(c conversation.Carried, agent string) string {
	turns := fmt.Sprintf("%d turns", len(c.From.Turns))
	if len(c.From.Turns) == 1 {
		turns = "1 turn"
	}
	if c.Seed.Summarised {
		return fmt.Sprintf("The conversation (%s) goes on with %s; its first prompt will carry this summary of the transcript (%d characters):\n%s",
			turns, agent, len(c.Seed.Text), strings.TrimRight(c.Seed.Text, "\n"))
	}
	return fmt.Sprintf("The conversation (%s) goes on with %s; its first prompt will carry the transcript (%d characters).", turns, agent, len(c.Seed.Text))
}
