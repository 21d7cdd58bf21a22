package linechat

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/chatcmd"
	"github.com/parley-acp/parley/internal/conversation"
)

// The chat's /fork, /rewind and /handoff (chatcmd and the conversation's keeper do
// them).

// Handed is the conversation a hand-off goes on in: another agent's, started by whoever
// runs the chat (Options.Handoff), which also ends the one left.
type Handed struct {
	Conv    *conversation.Conversation
	Events  Events
	Keeper  *conversation.Keeper
	Session conversation.Session
	Agent   string
}

func (c *chat) fork(ctx context.Context) error {
	s, carried, err := chatcmd.Fork(ctx, c.o.Keeper)
	if err != nil {
		return err
	}
	c.session = s
	c.con.Say("%s", chatcmd.CarriedText(carried, s))
	return nil
}

func (c *chat) rewind(ctx context.Context, arg string) error {
	turn, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(arg), "#"))
	if err != nil {
		return errors.New("/rewind needs the number of a turn (see /changes)")
	}
	res, s, carried, err := chatcmd.Rewind(ctx, c.conv, c.o.Keeper, turn)
	if ce, ok := errors.AsType[*changes.ConflictError](err); ok {
		if ce.Partial != nil {
			c.con.Say("%s", undoneText(*ce.Partial))
		}
		c.con.Say("%s", ConflictText(ce, "/diff FILE shows how a file changed since its turn; the conversation was not rewound."))
		return nil
	}
	if len(res.Turns) > 0 {
		c.con.Say("%s", undoneText(res))
	}
	if err != nil {
		return err
	}
	c.session = s
	c.con.Say("%s", chatcmd.CarriedText(carried, s))
	return nil
}

func (c *chat) handoff(ctx context.Context, agent string) error {
	if c.o.Handoff == nil {
		return errors.New("/handoff is not offered here")
	}
	if c.o.Keeper == nil {
		return chatcmd.ErrNotKept
	}
	carried, err := c.o.Keeper.Plan(ctx, conversation.CarryPlan{Kind: conversation.CarryHandoff})
	if err != nil {
		return err
	}
	h, err := c.o.Handoff(ctx, agent, carried)
	if err != nil {
		return err
	}
	c.conv, c.sub, c.o.Keeper, c.session, c.o.Agent = h.Conv, h.Events, h.Keeper, h.Session, h.Agent
	c.con.Say("%s goes on with the conversation. %s", h.Session.Agent.Title, chatcmd.CarriedText(carried, h.Session))
	return nil
}
