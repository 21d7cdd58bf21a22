package tui

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
)

// userItem is a prompt the user sent (or, when a session is loaded, one the agent
// replays). A long one (a paste) is folded to its first lines.
type userItem struct {
	text        string // safe to print
	attachments []string
	expanded    bool
}

// foldUserLines is how long a prompt may be before it is folded.
const foldUserLines = 20

func (u *userItem) toggle()        { u.expanded = !u.expanded }
func (u *userItem) foldable() bool { return strings.Count(u.text, "\n") >= foldUserLines }

func (u *userItem) render(r *renderCtx, width int) []string {
	var out []string
	lines := plainLines(u.text, width-2)
	more := 0
	if len(lines) > foldUserLines && !u.expanded {
		more = len(lines) - foldUserLines/2
		lines = lines[:foldUserLines/2]
	}
	for i, l := range lines {
		bar := "  "
		if i == 0 {
			bar = r.st.userBar.Render("›") + " "
		}
		out = append(out, bar+r.st.user.Render(l))
	}
	if more > 0 {
		out = append(out, "  "+r.st.dim.Render("… "+toolstate.Count(more, "more line", "more lines")+" (ctrl+o to expand)"))
	}
	for _, a := range u.attachments {
		out = append(out, "  "+r.st.dim.Render("+ "+a))
	}
	return out
}

// noticeItem is something parley itself says.
type noticeItem struct {
	text string
	warn bool
}

func (n *noticeItem) render(r *renderCtx, width int) []string {
	st := r.st.dim
	if n.warn {
		st = r.st.warn
	}
	var out []string
	for _, line := range strings.Split(n.text, "\n") {
		for _, l := range hangingLines(line, width) {
			out = append(out, st.Render(l))
		}
	}
	return out
}

