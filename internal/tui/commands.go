package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/chatcmd"
	"github.com/parley-acp/parley/internal/toolui"
)

// commands are the slash commands the composer completes: parley's and the agent's.
func (m *model) commands() []command { return commandsFor(m.cur().session.Commands) }

// parleyCommand runs a line that names one of parley's own commands (chatcmd's table);
// ok is false for any other, which goes to the agent as typed. A near miss of one of
// parley's that the agent does not have is not sent: the user is asked what they meant.
func (m *model) parleyCommand(line string) (tea.Cmd, bool) {
	cv := m.cur()
	call, err := chatcmd.Parse(line, chatcmd.TUI)
	if ue, ok := errors.AsType[*chatcmd.UnknownError](err); ok {
		if ue.Suggestion == "" || cv.agentHas(ue.Name) {
			return nil, false
		}
	}
	if err != nil {
		cv.notice(err.Error(), true)
		return nil, true
	}
	arg := call.Arg(0)
	switch call.Cmd.Name {
	case "quit":
		return m.quit(), true
	case "help":
		cv.notice(m.helpText(arg), false)
		return nil, true
	case "find":
		m.finding, m.findQ = true, arg
		cv.tr.find(arg)
		return nil, true
	case "mode":
		return m.chooseCommand(false, arg), true
	case "model":
		return m.chooseCommand(true, arg), true
	case "config":
		return m.configCommand(arg, call.Arg(1)), true
	case "sessions":
		if arg != "" {
			return m.endSession(arg, call.Arg(1)), true
		}
		return m.sessionsPicker(), true
	case "load":
		return m.loadSession(acp.SessionID(arg)), true
	case "new":
		conv := cv.conv.Conversation
		return m.wait(cv, func(ctx context.Context) (string, error) {
			s, err := conv.NewSession(ctx)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("(new session %s)", s.ID), nil
		}), true
	case "agent":
		return m.agentPicker(), true
	case "login":
		return m.loginPicker(arg), true
	case "changes", "diff", "undo", "keep":
		return m.changesCommand(call.Cmd.Name, arg), true
	case "rewind":
		target := chatcmd.ReadTarget(cv.session.Cwd, strings.Fields(arg))
		if target.Turn == 0 {
			cv.notice("/rewind needs the turn to go back to before (/changes lists them).", true)
			return nil, true
		}
		return m.rewindCommand(target.Turn), true
	case "fork":
		return m.forkCommand(), true
	case "handoff":
		return m.handoffCommand(arg), true
	case "copy":
		return m.copyCommand(arg), true
	}
	cv.notice(fmt.Sprintf("/%s is not offered here.", call.Cmd.Name), true) // the table and this switch disagree
	return nil, true
}

// agentHas reports whether the agent advertises the command.
func (cv *convView) agentHas(name string) bool {
	for _, c := range cv.session.Commands {
		if c.Name == name {
			return true
		}
	}
	return false
}

// wait runs f, which waits for the agent, on a command; what it says goes in the
// transcript.
func (m *model) wait(cv *convView, f func(ctx context.Context) (string, error)) tea.Cmd {
	ctx, id := m.ctx, cv.id
	return func() tea.Msg {
		text, err := f(ctx)
		return resultMsg{conv: id, text: text, err: err}
	}
}

// helpColumn is the widest a name in /help's column may be; a longer one has a line of
// its own.
const helpColumn = 22

