package toolui

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolstate"
)

// Renderer presents the events of a turn. TextRenderer, MarkdownRenderer and JSONEncoder
// are Renderers, so a front-end picks one at start-up and feeds it what its Turn returns.
// A Renderer is not safe for concurrent use; its errors are the writer's, and once one
// happens every later call returns it.
type Renderer interface {
	Render(ev toolstate.Event) error
	// EndTurn finishes the turn's output: the last line is ended, the usage shown.
	EndTurn(reason acp.StopReason) error
}

// mark is the symbol before a call's line.
type mark uint8

const (
	markRunning mark = iota
	markWaiting
	markDone
	markFailed
)

// status is how a call's one line reads in its current state: a mark, a headline, and a
// note set apart after it: that it waits, or the words of its outcome
// (toolstate.Outcome: "failed: why", "not run: refused by a rule", "cancelled").
type status struct {
	mark    mark
	message string
	note    string
}

func statusOf(tc *toolstate.ToolCall) status {
	switch tc.State {
	case toolstate.WaitingForConfirmation:
		title := tc.InvocationMessage
		if tc.Confirmation != nil && tc.Confirmation.Title != "" {
			title = toolstate.OneLine(tc.Confirmation.Title)
		}
		return status{markWaiting, withCommand(title, tc), "waiting for approval"}
	case toolstate.Completed, toolstate.Cancelled:
		msg, note, o := tc.EndLine()
		if o == toolstate.OutcomeDone {
			return status{markDone, withCommand(msg, tc), ""}
		}
		return status{markFailed, withCommand(msg, tc), truncate(note, 120)}
	}
	return status{markRunning, withCommand(tc.InvocationMessage, tc), ""}
}

// withCommand adds a terminal call's command to a message that does not show it.
func withCommand(msg string, tc *toolstate.ToolCall) string {
	cmd := toolstate.OneLine(tc.TerminalCommand)
	if cmd == "" || strings.Contains(msg, cmd) {
		return msg
	}
	return msg + ": " + toolstate.Code(cmd)
}

func firstLine(s string, limit int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return truncate(s, limit)
}

// truncate cuts s to at most n runes, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}

// printed is what a line-oriented renderer (plain text, Markdown) has shown of a call.
type printed struct {
	state   toolstate.State
	isError bool
}

// lineToPrint decides whether a line-oriented renderer prints a line for a call now:
// the first time the call is visible, and then once per status change a reader cares
// about (waiting, approved, done, failed, cancelled), never for the other updates.
func lineToPrint(tc *toolstate.ToolCall, p *printed, seen bool) bool {
	if !tc.Visible() {
		return false
	}
	if !seen {
		return true
	}
	if tc.State == p.state && tc.IsError == p.isError {
		return false
	}
	switch tc.State {
	case toolstate.Streaming:
		return false
	case toolstate.Executing:
		return p.state == toolstate.WaitingForConfirmation // approved
	}
	return true
}

// planMark is a plan entry's checkbox; an unknown status reads as pending.
func planMark(s acp.PlanEntryStatus) string {
	switch s {
	case acp.PlanEntryStatusCompleted:
		return "[x]"
	case acp.PlanEntryStatusInProgress:
		return "[>]"
	}
	return "[ ]"
}

// formatUsage is a usage report in a few characters: "context 12k/128k · 0.42 USD".
func formatUsage(u *acp.UsageUpdate) string {
	s := "context " + tokens(u.Used) + "/" + tokens(u.Size)
	if u.Cost != nil {
		s += fmt.Sprintf(" · %.2f %s", u.Cost.Amount, u.Cost.Currency)
	}
	return s
}

func tokens(n uint64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 999_500:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
}

// output is what the text and Markdown renderers share: the bytes of the event being
// rendered, written to w at once (so that each event is one write, one delta), and the
// first write error, after which rendering stops.
type output struct {
	w   io.Writer
	buf []byte
	err error
}

func (o *output) flush() error {
	if len(o.buf) == 0 {
		return nil
	}
	_, err := o.w.Write(o.buf)
	if cap(o.buf) > 64<<10 {
		o.buf = nil // do not keep a huge buffer for the small events that follow
	} else {
		o.buf = o.buf[:0]
	}
	if err != nil {
		o.err = err
	}
	return err
}
