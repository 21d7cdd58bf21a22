package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/parley-acp/parley/internal/toolui"
)

// welcomeItem is the first screen: the workspace, the agent and what it is, the agents
// parley knows with whether each can run here, and the keys that matter. A person who
// has never used parley learns from it what they are talking to (Eliza is a demo, not a
// model) and how to reach the others.
type welcomeItem struct {
	workspace string
	agent     string
	known     []AgentChoice // nil until listed (off the UI's goroutine: it looks at PATH and npx's cache)
	// sel is the agent Tab highlights (an index into known), -1 for none: Enter starts a
	// conversation with it. Tab and Enter choose only while the composer is empty, so
	// nothing typed is taken for a choice.
	sel int
	// choosable: a conversation can be started from here (Options.Start is set).
	choosable bool
}

// knownMsg brings the agents parley knows to the first screen.
type knownMsg struct{ agents []AgentChoice }

func (m *model) listKnown() tea.Cmd {
	if m.opts.Known == nil {
		return nil
	}
	known := m.opts.Known
	return func() tea.Msg { return knownMsg{agents: known()} }
}

func (w *welcomeItem) render(r *renderCtx, width int) []string {
	st := r.st
	var out []string
	add := func(line string) { out = append(out, hanging("", line, width)...) }
	indented := func(indent, line string) { out = append(out, hanging(indent, line, width)...) }
	add(st.bold.Render("parley") + st.dim.Render(" · an ACP client: any agent, one place to review, approve and undo what it does"))
	add(st.dim.Render("workspace ") + toolui.SafeText(w.workspace))
	agent := st.dim.Render("agent     ") + st.accent.Render(toolui.SafeText(w.agent))
	if about := w.about(); about != "" {
		agent += st.dim.Render(" — ") + toolui.SafeText(about)
	}
	add(agent)
	if len(w.known) > 0 {
		if w.choosable {
			add(st.dim.Render("agents parley knows (tab chooses one, enter starts a conversation with it; /agent too; `parley agents` lists the registry's):"))
		} else {
			add(st.dim.Render("agents parley knows (/agent starts one, `parley agents` lists the registry's):"))
		}
		nameW := 0
		for _, a := range w.known {
			nameW = max(nameW, len(a.Name))
		}
		for i, a := range w.known {
			mark, style := "↓", st.warn // needs a download
			switch {
			case strings.HasPrefix(a.Availability, "yes"):
				mark, style = "✓", st.ok
			case strings.HasPrefix(a.Availability, "no"), strings.HasPrefix(a.Availability, "needs a model server"):
				mark, style = "✗", st.fail
			}
			// Made safe first, then styled: a style made safe would show as text.
			words := toolui.SafeText(a.Availability)
			if rest, ok := strings.CutPrefix(words, "yes"); ok {
				words = "runs here" + rest
			}
			if a.About != "" && a.Name != w.agent {
				words += st.dim.Render(" · " + toolui.SafeText(a.About))
			}
			if a.SignIn != "" { // after what it is, which says what it signs in with
				words += st.dim.Render(" · ") + st.warn.Render(toolui.SafeText(a.SignIn))
			}
			name := toolui.SafeText(a.Name)
			pad := strings.Repeat(" ", max(nameW-len(a.Name), 0))
			if i != w.sel {
				indented("    ", style.Render(mark)+" "+name+pad+"  "+words)
				continue
			}
			// The highlighted one: a pointer in the margin, its name reversed.
			lines := hanging("    ", style.Render(mark)+" "+st.selected.Render(name)+pad+"  "+words, width)
			lines[0] = "  › " + strings.TrimPrefix(lines[0], "    ")
			out = append(out, lines...)
		}
		if w.sel >= 0 && w.sel < len(w.known) {
			a := w.known[w.sel]
			if why := notChoosable(a); why != "" {
				add(st.fail.Render(toolui.SafeText(a.Name) + " cannot run here: " + toolui.SafeText(why)))
			} else {
				add(st.accent.Render("enter starts a conversation with "+toolui.SafeText(a.Name)) + st.dim.Render(" (this one stays: /agent switches back) · esc: none"))
			}
		}
	}
	add(st.dim.Render("keys      ") + "enter sends · esc stops a turn · @ attaches a file · / commands (/help) · ctrl+c twice quits")
	return out
}

// dropWelcome takes the first screen away once something is sent or a command run: it
// was for the moment before, and the conversation needs the room.
func (m *model) dropWelcome() {
	if m.welcomeAt == nil {
		return
	}
	tr := m.convs[0].tr
	for i, e := range tr.entries {
		if e == m.welcomeAt {
			tr.entries = append(tr.entries[:i], tr.entries[i+1:]...)
			if tr.sel > i {
				tr.sel--
			} else if tr.sel == i {
				tr.sel = -1
			}
			break
		}
	}
	m.welcome, m.welcomeAt = nil, nil
}

func (w *welcomeItem) about() string {
	for _, a := range w.known {
		if a.Name == w.agent {
			return a.About
		}
	}
	return ""
}

// notChoosable says why the agent cannot be started from the first screen ("" when it
// can): it cannot run here, or has no model server.
func notChoosable(a AgentChoice) string {
	if why, ok := strings.CutPrefix(a.Availability, "no: "); ok {
		return why
	}
	if strings.HasPrefix(a.Availability, "no") || strings.HasPrefix(a.Availability, "needs a model server") {
		return a.Availability
	}
	return ""
}

// welcomeKey is Tab, Esc or Enter on the first screen while the composer is empty:
// Tab highlights the next agent listed, Esc none, Enter starts a conversation with the
// one highlighted (as /agent does: the first conversation stays). ok is false for any
// other key, or when the first screen is not there to choose from.
func (m *model) welcomeKey(s string) (tea.Cmd, bool) {
	w := m.welcome
	if w == nil || !w.choosable || m.active != 0 || len(w.known) == 0 || m.comp.value() != "" {
		return nil, false
	}
	switch s {
	case "tab":
		w.sel = (w.sel + 1) % len(w.known)
	case "esc":
		if w.sel < 0 {
			return nil, false
		}
		w.sel = -1
	case "enter":
		if w.sel < 0 || w.sel >= len(w.known) {
			return nil, false
		}
		a := w.known[w.sel]
		if why := notChoosable(a); why != "" {
			m.flash = a.Name + " cannot run here: " + why
			return nil, true
		}
		m.dropWelcome()
		return m.startConversation(a.Name), true
	default:
		return nil, false
	}
	m.convs[0].tr.changed(m.welcomeAt)
	return nil, true
}
