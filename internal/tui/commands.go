package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolui"
)

// commands are the slash commands the composer completes: parley's and the agent's.
func (m *model) commands() []command { return commandsFor(m.cur().session.Commands) }

// parleyCommand runs one of parley's own commands; ok is false for any other (it goes to
// the agent as typed).
func (m *model) parleyCommand(name, arg string) (tea.Cmd, bool) {
	cv := m.cur()
	switch name {
	case "quit", "exit":
		return m.quit(), true
	case "help":
		cv.notice(m.helpText(), false)
		return nil, true
	case "find":
		m.finding, m.findQ = true, arg
		cv.tr.find(arg)
		return nil, true
	case "mode":
		return m.modeCommand(arg), true
	case "model":
		return m.modelCommand(arg), true
	case "config":
		return m.configPicker(), true
	case "sessions", "load":
		if name == "load" && arg != "" {
			return m.loadSession(acp.SessionID(arg)), true
		}
		if verb, id, ok := strings.Cut(arg, " "); ok && (verb == "close" || verb == "delete") {
			return m.endSession(verb, acp.SessionID(strings.TrimSpace(id))), true
		}
		return m.sessionsPicker(), true
	case "new":
		conv := cv.conv.Conversation
		return m.wait(cv, func(ctx context.Context) (string, error) {
			s, err := conv.NewSession(ctx)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("(new session %s)", s.ID), nil
		}), true
	case "agent", "agents":
		return m.agentPicker(), true
	case "login":
		return m.loginPicker(arg), true
	case "changes", "diff", "undo", "rewind", "keep":
		return m.changesCommand(name, arg), true
	case "copy":
		return m.copyCommand(arg), true
	}
	return nil, false
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

func (m *model) helpText() string {
	var b strings.Builder
	b.WriteString(`Keys
  enter send (while the agent works: queue; esc takes the queued message back)
  shift+enter, alt+enter, ctrl+j   a new line; a paste stays one message
  up/down      the prompts sent in this workspace     ctrl+r  search them
  @            attach a file of the workspace          /       commands
  ctrl+c       cancel the turn; twice: quit (also while the cancel is under way)
  ctrl+o       expand or fold a tool call or thought   alt+up/alt+down  pick one
  pgup/pgdown  scroll (or the mouse wheel; shift+drag selects text)   ctrl+f  find
  shift+tab    next mode                                ctrl+d  quit on an empty prompt
parley's commands`)
	for _, c := range parleyCommands {
		fmt.Fprintf(&b, "\n  /%-10s %s", c.name+" "+c.hint, c.desc)
	}
	if cmds := m.cur().session.Commands; len(cmds) > 0 {
		b.WriteString("\nthe agent's commands")
		for _, c := range cmds {
			hint := ""
			if c.Input != nil && c.Input.Unstructured != nil {
				hint = " ‹" + c.Input.Unstructured.Hint + "›"
			}
			fmt.Fprintf(&b, "\n  /%s%s  %s", toolui.SafeText(c.Name), toolui.SafeText(hint), toolui.SafeText(c.Description))
		}
	}
	return b.String()
}

// Modes and models: a config option of the category when the agent has one, else the
// session's modes or models.

func (m *model) modeCommand(arg string) tea.Cmd {
	cv := m.cur()
	if o, ok := cv.session.ConfigOption(acp.SessionConfigOptionCategoryMode); ok {
		return m.configValue(o, arg)
	}
	modes := cv.session.Modes
	if modes == nil || len(modes.AvailableModes) == 0 {
		cv.notice("This agent has no modes.", false)
		return nil
	}
	conv := cv.conv.Conversation
	set := func(id string) tea.Cmd {
		return m.wait(cv, func(ctx context.Context) (string, error) {
			if _, err := conv.SetMode(ctx, id); err != nil {
				return "", fmt.Errorf("setting the mode: %w", err)
			}
			return "mode: " + id, nil
		})
	}
	if arg != "" {
		return set(arg)
	}
	var items []pickItem
	for _, md := range modes.AvailableModes {
		desc := md.Description
		items = append(items, pickItem{id: string(md.ID), label: toolui.SafeText(md.Name), desc: toolui.SafeText(desc), current: md.ID == modes.CurrentModeID})
	}
	m.picker = newPicker("Mode", items, func(it pickItem) tea.Cmd { return set(it.id) })
	return nil
}

// cycleMode switches to the next mode (shift+tab).
func (m *model) cycleMode() tea.Cmd {
	cv := m.cur()
	if o, ok := cv.session.ConfigOption(acp.SessionConfigOptionCategoryMode); ok {
		vals := selectValues(o)
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

func (m *model) modelCommand(arg string) tea.Cmd {
	cv := m.cur()
	if o, ok := cv.session.ConfigOption(acp.SessionConfigOptionCategoryModel); ok {
		return m.configValue(o, arg)
	}
	models := cv.session.Models
	if models == nil || len(models.AvailableModels) == 0 {
		cv.notice("This agent offers no choice of model.", false)
		return nil
	}
	conv := cv.conv.Conversation
	set := func(id string) tea.Cmd {
		return m.wait(cv, func(ctx context.Context) (string, error) {
			if _, err := conv.SetModel(ctx, id); err != nil {
				return "", fmt.Errorf("setting the model: %w", err)
			}
			return "model: " + id, nil
		})
	}
	if arg != "" {
		return set(arg)
	}
	var items []pickItem
	for _, md := range models.AvailableModels {
		desc := md.Description
		items = append(items, pickItem{id: string(md.ModelID), label: toolui.SafeText(md.Name), desc: toolui.SafeText(desc), current: md.ModelID == models.CurrentModelID})
	}
	m.picker = newPicker("Model", items, func(it pickItem) tea.Cmd { return set(it.id) })
	return nil
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
	for _, v := range selectValues(o) {
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
		s, err := conv.SetConfigOption(ctx, o.ID, acp.SessionConfigValueID(value))
		if err != nil {
			return "", fmt.Errorf("setting %s: %w", o.Name, err)
		}
		for _, n := range s.Config {
			if n.ID == o.ID && n.Select != nil {
				return fmt.Sprintf("%s: %s", n.Name, valueName(n)), nil
			}
		}
		return "", nil
	})
}

// Sessions.

func (m *model) sessionsPicker() tea.Cmd {
	cv := m.cur()
	caps := cv.session.Agent.Capabilities
	if caps.SessionCapabilities.List == nil {
		cv.notice("This agent cannot list its sessions.", false)
		return nil
	}
	conv, id := cv.conv.Conversation, cv.id
	return func() tea.Msg {
		all, err := conv.ListSessions(m.ctx)
		if err != nil {
			return resultMsg{conv: id, err: fmt.Errorf("listing sessions: %w", err)}
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
	caps := cv.session.Agent.Capabilities
	if !caps.LoadSession && caps.SessionCapabilities.Resume == nil {
		cv.notice("This agent cannot reopen sessions.", false)
		return nil
	}
	conv := cv.conv.Conversation
	return m.wait(cv, func(ctx context.Context) (string, error) {
		if _, err := conv.LoadSession(ctx, id); err != nil {
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
	return tea.Batch(cv.pump(m.ctx, time.Time{}), m.tick())
}

// endSession closes or deletes one of the agent's other sessions.
func (m *model) endSession(verb string, id acp.SessionID) tea.Cmd {
	cv := m.cur()
	conv := cv.conv.Conversation
	return m.wait(cv, func(ctx context.Context) (string, error) {
		var err error
		if verb == "close" {
			err = conv.CloseSession(ctx, id)
		} else {
			err = conv.DeleteSession(ctx, id)
		}
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("(session %s: %sd)", id, verb), nil
	})
}
