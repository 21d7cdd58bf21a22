package toolui

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolstate"
)

// TextOptions configure a TextRenderer. The zero value (or nil) is a plain log: no color,
// no cursor movement, no width limit.
type TextOptions struct {
	Color bool // ANSI colors and dim text
	// Live rewrites the lines of running tool calls in place with cursor movement, and
	// animates their spinner (see Tick). Only for a terminal.
	Live bool
	// Width is the terminal's width in columns; lines are cut to fit. 0 means 80 when
	// Live (where a wrapped line would break the rewriting) and no limit otherwise.
	Width int
}

// TextRenderer writes a turn for a person reading a terminal or a log: the reply as it
// streams (Markdown as is), thoughts set apart (dimmed, behind "│ "), the plan as a
// checklist when it changes, and each tool call once, then only its status changes.
//
// Live, the tool calls printed since the last text form a block at the bottom whose
// lines are rewritten in place: a spinner and the invocation message while a call runs,
// ✓ or ✗ and the past-tense message when it is done, a short diff under an edit. Once
// text follows, the block is history; a later change to a call in it is one new line.
// Not live, a call gets one line when it starts and one short line per status change.
//
// Sub-agent calls are indented under their parent, hidden calls are not shown, and the
// usage is shown at the end of the turn.
type TextRenderer struct {
	output // buf: the output of the current call, written at once
	color  bool
	live   bool
	width  int

	last      segment
	lineStart bool       // the output so far ends with a newline (or is empty)
	safe      SafeStream // the agent's text and thoughts made safe, chunk after chunk

	shown     map[acp.ToolCallID]*shownCall
	block     []blockEntry // live: the rewritable lines at the bottom
	drawn     []byte       // live: the block as last drawn
	scratch   []byte
	frozen    bool // drawing the block a last time, as history: no spinners
	frame     int
	usage     string // the latest usage, shown at the end of the turn
	usageDone string // the usage last shown
}

// segment is the kind of output written last: switching kinds starts a fresh line.
type segment uint8

const (
	segNone segment = iota
	segText
	segThought
	segBlock
)

type shownCall struct {
	printed
	inBlock bool // live: it has an entry in the current block
}

type blockEntry struct {
	tool  *toolstate.ToolCall // nil for the plan
	plan  []acp.PlanEntry     // the plan, for a plan entry
	depth int
}

// maxLiveRows bounds the block that is rewritten in place: cursor movement cannot reach
// rows that scrolled off the screen, so a taller block is left as history.
const maxLiveRows = 16

const thoughtPrefix = "│ "

// NewTextRenderer returns a TextRenderer writing to w. Each Render writes at most once
// to w, so w may be a line-buffered or timed writer.
func NewTextRenderer(w io.Writer, opts *TextOptions) *TextRenderer {
	r := &TextRenderer{output: output{w: w}, lineStart: true, shown: map[acp.ToolCallID]*shownCall{}}
	if opts != nil {
		r.color, r.live, r.width = opts.Color, opts.Live, opts.Width
	}
	if r.live && r.width <= 0 {
		r.width = 80
	}
	return r
}

// Render shows one event.
func (r *TextRenderer) Render(ev toolstate.Event) error {
	if r.err != nil {
		return r.err
	}
	switch ev.Kind {
	case toolstate.TextDelta:
		r.text(ev.Text)
	case toolstate.ThoughtDelta:
		r.thought(ev.Text)
	case toolstate.PlanChanged:
		r.plan(ev.Plan)
	case toolstate.ToolStarted, toolstate.ToolUpdated, toolstate.PermissionRequested:
		r.tool(ev)
	case toolstate.UsageChanged:
		r.usage = formatUsage(ev.Usage)
	}
	return r.flush()
}

// RenderAll shows the events in order.
func (r *TextRenderer) RenderAll(evs []toolstate.Event) error {
	for _, ev := range evs {
		if err := r.Render(ev); err != nil {
			return err
		}
	}
	return nil
}

