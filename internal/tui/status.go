package tui

import (
	"fmt"
	"strings"
	"time"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/chatcmd"
	"github.com/parley-acp/parley/internal/toolui"
)

// statusLine is two lines: what happens (moving while the agent starts or works, from
// the moment a prompt is sent) with the agent, mode, model and context use on the right;
// then the keys that matter now, Ctrl-C's rule among them.
func (m *model) statusLine(cv *convView) string {
	st := m.st
	spin := st.running.Render(spinnerFrames[cv.tr.ctx.frame%len(spinnerFrames)])
	var left string
	now := time.Now()
	switch {
	case cv.closed:
		left = st.fail.Render("● the conversation has ended")
	case cv.starting:
		left = spin + " starting " + toolui.SafeText(cv.conv.Name) + "…"
	case cv.question != nil:
		left = st.warn.Render("? the agent waits for your answer")
	case cv.elicit != nil:
		left = st.warn.Render("? the agent asks you something")
	case cv.signingIn:
		left = spin + " signing in…"
	case cv.running == 0 && cv.sending != 0:
		left = spin + " sending…"
	case cv.running != 0 && cv.cancelling:
		left = spin + " cancelling…"
	case cv.running != 0 && !cv.firstWord:
		left = spin + " thinking… " + st.dim.Render(duration(now.Sub(cv.turnStart)))
	case cv.running != 0:
		left = spin + " working… " + st.dim.Render(duration(now.Sub(cv.turnStart)))
	case !cv.ready && len(cv.signIn) > 0:
		left = st.warn.Render("● sign in first: /login")
	case !cv.ready:
		left = st.dim.Render("● not started: the next prompt tries again")
	default:
		left = st.ok.Render("●") + " ready"
	}
	for _, other := range m.convs {
		if other != cv && other.question != nil {
			left += st.warn.Render("  · " + toolui.SafeText(other.conv.Name) + " asks you something (/agent)")
		}
	}
	if m.flash != "" {
		left += "  " + st.dim.Render(m.flash)
	}
	right := m.sessionSummary(cv)
	gap := m.width - xansi.StringWidth(left) - xansi.StringWidth(right)
	var lines []string
	if gap >= 2 {
		lines = append(lines, left+strings.Repeat(" ", gap)+right)
	} else {
		// Too narrow for both on a line: each on its own lines, wrapped, not cut.
		lines = append(append(lines, plainLines(left, m.width)...), plainLines(right, m.width)...)
	}
	lines = append(lines, packed(m.keyHints(cv), "  ", "", m.width)...)
	return strings.Join(lines, "\n")
}

// sessionSummary is the agent, its mode and model, and how full its context is.
func (m *model) sessionSummary(cv *convView) string {
	st := m.st
	s := cv.session
	var parts []string
	name := s.Agent.Title
	if name == "" {
		name = cv.conv.Name
	}
	if len(m.convs) > 1 {
		name = fmt.Sprintf("%s [%d/%d]", name, cv.id+1, len(m.convs))
	}
	parts = append(parts, st.statusKey.Render(toolui.SafeText(name)))
	if s.Title != "" {
		parts = append(parts, xansi.Truncate(toolui.SafeText(oneLine(s.Title)), 30, "…"))
	}
	if mode := currentMode(s.Modes, s.Config); mode != "" {
		parts = append(parts, toolui.SafeText(mode))
	}
	if model := currentModel(s.Models, s.Config); model != "" {
		parts = append(parts, toolui.SafeText(model))
	}
	if u := cv.usage; u != nil && u.TotalTokens > 0 {
		parts = append(parts, fmt.Sprintf("last turn %s tokens (%s in, %s out)", tokens(u.TotalTokens), tokens(u.InputTokens), tokens(u.OutputTokens)))
	}
	if u := s.Usage; u != nil && u.Size > 0 {
		pct := float64(u.Used) * 100 / float64(u.Size)
		ctx := fmt.Sprintf("ctx %s/%s (%.0f%%)", tokens(u.Used), tokens(u.Size), pct)
		switch {
		case pct >= 90:
			ctx = st.fail.Render(ctx)
		case pct >= 75:
			ctx = st.warn.Render(ctx)
		}
		parts = append(parts, ctx)
		if u.Cost != nil {
			parts = append(parts, fmt.Sprintf("%.2f %s", u.Cost.Amount, toolui.SafeText(u.Cost.Currency)))
		}
	}
	return st.status.Render(strings.Join(parts, st.dim.Render(" · ")))
}

func currentMode(modes *acp.SessionModeState, config []acp.SessionConfigOption) string {
	for _, o := range config {
		if o.Category == acp.SessionConfigOptionCategoryMode && o.Select != nil {
			return valueName(o)
		}
	}
	if modes == nil {
		return ""
	}
	for _, md := range modes.AvailableModes {
		if md.ID == modes.CurrentModeID {
			return md.Name
		}
	}
	return string(modes.CurrentModeID)
}

func currentModel(models *acp.SessionModelState, config []acp.SessionConfigOption) string {
	for _, o := range config {
		if o.Category == acp.SessionConfigOptionCategoryModel && o.Select != nil {
			return valueName(o)
		}
	}
	if models == nil {
		return ""
	}
	for _, md := range models.AvailableModels {
		if md.ModelID == models.CurrentModelID {
			return md.Name
		}
	}
	return string(models.CurrentModelID)
}

func valueName(o acp.SessionConfigOption) string {
	for _, v := range chatcmd.SelectValues(o) {
		if v.Value == o.Select.CurrentValue {
			return v.Name
		}
	}
	return string(o.Select.CurrentValue)
}

func tokens(n uint64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

// keyHints are the keys that do something now.
func (m *model) keyHints(cv *convView) []string {
	st := m.st
	k := func(key, what string) string { return st.statusKey.Render(key) + " " + st.dim.Render(what) }
	var hints []string
	switch {
	case m.armed && cv.running == 0:
		return []string{st.warn.Render("press ctrl+c again to quit")}
	case m.armed && cv.cancelling:
		return []string{st.warn.Render("cancelling the turn · press ctrl+c again to quit now")}
	case cv.question != nil:
		return []string{k(offeredKeys(cv.question.q.Question), "answer"), k("esc", "reject"), k("ctrl+c", "reject and cancel the turn")}
	case cv.elicit != nil:
		return []string{k("esc", "decline"), k("ctrl+c", "cancel it and the turn")}
	case m.picker != nil:
		return []string{k("enter", "pick"), k("esc", "close")}
	case cv.running != 0:
		if len(cv.queued) > 0 {
			hints = append(hints, k("esc", "take the queued message back"))
		} else if !cv.cancelling {
			hints = append(hints, k("esc", "stop the turn"))
		}
		hints = append(hints, k("ctrl+c", "stop (twice: quit)"), k("enter", "queue a message"))
	default:
		hints = append(hints, k("enter", "send"), k("⇧↵/ctrl+j", "new line"), k("ctrl+c ×2", "quit"))
	}
	return append(hints, k("ctrl+o", "expand"), k("pgup", "scroll"), k("/help", ""))
}
