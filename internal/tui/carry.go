package tui

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/chatcmd"
	"github.com/parley-acp/parley/internal/conversation"
)

// /fork, /rewind and /handoff: chatcmd and the conversation's keeper do them; a hand-off
// opens the other agent's conversation beside this one (Options.Handoff) and switches to
// it, so the one left stays on screen.

func (m *model) forkCommand() tea.Cmd {
	cv := m.cur()
	k := cv.conv.Keeper
	return m.wait(cv, func(ctx context.Context) (string, error) {
		s, carried, err := chatcmd.Fork(ctx, k)
		if err != nil {
			return "", err
		}
		return chatcmd.CarriedText(carried, s), nil
	})
}

func (m *model) rewindCommand(turn int) tea.Cmd {
	cv := m.cur()
	conv, k := cv.conv.Conversation, cv.conv.Keeper
	return m.wait(cv, func(ctx context.Context) (string, error) {
		_, s, carried, err := chatcmd.Rewind(ctx, conv, k, turn)
		if ce, ok := errors.AsType[*changes.ConflictError](err); ok {
			return "", fmt.Errorf("%v (/diff shows the file; parley never overwrites what changed since; the conversation was not rewound)", ce)
		}
		if err != nil {
			return "", err // the conversation reports the undo (ChangesUndone)
		}
		return chatcmd.CarriedText(carried, s), nil
	})
}

func (m *model) handoffCommand(agent string) tea.Cmd {
	cv := m.cur()
	if m.opts.Handoff == nil {
		cv.notice("/handoff is not offered here.", true)
		return nil
	}
	if agent == "" {
		cv.notice("/handoff needs the agent to hand the conversation to (/agent lists them).", true)
		return nil
	}
	k, handoff, ctx := cv.conv.Keeper, m.opts.Handoff, m.ctx
	return func() tea.Msg {
		if k == nil {
			return startedMsg{err: chatcmd.ErrNotKept}
		}
		carried, err := k.Plan(ctx, conversation.CarryPlan{Kind: conversation.CarryHandoff})
		if err != nil {
			return startedMsg{err: err}
		}
		c, err := handoff(agent, carried)
		return startedMsg{conv: c, err: err, note: chatcmd.HandoffText(carried, agent)}
	}
}
