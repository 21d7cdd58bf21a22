package tui

import (
	"strings"
	"time"

	xansi "github.com/charmbracelet/x/ansi"
)

// transcript is the conversation as it is drawn: a list of items (the user's prompts, the
// agent's replies and thoughts, tool calls, plans, parley's notices), each rendered to
// lines at the current width and kept until it changes, so a frame costs the lines on
// screen, not the length of the conversation. It scrolls (offset counts lines up from the
// end; 0 follows the end as it grows), one expandable item may be selected, and it can be
// searched.
type transcript struct {
	entries []*entry
	width   int // of the screen; items get width-gutter
	height  int
	offset  int
	total   int // the lines of the last view, to keep a view that reads back still
	sel     int // the selected entry, -1 for none
	ctx     renderCtx

	search      string
	matches     []match // entries and lines that contain search
	matchAt     int     // the current match
	searchWidth int     // the width matches were found at
}

// gutter is the space left of every line: a bar marks the selected item.
const gutter = 2

type entry struct {
	it    item
	lines []string
	width int
	stale bool
}

type match struct{ entry, line int }

// item is one thing in the transcript.
type item interface {
	// render returns the item's lines at width; r says how to draw.
	render(r *renderCtx, width int) []string
}

// expandable items fold and unfold with ctrl+o (those that have something folded).
type expandable interface {
	item
	toggle()
	foldable() bool
}

func isExpandable(it item) bool {
	e, ok := it.(expandable)
	return ok && e.foldable()
}

// live items change with time (a spinner, a duration) while running reports true.
type live interface {
	running() bool
}

// renderCtx is what items draw with.
type renderCtx struct {
	st    styles
	md    *markdown
	now   time.Time
	frame int    // the spinner's
	root  string // the workspace: paths inside it are shown relative to it
}

func newTranscript(st styles, md *markdown) *transcript {
	return &transcript{sel: -1, ctx: renderCtx{st: st, md: md, now: time.Now()}}
}

// add appends an item and returns its entry.
func (t *transcript) add(it item) *entry {
	e := &entry{it: it, stale: true}
	t.entries = append(t.entries, e)
	return e
}

// changed marks an entry for redrawing.
func (t *transcript) changed(e *entry) { e.stale = true }

// setSize changes the width (every item is redrawn) and the height.
func (t *transcript) setSize(width, height int) {
	if width != t.width {
		for _, e := range t.entries {
			e.stale = true
		}
		t.width = width
	}
	t.height = max(height, 1)
}

// tick advances the spinner and the clocks: only running items are redrawn.
func (t *transcript) tick(now time.Time) bool {
	t.ctx.now = now
	t.ctx.frame++
	any := false
	for i := len(t.entries) - 1; i >= 0 && i >= len(t.entries)-200; i-- {
		if l, ok := t.entries[i].it.(live); ok && l.running() {
			t.entries[i].stale = true
			any = true
		}
	}
	return any
}

// linesOf renders an entry if it is stale.
func (t *transcript) linesOf(i int) []string {
	e := t.entries[i]
	if e.stale || e.width != t.width {
		w := max(t.width-gutter, 10)
		e.lines = e.it.render(&t.ctx, w)
		e.width, e.stale = t.width, false
		if i > 0 && len(e.lines) > 0 {
			// Items are set apart by one blank line.
			e.lines = append([]string{""}, e.lines...)
		}
	}
	return e.lines
}

// view returns the lines on screen, top to bottom, at most height of them.
func (t *transcript) view() []string {
	if t.offset > 0 {
		// Reading back: what is added at the end must not move the view.
		total := 0
		for i := range t.entries {
			total += len(t.linesOf(i))
		}
		if t.total > 0 && total > t.total {
			t.offset += total - t.total
		}
		t.total = total
	} else {
		t.total = 0
	}
	want := t.height + t.offset
	// Walk back from the end until the screen (and what is scrolled past) is filled;
	// only the lines on screen are decorated.
	type part struct{ entry, from, to int } // lines [from, to) of an entry
	var rev []part
	got := 0
	for i := len(t.entries) - 1; i >= 0 && got < want; i-- {
		n := len(t.linesOf(i))
		rev = append(rev, part{i, 0, n})
		got += n
	}
	if got < want && t.offset > 0 {
		// Scrolled past the top: stop at the top.
		t.offset = max(0, got-t.height)
	}
	// Skip offset lines from the end, keep height lines before them.
	skip, keep := t.offset, t.height
	out := make([]string, 0, t.height)
	var visible []part
	for _, p := range rev {
		n := p.to - p.from
		if skip >= n {
			skip -= n
			continue
		}
		p.to -= skip
		skip = 0
		if n := p.to - p.from; n > keep {
			p.from = p.to - keep
		}
		keep -= p.to - p.from
		visible = append(visible, p)
		if keep == 0 {
			break
		}
	}
	for i := len(visible) - 1; i >= 0; i-- {
		p := visible[i]
		out = append(out, t.decorate(p.entry, p.from, t.linesOf(p.entry)[p.from:p.to])...)
	}
	return out
}

