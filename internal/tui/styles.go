package tui

import (
	"charm.land/lipgloss/v2"
)

// styles are the few looks the screen uses, for a dark or a light background.
type styles struct {
	dim, faint, bold, accent, user, userBar lipgloss.Style
	ok, fail, warn, running, selected       lipgloss.Style
	added, removed, hunk                    lipgloss.Style
	status, statusKey, popup, popupSel      lipgloss.Style
	question, match                         lipgloss.Style
}

func newStyles(dark bool) styles {
	pick := lipgloss.LightDark(dark)
	c := func(light, dark string) lipgloss.Style {
		return lipgloss.NewStyle().Foreground(pick(lipgloss.Color(light), lipgloss.Color(dark)))
	}
	return styles{
		dim:       c("245", "244"),
		faint:     lipgloss.NewStyle().Faint(true),
		bold:      lipgloss.NewStyle().Bold(true),
		accent:    c("26", "75"),
		user:      c("236", "252").Bold(true),
		userBar:   c("26", "75"),
		ok:        c("28", "42"),
		fail:      c("160", "203"),
		warn:      c("130", "214"),
		running:   c("26", "75"),
		selected:  lipgloss.NewStyle().Reverse(true),
		added:     c("28", "42"),
		removed:   c("160", "203"),
		hunk:      c("90", "141"),
		status:    c("240", "246"),
		statusKey: c("236", "252").Bold(true),
		popup:     c("240", "250"),
		popupSel:  lipgloss.NewStyle().Reverse(true),
		question:  c("130", "214").Bold(true),
		match:     lipgloss.NewStyle().Reverse(true),
	}
}