func (m *model) helpText(name string) string {
	if c, ok := chatcmd.Lookup(strings.TrimPrefix(name, "/")); ok && c.Offered(chatcmd.TUI) {
		text := c.Usage() + "  " + c.Summary
		if c.Help != "" {
			text += "\n" + c.Help
		}
		return text
	}
	keys := [][2]string{
		{"enter", "send (while the agent works: queue; esc takes the queued message back)"},
		{"esc", "stop the turn (after closing a menu and taking back a queued message)"},
		{"shift+enter", "a new line (also alt+enter, ctrl+j); a paste stays one message"},
		{"up/down", "the prompts sent in this workspace"},
		{"ctrl+r", "search them"},
		{"@", "attach a file of the workspace"},
		{"/", "commands"},
		{"ctrl+c", "cancel the turn; twice: quit (also while the cancel is under way)"},
		{"ctrl+o", "expand or fold a tool call or thought"},
		{"alt+up/down", "pick one"},
		{"pgup/pgdown", "scroll (or the mouse wheel; shift+drag selects text)"},
		{"ctrl+f", "find"},
		{"shift+tab", "next mode"},
		{"ctrl+d", "quit on an empty prompt"},
	}
	var ours, theirs [][2]string
	for _, c := range parleyCommands() {
		ours = append(ours, [2]string{strings.TrimSpace("/" + c.name + " " + c.hint), c.desc})
	}
	for _, c := range m.cur().session.Commands {
		hint := ""
		if c.Input != nil && c.Input.Unstructured != nil {
			hint = " ‹" + c.Input.Unstructured.Hint + "›"
		}
		theirs = append(theirs, [2]string{toolui.SafeText("/" + c.Name + hint), toolui.SafeText(c.Description)})
	}
	// One column of names for the three lists, as wide as the widest name that is not
	// an outlier: a longer one goes on a line of its own, its words under the column.
	width := 0
	for _, rows := range [][][2]string{keys, ours, theirs} {
		for _, r := range rows {
			if n := xansi.StringWidth(r[0]); n <= helpColumn {
				width = max(width, n)
			}
		}
	}
	// On a narrow screen a column leaves the words too little room: each under its name.
	narrow := m.width > 0 && m.width < width+40
	var b strings.Builder
	list := func(title string, rows [][2]string) {
		if len(rows) == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(title)
		for _, r := range rows {
			pad := width - xansi.StringWidth(r[0])
			if narrow {
				fmt.Fprintf(&b, "\n  %s\n      %s", r[0], r[1])
				continue
			}
			if pad < 0 {
				fmt.Fprintf(&b, "\n  %s\n  %s   %s", r[0], strings.Repeat(" ", width), r[1])
				continue
			}
			fmt.Fprintf(&b, "\n  %s%s   %s", r[0], strings.Repeat(" ", pad), r[1])
		}
	}
	list("Keys", keys)
	list("parley's commands", ours)
	list("the agent's commands", theirs)
	return b.String()
}

// Modes and models: a config option of the category when the agent has one, else the
// session's modes or models (chatcmd lists and sets them).

func (m *model) chooseCommand(model bool, arg string) tea.Cmd {
	cv := m.cur()
	list, title := chatcmd.Modes, "Mode"
	if model {
		list, title = chatcmd.Models, "Model"
	}
	ch, err := list(cv.session)
	if err != nil {
		cv.notice(capitalize(err.Error())+".", false)
		return nil
	}
	if ch.Option != nil {
		return m.configValue(*ch.Option, arg)
	}
	conv := cv.conv.Conversation
	set := func(id string) tea.Cmd {
		return m.wait(cv, func(ctx context.Context) (string, error) {
			if _, err := chatcmd.Choose(ctx, conv, ch, model, id); err != nil {
				return "", err
			}
			return strings.ToLower(title) + ": " + id, nil
		})
	}
	if arg != "" {
		return set(arg)
	}
	var items []pickItem
	for _, it := range ch.Items {
		items = append(items, pickItem{id: it.ID, label: toolui.SafeText(it.Name), desc: toolui.SafeText(it.Description), current: it.Current})
	}
	m.picker = newPicker(title, items, func(it pickItem) tea.Cmd { return set(it.id) })
	return nil
}

// capitalize starts a sentence.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// cycleMode switches to the next mode (shift+tab).
func (m *model) cycleMode() tea.Cmd {
	cv := m.cur()
	if o, ok := cv.session.ConfigOption(acp.SessionConfigOptionCategoryMode); ok {
		vals := chatcmd.SelectValues(o)
		for i, v := range vals {
			if v.Value == o.Select.CurrentValue {
				return m.setConfig(cv, o, string(vals[(i+1)%len(vals)].Value))
			}
		}
		return nil
	}
	modes := cv.session.Modes
	if modes == nil || len(modes.AvailableModes) < 2 {
		m.flash = "this agent has no modes"
		return nil
	}
	for i, md := range modes.AvailableModes {
		if md.ID == modes.CurrentModeID {
			next := string(modes.AvailableModes[(i+1)%len(modes.AvailableModes)].ID)
			conv := cv.conv.Conversation
			return m.wait(cv, func(ctx context.Context) (string, error) {
				_, err := conv.SetMode(ctx, next)
				return "", err
			})
		}
	}
	return nil
}

