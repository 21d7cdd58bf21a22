package linechat

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/chatcmd"
)

// The line chat's commands: parsed by chatcmd, done by chatcmd's functions over the
// conversation where they act on it, and said here as lines.

// command runs a line that starts with "/": one of parley's commands, or the agent's.
func (c *chat) command(ctx context.Context, line string) error {
	call, err := chatcmd.Parse(line, chatcmd.Line)
	if ue, ok := errors.AsType[*chatcmd.UnknownError](err); ok {
		switch {
		case c.signIn != nil:
			c.con.Say("parley: sign in first (/login), or /quit")
			c.promptIfIdle()
			return nil
		case ue.Suggestion == "" || c.agentHas(ue.Name):
			c.send(line) // the agent's own command (an agent may not list them all)
			return nil
		}
	}
	if err == nil {
		err = c.run(ctx, call)
	}
	if errors.Is(err, errQuit) {
		return err
	}
	if errors.Is(err, errAsking) {
		return nil // a question is on screen
	}
	if err != nil {
		c.con.Say("parley: %v", err)
	}
	c.drain()
	c.promptIfIdle()
	return nil
}

// agentHas reports whether the agent advertises the command.
func (c *chat) agentHas(name string) bool {
	for _, cmd := range c.session.Commands {
		if cmd.Name == name {
			return true
		}
	}
	return false
}

func (c *chat) run(ctx context.Context, call chatcmd.Call) error {
	arg := call.Arg(0)
	switch call.Cmd.Name {
	case "quit":
		return errQuit
	case "help":
		return c.help(arg)
	case "login":
		return c.login(arg)
	case "config":
		return c.config(ctx, arg, call.Arg(1))
	case "mode":
		return c.choose(ctx, false, arg)
	case "model":
		return c.choose(ctx, true, arg)
	case "sessions":
		return c.sessions(ctx, arg, call.Arg(1))
	case "load":
		return c.load(ctx, arg)
	case "new":
		return c.reopen(ctx)
	case "changes":
		return c.listChanges(ctx)
	case "diff":
		return c.showDiff(ctx, arg)
	case "undo":
		return c.undo(ctx, arg, false)
	case "rewind":
		return c.rewind(ctx, arg)
	case "fork":
		return c.fork(ctx)
	case "handoff":
		return c.handoff(ctx, arg)
	case "keep":
		return c.keep(ctx, arg)
	case "find":
		c.findCommand(arg)
		return nil
	}
	return fmt.Errorf("/%s is not offered here", call.Cmd.Name) // the table and this switch disagree
}

// help lists parley's commands and the agent's, or explains one of parley's.
func (c *chat) help(name string) error {
	if name != "" {
		cmd, ok := chatcmd.Lookup(strings.TrimPrefix(name, "/"))
		if !ok || !cmd.Offered(chatcmd.Line) {
			return &chatcmd.UnknownError{Name: strings.TrimPrefix(name, "/"), Suggestion: chatcmd.Suggest(strings.TrimPrefix(name, "/"), chatcmd.Line)}
		}
		text := cmd.Usage() + "  " + cmd.Summary
		if cmd.Help != "" {
			text += "\n" + cmd.Help
		}
		c.con.Say("%s", text)
		return nil
	}
	var b strings.Builder
	b.WriteString("parley commands:")
	for _, cmd := range chatcmd.For(chatcmd.Line) {
		b.WriteString(" " + cmd.Usage())
	}
	if cmds := c.session.Commands; len(cmds) > 0 {
		b.WriteString("\nthe agent's commands:")
		for _, cmd := range cmds {
			fmt.Fprintf(&b, "\n  /%-20s %s", cmd.Name, cmd.Description)
		}
	}
	c.con.Say("%s", b.String())
	return nil
}

// showChoices lists the values with the current one starred.
func (c *chat) showChoices(ch chatcmd.Choices) {
	var lines []string
	for _, it := range ch.Items {
		mark := "  "
		if it.Current {
			mark = "* "
		}
		lines = append(lines, fmt.Sprintf("%s%-24s %s", mark, it.ID, it.Name))
	}
	c.con.Say("%s:\n%s", ch.Title, strings.Join(lines, "\n"))
}

// choose shows (id "") or switches the mode, or the model.
func (c *chat) choose(ctx context.Context, model bool, id string) error {
	list := chatcmd.Modes
	if model {
		list = chatcmd.Models
	}
	ch, err := list(c.session)
	if err != nil {
		return err
	}
	if id == "" {
		c.showChoices(ch)
		return nil
	}
	set, err := chatcmd.Choose(ctx, c.conv, ch, model, id)
	if err != nil {
		return err
	}
	c.session = set.Session
	switch {
	case set.Option != nil: // read the value back: the agent decides what was set
		c.con.Say("%s: %s", set.Option.Name, set.Option.Select.CurrentValue)
	case ch.Option != nil:
	case model:
		c.con.Say("model: %s", id)
	default:
		c.con.Say("mode: %s", id)
	}
	return nil
}

// config lists the settings (id ""), one setting's values (value ""), or sets one.
func (c *chat) config(ctx context.Context, id, value string) error {
	settings := c.session.Settings()
	switch {
	case id == "":
		if len(settings) == 0 {
			return errors.New("this agent offers no settings")
		}
		var lines []string
		for _, st := range settings {
			line := fmt.Sprintf("  %-20s %-24s %s", st.ID, OneLineSafe(st.Name), OneLineSafe(st.Current))
			if st.Category != "" {
				line += "  [" + OneLineSafe(string(st.Category)) + "]"
			}
			lines = append(lines, line)
		}
		c.con.Say("settings (/config ID lists the values; /config ID VALUE sets one):\n%s", strings.Join(lines, "\n"))
		return nil
	case value == "":
		st, ok := c.session.Setting(id)
		if !ok {
			_, _, err := c.session.CheckSetting(id, "")
			return err
		}
		c.showSetting(st)
		return nil
	}
	s, st, ok, err := chatcmd.Config(ctx, c.conv, id, value)
	if err != nil {
		return err
	}
	c.session = s
	if ok {
		c.con.Say("%s: %s", OneLineSafe(st.Name), OneLineSafe(st.Current))
	}
	return nil
}

// sessions lists the agent's sessions, or closes or deletes one.
func (c *chat) sessions(ctx context.Context, verb, id string) error {
	list, did, err := chatcmd.Sessions(ctx, c.conv, c.session, verb, id)
	if err != nil {
		return err
	}
	if did != "" {
		c.con.Say("(session %s %s)", id, did)
		return nil
	}
	var lines []string
	for _, si := range list {
		lines = append(lines, fmt.Sprintf("  %-38s %-20s %s", si.SessionID, si.UpdatedAt, si.Title))
	}
	if len(lines) == 0 {
		lines = append(lines, "  (none)")
	}
	c.con.Say("sessions in %s:\n%s", c.session.Cwd, strings.Join(lines, "\n"))
	return nil
}

// load reopens one of the agent's sessions.
func (c *chat) load(ctx context.Context, id string) error {
	s, err := chatcmd.Load(ctx, c.conv, c.session, id)
	c.drain() // the replay
	if err != nil {
		return err
	}
	c.session = s
	c.con.Say("(session %s)", id)
	return nil
}

// reopen starts a new session (/new).
func (c *chat) reopen(ctx context.Context) error {
	s, err := c.conv.NewSession(ctx)
	if err != nil {
		return err
	}
	c.session = s
	c.con.Say("(new session %s)", s.ID)
	return nil
}
