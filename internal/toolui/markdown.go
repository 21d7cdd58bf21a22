package toolui

import (
	"io"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolstate"
)

// MarkdownRenderer writes a turn as plain Markdown, for a client that renders Markdown
// text but no structured parts (the VS Code bridge sends each write as one text delta):
// the reply as it streams, thoughts as block quotes, the plan as a task list, and each
// tool call once as a line ("**Running** `go test ./...`"), then one short line per
// status change ("✓ Ran `go test ./...`"), never the whole call again. Sub-agent calls
// are marked "↳" per level; hidden calls are not shown; usage is left to the client.
type MarkdownRenderer struct {
	output
	last     segment
	newlines int // how many newlines the output ends with, up to 2
	shown    map[acp.ToolCallID]*printed
	safe     SafeStream // what is written made safe, judged by what was written before
}

// NewMarkdownRenderer returns a MarkdownRenderer writing to w. Each Render that has
// something to show writes to w once, so each write can be one delta.
func NewMarkdownRenderer(w io.Writer) *MarkdownRenderer {
	return &MarkdownRenderer{output: output{w: w}, newlines: 2, shown: map[acp.ToolCallID]*printed{}}
}

// Render shows one event.
func (r *MarkdownRenderer) Render(ev toolstate.Event) error {
	if r.err != nil {
		return r.err
	}
	switch ev.Kind {
	case toolstate.TextDelta:
		r.enter(segText)
		r.write(ev.Text)
	case toolstate.ThoughtDelta:
		r.thought(ev.Text)
	case toolstate.PlanChanged:
		r.plan(ev.Plan)
	case toolstate.ToolStarted, toolstate.ToolUpdated, toolstate.PermissionRequested:
		r.tool(ev.Tool)
	}
	return r.flush()
}

// EndTurn ends the last paragraph, so that a later turn's output starts a new one.
func (r *MarkdownRenderer) EndTurn(acp.StopReason) error {
	if r.err != nil {
		return r.err
	}
	if r.newlines == 0 {
		r.write("\n")
	}
	r.last = segNone
	clear(r.shown)
	return r.flush()
}

// enter starts a new paragraph when the kind of output changes.
func (r *MarkdownRenderer) enter(seg segment) {
	if r.last == seg {
		return
	}
	for r.newlines < 2 {
		r.write("\n")
	}
	r.last = seg
}

func (r *MarkdownRenderer) thought(s string) {
	r.enter(segThought)
	for s != "" {
		if r.newlines > 0 {
			r.write("> ")
		}
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line = s[:i+1]
		}
		r.write(line)
		s = s[len(line):]
	}
}

func (r *MarkdownRenderer) plan(entries []acp.PlanEntry) {
	r.enter(segBlock)
	r.write("**Plan**\n\n")
	for _, e := range entries {
		r.write("- ")
		if e.Status == acp.PlanEntryStatusCompleted {
			r.write("[x] ")
		} else {
			r.write("[ ] ")
		}
		r.write(toolstate.OneLine(e.Content))
		if e.Status == acp.PlanEntryStatusInProgress {
			r.write(" *(in progress)*")
		}
		r.write("\n")
	}
	r.write("\n")
}

func (r *MarkdownRenderer) tool(tc *toolstate.ToolCall) {
	p := r.shown[tc.ID]
	seen := p != nil
	if !lineToPrint(tc, p, seen) {
		return
	}
	if p == nil {
		p = &printed{}
		r.shown[tc.ID] = p
	}
	approved := seen && tc.State == toolstate.Executing
	*p = printed{tc.State, tc.IsError}
	r.enter(segBlock)
	for range min(tc.Depth, toolstate.MaxDepth) {
		r.write("↳ ")
	}
	st := statusOf(tc)
	switch st.mark {
	case markRunning:
		r.write(boldFirstWord(st.message))
		if approved {
			r.write(" *(approved)*")
		}
	case markWaiting:
		r.write("⚠ " + st.message + " *(" + st.note + ")*")
	case markDone:
		r.write("✓ " + st.message)
	case markFailed:
		r.write("✗ " + st.message)
		r.write(" — " + st.note)
	}
	r.write("\n\n")
}

// boldFirstWord makes the verb of a message stand out: "**Running** `go test`".
func boldFirstWord(msg string) string {
	word, rest, ok := strings.Cut(msg, " ")
	if !ok || word == "" || strings.ContainsAny(word, "`*_[") {
		return msg
	}
	return "**" + word + "** " + rest
}

// write appends s, with what the agent put in it made safe to show (SafeText, judging
// each piece by the output before it: a reply's chunks come one by one), and keeps count of the newlines the output ends with.
func (r *MarkdownRenderer) write(s string) {
	if s == "" {
		return
	}
	r.buf = r.safe.Append(r.buf, s)
	trailing := len(s) - len(strings.TrimRight(s, "\n"))
	if trailing == len(s) {
		r.newlines = min(r.newlines+trailing, 2)
	} else {
		r.newlines = min(trailing, 2)
	}
}
