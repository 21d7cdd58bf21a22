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
		add(st.dim.Render("agents parley knows (/agent starts one, `parley agents` lists the registry's):"))
		nameW := 0
		for _, a := range w.known {
			nameW = max(nameW, len(a.Name))
		}
		for _, a := range w.known {
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
			name := toolui.SafeText(a.Name)
			indented("    ", style.Render(mark)+" "+name+strings.Repeat(" ", max(nameW-len(name), 0))+"  "+words)
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
