package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/parley-acp/parley/internal/toolstate"
)

// copyCommand puts the agent's last reply, or the last code block in it (/copy code), on
// the clipboard through the terminal (OSC 52): with the mouse kept for scrolling, a
// selection needs shift+drag, and a reply longer than the screen cannot be selected whole.
// The text is the reply as shown (made safe to print), its Markdown kept.
func (m *model) copyCommand(arg string) tea.Cmd {
	cv := m.cur()
	var reply string
	for i := len(cv.tr.entries) - 1; i >= 0; i-- {
		if a, ok := cv.tr.entries[i].it.(*agentItem); ok && a.raw.Len() > 0 {
			reply = a.raw.String()
			break
		}
	}
	what := "the last reply"
	text := reply
	switch strings.TrimSpace(arg) {
	case "":
	case "code":
		what = "the last code block"
		text = lastCodeBlock(reply)
	default:
		cv.notice("/copy copies the agent's last reply; /copy code its last code block.", true)
		return nil
	}
	if text == "" {
		cv.notice(fmt.Sprintf("There is no %s to copy.", strings.TrimPrefix(what, "the ")), true)
		return nil
	}
	cv.notice(fmt.Sprintf("Copied %s (%s) to the clipboard, through the terminal (OSC 52): a terminal that does not allow it copies nothing.", what, toolstate.Count(strings.Count(strings.TrimSuffix(text, "\n"), "\n")+1, "line", "lines")), false)
	return tea.SetClipboard(text)
}

// lastCodeBlock returns the content of the last fenced code block in md ("" if none); an
// unclosed fence at the end counts.
func lastCodeBlock(md string) string {
	var last, cur []string
	fence := ""
	for line := range strings.SplitSeq(md, "\n") {
		t := strings.TrimLeft(line, " ")
		run := fenceRun(t)
		switch {
		case fence == "" && run != "":
			fence = run
			cur = []string{}
		case fence != "" && strings.HasPrefix(run, fence) && strings.TrimRight(t, " ") == run:
			fence, last = "", cur
		case fence != "":
			cur = append(cur, line)
		}
	}
	if fence != "" {
		last = cur
	}
	if last == nil {
		return ""
	}
	return strings.Join(last, "\n") + "\n"
}

// fenceRun returns the backticks or tildes a line starts with, if they are three or more.
func fenceRun(line string) string {
	if line == "" || line[0] != '`' && line[0] != '~' {
		return ""
	}
	n := len(line) - len(strings.TrimLeft(line, line[:1]))
	if n < 3 {
		return ""
	}
	return line[:n]
}