// decorate adds the gutter: a bar beside the selected item, and highlights the current
// search match.
func (t *transcript) decorate(i, from int, ls []string) []string {
	bar := "  "
	if i == t.sel {
		bar = t.ctx.st.accent.Render("▌") + " "
	}
	out := make([]string, len(ls))
	for j, l := range ls {
		if l == "" && from+j == 0 && i > 0 {
			continue // the blank line between items
		}
		out[j] = bar + l
	}
	if t.search != "" && t.matchAt < len(t.matches) {
		m := t.matches[t.matchAt]
		if j := m.line - from; m.entry == i && j >= 0 && j < len(out) {
			out[j] = t.ctx.st.accent.Render("▶ ") + highlight(xansi.Strip(ls[j]), t.search, t.ctx.st)
		}
	}
	return out
}

func highlight(plain, query string, st styles) string {
	i := strings.Index(strings.ToLower(plain), strings.ToLower(query))
	if i < 0 {
		return plain
	}
	return plain[:i] + st.match.Render(plain[i:i+len(query)]) + plain[i+len(query):]
}

// scroll moves the view by n lines (positive: back towards the start).
func (t *transcript) scroll(n int) {
	t.offset = max(0, t.offset+n)
	if n > 0 {
		t.clampTop()
	}
}

// clampTop keeps the view from scrolling past the first line.
func (t *transcript) clampTop() {
	total := 0
	for i := len(t.entries) - 1; i >= 0; i-- {
		total += len(t.linesOf(i))
		if total >= t.offset+t.height {
			return
		}
	}
	t.offset = max(0, total-t.height)
}

// selectNext moves the selection among the expandable items: dir -1 towards the start.
// With none selected, the last one is taken.
func (t *transcript) selectNext(dir int) bool {
	i := t.sel
	if i < 0 {
		i = len(t.entries)
		if dir > 0 {
			return false
		}
	}
	for i += dir; i >= 0 && i < len(t.entries); i += dir {
		if isExpandable(t.entries[i].it) {
			t.sel = i
			t.reveal(i)
			return true
		}
	}
	return false
}

// toggleSelected folds or unfolds the selected item, or else the last expandable one.
func (t *transcript) toggleSelected() bool {
	i := t.sel
	if i < 0 {
		for j := len(t.entries) - 1; j >= 0; j-- {
			if isExpandable(t.entries[j].it) {
				i = j
				break
			}
		}
	}
	if i < 0 || !isExpandable(t.entries[i].it) {
		return false
	}
	t.entries[i].it.(expandable).toggle()
	t.entries[i].stale = true
	t.reveal(i)
	return true
}

// reveal scrolls so that entry i's first line is on screen.
func (t *transcript) reveal(i int) {
	below := 0
	for j := len(t.entries) - 1; j > i; j-- {
		below += len(t.linesOf(j))
	}
	n := len(t.linesOf(i))
	// The entry spans [below, below+n) lines up from the end.
	switch {
	case below < t.offset:
		t.offset = below
	case below+n > t.offset+t.height:
		t.offset = max(0, below+min(n, t.height)-t.height)
	}
}

// find searches the transcript for q (case-insensitive) and goes to the last match.
func (t *transcript) find(q string) int {
	t.search = q
	t.matches = t.matches[:0]
	if q == "" {
		return 0
	}
	lq := strings.ToLower(q)
	for i := range t.entries {
		for j, l := range t.linesOf(i) {
			if strings.Contains(strings.ToLower(xansi.Strip(l)), lq) {
				t.matches = append(t.matches, match{i, j})
			}
		}
	}
	t.matchAt = len(t.matches) - 1
	t.revealMatch()
	return len(t.matches)
}

// nextMatch goes to the next match (dir -1: the previous one, towards the start).
func (t *transcript) nextMatch(dir int) {
	if len(t.matches) == 0 {
		return
	}
	t.matchAt = (t.matchAt + dir + len(t.matches)) % len(t.matches)
	t.revealMatch()
}

func (t *transcript) revealMatch() {
	if t.matchAt < 0 || t.matchAt >= len(t.matches) {
		return
	}
	m := t.matches[t.matchAt]
	below := 0
	for j := len(t.entries) - 1; j > m.entry; j-- {
		below += len(t.linesOf(j))
	}
	fromEnd := below + len(t.linesOf(m.entry)) - m.line // lines from the match to the end, inclusive
	if fromEnd <= t.offset || fromEnd > t.offset+t.height {
		t.offset = max(0, fromEnd-t.height/2)
	}
}

func (t *transcript) endSearch() {
	t.search = ""
	t.matches = nil
}

// printable is the whole transcript at width, for the normal screen once the chat ends.
func (t *transcript) printable(width int) string {
	if width != t.width {
		t.setSize(width, t.height)
	}
	var b strings.Builder
	for i := range t.entries {
		for _, l := range t.linesOf(i) {
			b.WriteString(l)
			b.WriteString("\x1b[0m\n")
		}
	}
	return b.String()
}