// Tick advances the spinner of running calls in the live block and redraws it. A
// front-end calls it every 100 ms or so from the goroutine that calls Render; it does
// nothing when not live or when nothing runs.
func (r *TextRenderer) Tick() error {
	if r.err != nil || !r.live {
		return r.err
	}
	for _, e := range r.block {
		if e.tool != nil && !e.tool.State.Done() && e.tool.State != toolstate.WaitingForConfirmation {
			r.frame++
			r.redraw()
			return r.flush()
		}
	}
	return nil
}

// Detach leaves the output at the start of a fresh line and stops rewriting the lines
// printed so far, so that the front-end can write to the terminal itself (a permission
// prompt, a warning). A later change to a call printed before shows as a new line.
func (r *TextRenderer) Detach() error {
	if r.err != nil {
		return r.err
	}
	r.endBlock()
	r.freshLine()
	r.last = segNone
	return r.flush()
}

// EndTurn ends the last line and shows the usage if the agent reported a new one.
func (r *TextRenderer) EndTurn(acp.StopReason) error {
	if r.err != nil {
		return r.err
	}
	r.endBlock()
	r.freshLine()
	if r.usage != "" && r.usage != r.usageDone {
		r.buf = r.paint(r.buf, sgrDim, r.cut(r.usage, 0))
		r.buf = append(r.buf, '\n')
		r.usageDone = r.usage
	}
	r.last = segNone
	clear(r.shown)
	return r.flush()
}

func (r *TextRenderer) text(s string) {
	if s == "" {
		return
	}
	r.enter(segText)
	r.buf = r.safe.Append(r.buf, s)
	r.lineStart = s[len(s)-1] == '\n'
}

func (r *TextRenderer) thought(s string) {
	r.enter(segThought)
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line = s[:i]
		}
		if r.lineStart || line != "" {
			r.buf = r.style(r.buf, sgrDim)
			if r.lineStart {
				r.buf = append(r.buf, thoughtPrefix...)
				r.lineStart = false
			}
			r.buf = r.safe.Append(r.buf, line)
			r.buf = r.style(r.buf, "0")
		}
		s = s[len(line):]
		if s != "" { // the newline
			r.buf = append(r.buf, '\n')
			r.safe.Reset()
			r.lineStart = true
			s = s[1:]
		}
	}
}

// enter switches to a kind of output: the live block is left as history, and a new kind
// starts on a fresh line.
func (r *TextRenderer) enter(seg segment) {
	if r.last == seg {
		return
	}
	r.safe.Reset()
	if r.last == segBlock {
		r.endBlock()
	}
	r.freshLine()
	r.last = seg
}

func (r *TextRenderer) freshLine() {
	if !r.lineStart {
		r.buf = append(r.buf, '\n')
		r.lineStart = true
	}
}

func (r *TextRenderer) plan(entries []acp.PlanEntry) {
	if !r.live {
		r.enter(segBlock)
		r.buf = r.appendPlan(r.buf, entries)
		return
	}
	r.enter(segBlock)
	for i := range r.block {
		if r.block[i].tool == nil {
			r.block[i].plan = entries
			r.redraw()
			return
		}
	}
	r.block = append(r.block, blockEntry{plan: entries})
	r.redraw()
}

func (r *TextRenderer) tool(ev toolstate.Event) {
	tc := ev.Tool
	sc := r.shown[tc.ID]
	if !r.live {
		seen := sc != nil
		if !lineToPrint(tc, printedOf(sc), seen) {
			return
		}
		if sc == nil {
			sc = &shownCall{}
			r.shown[tc.ID] = sc
		}
		r.enter(segBlock)
		r.buf = r.appendCallLine(r.buf, tc, statusOf(tc), seen && tc.State == toolstate.Executing)
		sc.printed = printed{tc.State, tc.IsError}
		return
	}
	switch {
	case sc != nil && sc.inBlock:
		if ev.Kind == toolstate.ToolUpdated && ev.Changed&(toolstate.ChangedState|toolstate.ChangedMessage|toolstate.ChangedCommand|toolstate.ChangedDiffs|toolstate.ChangedGrouping|toolstate.ChangedConfirmation) == 0 {
			return
		}
		r.enter(segBlock)
		r.redraw()
	case lineToPrint(tc, printedOf(sc), sc != nil):
		if sc == nil {
			sc = &shownCall{}
			r.shown[tc.ID] = sc
		}
		r.enter(segBlock)
		r.insert(tc)
		sc.inBlock = true
		r.redraw()
	default:
		return
	}
	sc.printed = printed{tc.State, tc.IsError}
}