// hangingLines wraps one line of a notice so that what does not fit goes on under where
// its words start: its indentation, or the column after a gap of three spaces (a list
// of names and what they do, as /help's), when that leaves room.
func hangingLines(line string, width int) []string {
	ls := plainLines(line, width)
	if len(ls) < 2 || !strings.HasPrefix(line, ls[0]) {
		return ls
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	hang := indent
	if gap := strings.Index(line[indent:], "   "); gap >= 0 {
		at := indent + gap
		words := at + len(line[at:]) - len(strings.TrimLeft(line[at:], " "))
		hang = xansi.StringWidth(line[:words]) // cells, not bytes: a name may hold "…"
	}
	if hang > width/2 {
		hang = indent
	}
	out := []string{ls[0]}
	for _, l := range plainLines(strings.TrimLeft(line[len(ls[0]):], " "), width-hang) {
		out = append(out, strings.Repeat(" ", hang)+l)
	}
	return out
}

// agentItem is a reply of the agent, as Markdown. While it streams, what is complete
// (blocks before a blank line outside a code fence) is rendered once and kept, and only
// the block still growing is rendered again; a growing block too large to render as
// Markdown in a frame is wrapped as plain text, incrementally. Once the reply is over it
// is rendered whole.
type agentItem struct {
	raw  strings.Builder // the reply, made safe to print
	done bool

	width       int
	stable      int      // raw[:stable] is rendered in stableLines
	stableLines []string //
	scan        int      // raw[:scan] has been looked at for block ends
	fence       string   // the code fence open at scan, if any
	lastBlank   int      // the last block end found (a position in raw)
	tail        plainWrap
	tailFrom    int // where tail's text starts in raw
	final       []string
}

// Limits that keep a frame cheap: a growing block larger than maxLiveMarkdown is wrapped
// as plain text until it ends; a reply larger than maxFinalMarkdown is not rendered again
// whole when it ends.
const (
	maxLiveMarkdown  = 8 << 10
	maxFinalMarkdown = 128 << 10
)

func (a *agentItem) append(text string) {
	a.raw.WriteString(text)
	a.final = nil
}

func (a *agentItem) finish() { a.done = true }

func (a *agentItem) reset(width int) {
	a.width, a.stable, a.stableLines, a.scan, a.fence, a.lastBlank = width, 0, nil, 0, "", 0
	a.tail = plainWrap{}
	a.tailFrom = -1
	a.final = nil
}

func (a *agentItem) render(r *renderCtx, width int) []string {
	if width != a.width {
		a.reset(width)
	}
	raw := a.raw.String()
	if a.done && len(raw) <= maxFinalMarkdown {
		if a.final == nil {
			a.final = r.md.render(raw, width)
		}
		return a.final
	}
	a.findBlocks(raw)
	if a.lastBlank > a.stable {
		seg := raw[a.stable:a.lastBlank]
		if strings.TrimSpace(seg) != "" {
			if len(a.stableLines) > 0 {
				a.stableLines = append(a.stableLines, "")
			}
			a.stableLines = append(a.stableLines, a.renderBlock(r, seg, width)...)
		}
		a.stable = a.lastBlank
		a.tailFrom = -1
	}
	tail := raw[a.stable:]
	var tailLines []string
	switch {
	case strings.TrimSpace(tail) == "":
	case len(tail) <= maxLiveMarkdown:
		tailLines = r.md.render(tail, width)
	default:
		if a.tailFrom != a.stable {
			a.tail = plainWrap{width: width}
			a.tailFrom = a.stable
		}
		a.tail.add(raw[a.tailFrom+a.tail.consumed:])
		tailLines = a.tail.lines()
	}
	out := make([]string, 0, len(a.stableLines)+len(tailLines)+1)
	out = append(out, a.stableLines...)
	if len(out) > 0 && len(tailLines) > 0 {
		out = append(out, "")
	}
	return append(out, tailLines...)
}

func (a *agentItem) renderBlock(r *renderCtx, seg string, width int) []string {
	if len(seg) > maxFinalMarkdown {
		return plainLines(strings.TrimSpace(seg), width)
	}
	return r.md.render(seg, width)
}

// findBlocks moves scan over the complete lines of raw, noting where blocks end: a blank
// line outside a code fence.
func (a *agentItem) findBlocks(raw string) {
	for {
		nl := strings.IndexByte(raw[a.scan:], '\n')
		if nl < 0 {
			return
		}
		line := raw[a.scan : a.scan+nl]
		a.scan += nl + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case a.fence != "":
			if strings.HasPrefix(trimmed, a.fence) && strings.Trim(trimmed, a.fence[:1]) == "" {
				a.fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			n := len(trimmed) - len(strings.TrimLeft(trimmed, trimmed[:1]))
			a.fence = trimmed[:n]
		case trimmed == "":
			a.lastBlank = a.scan
		}
	}
}

// plainWrap wraps a growing text greedily: every line but the last is final once text
// follows it, so only the last line is wrapped again when more comes.
type plainWrap struct {
	width    int
	done     []string
	last     string // the last line, not wrapped yet
	consumed int    // bytes of the text taken
}

func (p *plainWrap) add(s string) {
	if s == "" {
		return
	}
	p.consumed += len(s)
	ls := strings.Split(xansi.Wrap(p.last+s, max(p.width, 1), ""), "\n")
	p.done = append(p.done, ls[:len(ls)-1]...)
	p.last = ls[len(ls)-1]
}

func (p *plainWrap) lines() []string {
	out := make([]string, 0, len(p.done)+1)
	out = append(out, p.done...)
	if p.last != "" {
		out = append(out, p.last)
	}
	return out
}

// thoughtItem is the agent's reasoning: dimmed, folded to one line unless expanded.
type thoughtItem struct {
	text     strings.Builder
	expanded bool
	start    time.Time
	end      time.Time // zero while it streams
}

func (t *thoughtItem) toggle()        { t.expanded = !t.expanded }
func (t *thoughtItem) foldable() bool { return true }
func (t *thoughtItem) running() bool  { return t.end.IsZero() }

func (t *thoughtItem) render(r *renderCtx, width int) []string {
	text := strings.TrimSpace(t.text.String())
	head := "∴ Thinking…"
	if !t.end.IsZero() {
		head = "∴ Thought for " + duration(t.end.Sub(t.start))
	}
	if !t.expanded {
		n := strings.Count(text, "\n") + 1
		head += " (" + toolstate.Count(n, "line", "lines") + "; ctrl+o to expand)"
		if t.running() {
			last := text[strings.LastIndexByte(text, '\n')+1:]
			head += " " + last
		}
		return []string{r.st.dim.Italic(true).Render(xansi.Truncate(head, width, "…"))}
	}
	out := []string{r.st.dim.Render(head)}
	for _, l := range plainLines(text, width-2) {
		out = append(out, "  "+r.st.dim.Italic(true).Render(l))
	}
	return out
}

// planItem is the agent's plan, a checklist updated in place.
type planItem struct {
	entries []acp.PlanEntry
}

func (p *planItem) render(r *renderCtx, width int) []string {
	out := []string{r.st.bold.Render("Plan")}
	for _, e := range p.entries {
		content := toolui.SafeText(strings.TrimSpace(e.Content))
		var mark string
		st := r.st.dim
		switch e.Status {
		case acp.PlanEntryStatusCompleted:
			mark, st = "☑", r.st.dim.Strikethrough(true)
		case acp.PlanEntryStatusInProgress:
			mark, st = "▶", r.st.accent.Bold(true)
		default:
			mark, st = "☐", r.st.user.Bold(false)
		}
		for i, l := range plainLines(content, width-4) {
			prefix := "    "
			if i == 0 {
				prefix = "  " + mark + " "
			}
			out = append(out, prefix+st.Render(l))
		}
	}
	return out
}

// toolItem is one tool call: one line with its state, expandable to its input, its
// output (a terminal's, live while it runs) and its diffs.
type toolItem struct {
	tc       *toolstate.ToolCall
	started  time.Time
	ended    time.Time
	expanded bool
	// output is the last output read from the call's terminal, and whether it is whole.
	output    string
	outputEnd bool
	// asked are the diffs of the permission question about the call, as parley worked
	// them out against the files (conversation's editDiffs): they know a file the agent
	// calls new exists.
	asked []toolstate.Diff
}

// shown is the call as the card shows it: with the question's diff where the agent
// called a file new that the question found existing, and the messages that follow
// ("Edited", not "Created").
func (t *toolItem) shown(root string) *toolstate.ToolCall {
	if len(t.asked) == 0 {
		return t.tc
	}
	out, changed := slices.Clone(t.tc.Diffs), false
	for i, d := range out {
		for _, a := range t.asked {
			if d.IsNew && a.Path == d.Path && !a.IsNew {
				out[i], changed = a, true
				break
			}
		}
	}
	if !changed {
		return t.tc
	}
	return t.tc.WithDiffs(out, root)
}

func (t *toolItem) toggle()        { t.expanded = !t.expanded }
func (t *toolItem) foldable() bool { return true }
func (t *toolItem) running() bool  { return !t.tc.State.Done() }

// update takes the call's new state.
func (t *toolItem) update(tc *toolstate.ToolCall, now time.Time) {
	if t.tc.State == toolstate.WaitingForConfirmation && tc.State != toolstate.WaitingForConfirmation {
		t.started = now // the time it waited for the user is not the call's
	}
	t.tc = tc
	if tc.State.Done() && t.ended.IsZero() {
		t.ended = now
	}
}

func (t *toolItem) render(r *renderCtx, width int) []string {
	tc := t.tc
	if !tc.Visible() {
		return nil
	}
	indent := strings.Repeat("  ", tc.Depth)
	mark, msg, note := t.headline(r)
	head := indent + mark + " " + codeSpans(msg, r.st)
	var tail []string
	if d := t.elapsed(r.now); d != "" {
		tail = append(tail, d)
	}
	if note != "" {
		tail = append(tail, note)
	}
	rest := ""
	if len(tail) > 0 {
		rest = r.st.dim.Render(" · " + strings.Join(tail, " · "))
	}
	if tc.State.Done() && note != "" {
		// How it ended matters more than the rest of its message: cut the message
		// first, as long as it keeps some room.
		if room := width - xansi.StringWidth(rest); room >= 20 && xansi.StringWidth(head) > room {
			head = xansi.Truncate(head, room, "…")
		}
	}
	line := head + rest
	out := []string{xansi.Truncate(line, width, "…")}
	if !t.expanded {
		if tc.State == toolstate.Executing && t.output != "" {
			// The last lines of a running command, as it runs.
			for _, l := range lastLines(t.output, 3) {
				out = append(out, indent+"  "+r.st.dim.Render(xansi.Truncate("│ "+l, width-len(indent)-2, "…")))
			}
		}
		return out
	}
	out = append(out, t.details(r, width-len(indent)-4, indent+"    ")...)
	return out
}

// headline is the call's one line: a mark, the message for its state, and a note.
func (t *toolItem) headline(r *renderCtx) (mark, msg, note string) {
	tc := t.shown(r.root)
	msg = tc.InvocationMessage
	switch tc.State {
	case toolstate.WaitingForConfirmation:
		mark, note = r.st.warn.Render("?"), "waiting for your answer"
		if c := tc.Confirmation; c != nil && c.Title != "" {
			msg = c.Title
		}
	case toolstate.Completed, toolstate.Cancelled:
		var o toolstate.Outcome
		msg, note, o = tc.EndLine()
		if o == toolstate.OutcomeDone {
			mark = r.st.ok.Render("✓")
		} else {
			mark = r.st.fail.Render("✗")
		}
	default:
		mark = r.st.running.Render(spinnerFrames[r.frame%len(spinnerFrames)])
	}
	if cmd := oneLine(tc.TerminalCommand); cmd != "" && !strings.Contains(msg, cmd) {
		msg += ": `" + cmd + "`"
	}
	return mark, toolui.SafeText(oneLine(msg)), toolui.SafeText(note)
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (t *toolItem) elapsed(now time.Time) string {
	c := t.tc.Confirmation
	switch {
	case t.tc.State == toolstate.WaitingForConfirmation:
		return ""
	case c != nil && c.Outcome != "" && !c.Allowed():
		return "" // refused: it never ran
	case !t.ended.IsZero():
		if d := t.ended.Sub(t.started); d >= 100*time.Millisecond {
			return duration(d)
		}
		return ""
	case now.Sub(t.started) >= time.Second:
		return duration(now.Sub(t.started))
	}
	return ""
}

// maxDetailLines bounds an expanded call's output: the rest is counted, not shown.
const maxDetailLines = 200

func (t *toolItem) details(r *renderCtx, width int, indent string) []string {
	tc := t.tc
	var out []string
	section := func(name string) { out = append(out, indent+r.st.bold.Render(name)) }
	if tc.TerminalCommand != "" {
		section("Command")
		for _, l := range plainLines(toolui.SafeText(tc.TerminalCommand), width-2) {
			out = append(out, indent+r.st.accent.Render("$ "+l))
		}
	} else if in := prettyJSON(tc.RawInput); in != "" && len(tc.Diffs) == 0 {
		// An edit shows its diff: its input is the same edit as JSON.
		section("Input")
		out = append(out, boxed(r, toolui.SafeText(in), width, indent, 40)...)
	}
	output := t.output
	if output == "" {
		output = tc.Content
	}
	if output == "" && len(tc.Diffs) == 0 {
		output = prettyJSON(tc.RawOutput)
	}
	if strings.TrimSpace(output) != "" {
		name := "Output"
		if tc.State == toolstate.Executing {
			name = "Output (live)"
		}
		section(name)
		out = append(out, boxed(r, toolui.SafeText(strings.TrimRight(output, "\n")), width, indent, maxDetailLines)...)
	}
	for _, d := range t.shown(r.root).Diffs {
		out = append(out, diffLines(r, d, width, indent, maxDetailLines)...)
	}
	if len(out) == 0 {
		out = append(out, indent+r.st.dim.Render("(nothing more to show)"))
	}
	return out
}

// boxed shows text under a rule, at most limit lines (the last ones, with a count of
// those left out).
func boxed(r *renderCtx, text string, width int, indent string, limit int) []string {
	lines := plainLines(text, width-2)
	var out []string
	if len(lines) > limit {
		out = append(out, indent+r.st.dim.Render("│ … "+toolstate.Count(len(lines)-limit, "line", "lines")+" before"))
		lines = lines[len(lines)-limit:]
	}
	for _, l := range lines {
		out = append(out, indent+r.st.dim.Render("│ ")+l)
	}
	return out
}

// diffLines shows an edit as a coloured unified diff under its file's name.
func diffLines(r *renderCtx, d toolstate.Diff, width int, indent string, limit int) []string {
	head := fmt.Sprintf("%s %s", toolui.SafeText(relPath(d.Path, r.root)), r.st.dim.Render(fmt.Sprintf("(+%d −%d)", d.Added, d.Removed)))
	if d.IsNew {
		head += r.st.dim.Render(" new file")
	}
	out := []string{indent + r.st.bold.Render("Diff ") + head}
	for _, l := range d.ShortUnified(limit) {
		// Made safe, then wrapped (a narrow terminal still shows the whole line), then
		// each piece styled as its line is.
		l = toolui.SafeText(expandTabs(l))
		style := lipgloss.NewStyle()
		switch {
		case strings.HasPrefix(l, "@@"):
			style = r.st.hunk
		case strings.HasPrefix(l, "+"):
			style = r.st.added
		case strings.HasPrefix(l, "-"):
			style = r.st.removed
		}
		for _, piece := range plainLines(l, width) {
			out = append(out, indent+style.Render(piece))
		}
	}
	return out
}

// codeSpans shows `code` spans of a message in the accent colour, without backticks.
func codeSpans(msg string, st styles) string {
	parts := strings.Split(msg, "`")
	if len(parts) < 3 {
		return msg
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString(st.accent.Render(p))
		} else {
			if i%2 == 1 {
				b.WriteString("`")
			}
			b.WriteString(p)
		}
	}
	return b.String()
}

func prettyJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

func lastLines(s string, n int) []string {
	ls := strings.Split(strings.TrimRight(toolui.SafeText(s), "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return ls
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "⏎")
}

// duration reads like "0.4s", "12s", "3m05s".
func duration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// relPath is p relative to root when it is inside it.
func relPath(p, root string) string {
	if root == "" {
		return p
	}
	if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return p
}