// configCommand is /config: the settings' picker, one setting's values, or a setting set
// (of any type, as the line chat sets it).
func (m *model) configCommand(id, value string) tea.Cmd {
	cv := m.cur()
	if id == "" {
		return m.configPicker()
	}
	if value == "" {
		for _, o := range cv.session.Config {
			if string(o.ID) == id && o.Select != nil {
				return m.configValue(o, "")
			}
		}
		_, _, err := cv.session.CheckSetting(id, "")
		if err == nil {
			err = fmt.Errorf("/config %s VALUE sets it", id)
		}
		cv.notice(err.Error(), true)
		return nil
	}
	conv := cv.conv.Conversation
	return m.wait(cv, func(ctx context.Context) (string, error) {
		_, st, ok, err := chatcmd.Config(ctx, conv, id, value)
		if err != nil || !ok {
			return "", err
		}
		return fmt.Sprintf("%s: %s", toolui.SafeText(st.Name), toolui.SafeText(st.Current)), nil
	})
}

// configPicker lists the agent's select options; picking one lists its values.
func (m *model) configPicker() tea.Cmd {
	cv := m.cur()
	var items []pickItem
	for _, o := range cv.session.Config {
		if o.Select == nil {
			continue
		}
		items = append(items, pickItem{id: string(o.ID), label: toolui.SafeText(o.Name), desc: toolui.SafeText(valueName(o))})
	}
	if len(items) == 0 {
		cv.notice("This agent has no settings to choose.", false)
		return nil
	}
	m.picker = newPicker("Settings", items, func(it pickItem) tea.Cmd {
		for _, o := range cv.session.Config {
			if string(o.ID) == it.id {
				return m.configValue(o, "")
			}
		}
		return nil
	})
	return nil
}

// configValue sets a select option to arg, or offers its values.
func (m *model) configValue(o acp.SessionConfigOption, arg string) tea.Cmd {
	cv := m.cur()
	if arg != "" {
		return m.setConfig(cv, o, arg)
	}
	var items []pickItem
	for _, v := range chatcmd.SelectValues(o) {
		desc := v.Description
		items = append(items, pickItem{id: string(v.Value), label: toolui.SafeText(v.Name), desc: toolui.SafeText(desc), current: v.Value == o.Select.CurrentValue})
	}
	// After this key's picker closes, the next one opens: the pick returns a command
	// that opens nothing, so the picker is set here.
	p := newPicker(toolui.SafeText(o.Name), items, func(it pickItem) tea.Cmd { return m.setConfig(cv, o, it.id) })
	m.picker = p
	return func() tea.Msg { return reopenPicker{p} }
}

// reopenPicker puts a picker back after the key that closed the previous one.
type reopenPicker struct{ p *picker }

func (m *model) setConfig(cv *convView, o acp.SessionConfigOption, value string) tea.Cmd {
	conv := cv.conv.Conversation
	return m.wait(cv, func(ctx context.Context) (string, error) {
		set, err := chatcmd.SetOption(ctx, conv, o, value)
		if err != nil || set.Option == nil {
			return "", err
		}
		return fmt.Sprintf("%s: %s", set.Option.Name, valueName(*set.Option)), nil
	})
}

// Sessions.