func printedOf(sc *shownCall) *printed {
	if sc == nil {
		return &printed{}
	}
	return &sc.printed
}

// insert adds a block entry for a call: after its parent's subtree when the parent is
// in the block, else at the end.
func (r *TextRenderer) insert(tc *toolstate.ToolCall) {
	e := blockEntry{tool: tc, depth: tc.Depth}
	at := len(r.block)
	if tc.ParentID != "" {
		for i, p := range r.block {
			if p.tool != nil && p.tool.ID == tc.ParentID {
				at = i + 1
				for at < len(r.block) && r.block[at].tool != nil && r.block[at].depth > p.depth {
					at++
				}
				break
			}
		}
	}
	r.block = append(r.block, blockEntry{})
	copy(r.block[at+1:], r.block[at:])
	r.block[at] = e
}

// redraw draws the block again from its first changed line: the cursor goes up to that
// line, the screen is cleared from there, and the rest is drawn. An unchanged block costs
// nothing, and a block that only grew gets just its new lines.
func (r *TextRenderer) redraw() {
	next := r.scratch[:0]
	for i := range r.block {
		e := &r.block[i]
		if e.tool == nil {
			next = r.appendPlan(next, e.plan)
		} else {
			next = r.appendLiveCall(next, e)
		}
	}
	same := 0
	for same < len(next) && same < len(r.drawn) && next[same] == r.drawn[same] {
		same++
	}
	if same < len(next) || same < len(r.drawn) {
		same = bytes.LastIndexByte(next[:same], '\n') + 1 // whole lines only
		if rows := bytes.Count(r.drawn[same:], newline); rows > 0 {
			r.buf = append(r.buf, "\x1b["...)
			r.buf = strconv.AppendInt(r.buf, int64(rows), 10)
			r.buf = append(r.buf, "A\r\x1b[J"...)
		}
		r.buf = append(r.buf, next[same:]...)
	}
	r.scratch, r.drawn = r.drawn, next
	r.lineStart = true
	if !r.frozen && bytes.Count(r.drawn, newline) > maxLiveRows {
		r.endBlock()
	}
}

// endBlock leaves the live block as history, its running calls drawn without a spinner
// (a spinner that stopped would say they still run).
func (r *TextRenderer) endBlock() {
	if len(r.block) == 0 {
		return
	}
	r.frozen = true
	r.redraw()
	r.frozen = false
	for _, e := range r.block {
		if e.tool != nil {
			if sc := r.shown[e.tool.ID]; sc != nil {
				sc.inBlock = false
			}
		}
	}
	r.block = r.block[:0]
	r.drawn = r.drawn[:0]
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const (
	sgrDim    = "2"
	sgrRed    = "31"
	sgrGreen  = "32"
	sgrYellow = "33"
	sgrCyan   = "36"
)

// paint appends s, in the given SGR style when colors are on.
func (r *TextRenderer) paint(dst []byte, sgr, s string) []byte {
	dst = r.style(dst, sgr)
	dst = append(dst, s...)
	return r.style(dst, "0")
}

// style appends an SGR sequence when colors are on.
func (r *TextRenderer) style(dst []byte, sgr string) []byte {
	if !r.color {
		return dst
	}
	dst = append(dst, "\x1b["...)
	dst = append(dst, sgr...)
	return append(dst, 'm')
}

// cut fits s into the width left after used columns.
func (r *TextRenderer) cut(s string, used int) string {
	if r.width <= 0 {
		return s
	}
	// A live line must not reach the last column: some terminals wrap there.
	room := r.width - used
	if r.live {
		room--
	}
	return truncate(s, max(room, 1))
}

func (r *TextRenderer) markOf(st status, running string) (glyph, sgr string) {
	switch st.mark {
	case markWaiting:
		return "⚠", sgrYellow
	case markDone:
		return "✓", sgrGreen
	case markFailed:
		return "✗", sgrRed
	}
	return running, sgrCyan
}

// appendCallLine appends a call's one line: indentation, mark, message and note.
func (r *TextRenderer) appendCallLine(dst []byte, tc *toolstate.ToolCall, st status, approved bool) []byte {
	running := "→"
	if r.live && !r.frozen {
		running = spinner[r.frame%len(spinner)]
	}
	if approved {
		st.note = "approved"
	}
	indent := strings.Repeat("  ", tc.Depth)
	glyph, sgr := r.markOf(st, running)
	dst = append(dst, indent...)
	dst = r.paint(dst, sgr, glyph)
	dst = append(dst, ' ')
	used := len(indent) + 2
	reserve := 0
	if st.mark == markFailed && r.width > 0 {
		// How the call ended matters more than the rest of its message: room for it
		// first ("not run: refused (no one to ask)"), as long as the message keeps some.
		reserve = min(utf8.RuneCountInString(st.note)+len(" — "), max(r.width-used-20, 0))
	}
	msg := r.cut(st.message, used+reserve)
	dst = appendSafeText(dst, msg)
	used += utf8.RuneCountInString(msg)
	if st.note != "" && (r.width <= 0 || used+4 < r.width) {
		sep := " — "
		if st.mark != markFailed {
			sep = " "
			st.note = "(" + st.note + ")"
		}
		noteSGR := sgrDim
		if st.mark == markFailed && strings.HasPrefix(st.note, "failed") {
			noteSGR = sgrRed
		}
		dst = append(dst, sep...)
		dst = r.style(dst, noteSGR)
		dst = appendSafeText(dst, r.cut(st.note, used+len(sep)))
		dst = r.style(dst, "0")
	}
	return append(dst, '\n')
}

// diffLines is how many lines of an edit the live block shows under it.
const liveDiffLines = 8

func (r *TextRenderer) appendLiveCall(dst []byte, e *blockEntry) []byte {
	tc := e.tool
	if !tc.Visible() {
		return dst
	}
	dst = r.appendCallLine(dst, tc, statusOf(tc), false)
	if tc.State != toolstate.Completed || tc.IsError || len(tc.Diffs) == 0 {
		return dst
	}
	indent := strings.Repeat("  ", tc.Depth) + "    "
	budget := liveDiffLines
	for _, d := range tc.Diffs {
		if budget <= 1 {
			break
		}
		lines := d.ShortUnified(budget)
		for _, line := range lines {
			sgr := sgrDim
			switch {
			case strings.HasPrefix(line, "+"):
				sgr = sgrGreen
			case strings.HasPrefix(line, "-"):
				sgr = sgrRed
			}
			dst = append(dst, indent...)
			dst = r.style(dst, sgr)
			dst = appendSafeText(dst, r.cut(strings.ReplaceAll(line, "\t", "    "), len(indent)))
			dst = r.style(dst, "0")
			dst = append(dst, '\n')
		}
		budget -= len(lines)
	}
	return dst
}

func (r *TextRenderer) appendPlan(dst []byte, entries []acp.PlanEntry) []byte {
	dst = r.paint(dst, sgrDim, "Plan")
	dst = append(dst, '\n')
	for _, e := range entries {
		m := planMark(e.Status)
		sgr := sgrDim
		switch e.Status {
		case acp.PlanEntryStatusCompleted:
			sgr = sgrGreen
		case acp.PlanEntryStatusInProgress:
			sgr = sgrCyan
		}
		dst = append(dst, "  "...)
		dst = r.paint(dst, sgr, m)
		dst = append(dst, ' ')
		dst = appendSafeText(dst, r.cut(toolstate.OneLine(e.Content), 6))
		dst = append(dst, '\n')
	}
	return dst
}

var newline = []byte{'\n'}