func (m *model) sessionsPicker() tea.Cmd {
	cv := m.cur()
	if cv.session.Agent.Capabilities.SessionCapabilities.List == nil {
		cv.notice("This agent cannot list its sessions.", false)
		return nil
	}
	conv, id, session := cv.conv.Conversation, cv.id, cv.session
	return func() tea.Msg {
		all, _, err := chatcmd.Sessions(m.ctx, conv, session, "", "")
		if err != nil {
			return resultMsg{conv: id, err: err}
		}
		return resultMsg{conv: id, then: func(m *model) tea.Cmd {
			var items []pickItem
			for _, s := range all {
				title := s.Title
				if title == "" {
					title = string(s.SessionID)
				}
				items = append(items, pickItem{id: string(s.SessionID), label: toolui.SafeText(oneLine(title)),
					desc: toolui.SafeText(s.UpdatedAt), current: s.SessionID == cv.session.ID})
			}
			p := newPicker("Sessions in "+cv.session.Cwd, items, func(it pickItem) tea.Cmd { return m.loadSession(acp.SessionID(it.id)) })
			p.empty = "(no sessions)"
			m.picker = p
			return nil
		}}
	}
}

func (m *model) loadSession(id acp.SessionID) tea.Cmd {
	cv := m.cur()
	conv, session := cv.conv.Conversation, cv.session
	return m.wait(cv, func(ctx context.Context) (string, error) {
		if _, err := chatcmd.Load(ctx, conv, session, string(id)); err != nil {
			return "", err
		}
		return fmt.Sprintf("(session %s)", id), nil
	})
}

// Agents: switch to another conversation, or start one with another agent.

func (m *model) agentPicker() tea.Cmd {
	var items []pickItem
	for _, cv := range m.convs {
		desc := "conversation"
		if cv.running != 0 {
			desc = "conversation · working"
		}
		if cv.question != nil {
			desc = "conversation · asks you something"
		}
		items = append(items, pickItem{id: fmt.Sprintf("conv:%d", cv.id), label: fmt.Sprintf("%d. %s", cv.id+1, toolui.SafeText(cv.conv.Name)), desc: desc, current: cv.id == m.active})
	}
	if m.opts.Agents != nil && m.opts.Start != nil {
		for _, a := range m.opts.Agents() {
			items = append(items, pickItem{id: "agent:" + a.Name, label: "+ new conversation with " + toolui.SafeText(a.Name), desc: toolui.SafeText(a.Description)})
		}
	}
	m.picker = newPicker("Agents and conversations", items, func(it pickItem) tea.Cmd {
		if rest, ok := strings.CutPrefix(it.id, "conv:"); ok {
			var i int
			fmt.Sscan(rest, &i)
			m.switchTo(i)
			return nil
		}
		return m.startConversation(strings.TrimPrefix(it.id, "agent:"))
	})
	return nil
}

func (m *model) switchTo(i int) {
	if i < 0 || i >= len(m.convs) || i == m.active {
		return
	}
	m.active = i
	m.comp.reset()
}

// startedMsg reports a conversation Start opened.
type startedMsg struct {
	conv Conv
	err  error
	note string // said in the new conversation first (a hand-off's)
}

func (m *model) startConversation(agent string) tea.Cmd {
	start := m.opts.Start
	return func() tea.Msg {
		c, err := start(agent)
		return startedMsg{conv: c, err: err}
	}
}

func (m *model) onStarted(msg startedMsg) tea.Cmd {
	if msg.err != nil {
		m.cur().notice("parley: "+msg.err.Error(), true)
		return nil
	}
	if msg.conv.Conversation == nil {
		m.cur().notice("parley: "+errors.New("no conversation was started").Error(), true)
		return nil
	}
	cv := newConvView(len(m.convs), msg.conv, m.st, m.md)
	cv.tr.ctx.root = m.opts.Workspace
	m.convs = append(m.convs, cv)
	m.switchTo(cv.id)
	if msg.note != "" {
		cv.notice(msg.note, false)
	}
	return tea.Batch(cv.pump(m.ctx, time.Time{}), m.tick())
}

// endSession closes or deletes one of the agent's other sessions.
func (m *model) endSession(verb, id string) tea.Cmd {
	cv := m.cur()
	conv, session := cv.conv.Conversation, cv.session
	return m.wait(cv, func(ctx context.Context) (string, error) {
		_, did, err := chatcmd.Sessions(ctx, conv, session, verb, id)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("(session %s %s)", id, did), nil
	})
}
