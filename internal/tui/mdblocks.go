package tui

import (
	"strconv"
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/yuin/goldmark/ast"
	gtext "github.com/yuin/goldmark/text"
)

// codeMargin is the cells left of a code block, apart from the text around it.
const codeMargin = 2

// blocks renders n's children one under the other: a blank line between two, unless
// they are the parts of a tight list's item.
func (r *mdRender) blocks(n ast.Node, width int, tight bool) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := r.block(c, width)
		out = appendBlock(out, lines, tight)
	}
	return out
}

func (r *mdRender) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return r.wrapLines(r.inline(n, 0, nil), width)
	case *ast.Heading:
		st := mdBold
		switch n.Level {
		case 1:
			st |= mdHeading | mdUnderline
		case 2:
			st |= mdHeading
		}
		return r.wrapLines(r.inline(n, st, nil), width)
	case *ast.ThematicBreak:
		return []string{r.md.line([]piece{{text: strings.Repeat("─", width), st: mdDim}})}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return r.code(n, width)
	case *ast.Blockquote:
		bar := r.md.line([]piece{{text: "│", st: mdDim}})
		inner := r.blocks(n, width-2, false)
		for i, l := range inner {
			if l == "" {
				inner[i] = bar
			} else {
				inner[i] = bar + " " + l
			}
		}
		return inner
	case *ast.List:
		return r.list(n, width)
	case *ast.HTMLBlock:
		var out []string
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			out = append(out, r.rawLine(lines.At(i), mdDim, width)...)
		}
		if n.HasClosure() {
			out = append(out, r.rawLine(n.ClosureLine, mdDim, width)...)
		}
		return out
	default:
		return r.blocks(n, width, false)
	}
}

// rawLine is one line of the source as it is, wrapped.
func (r *mdRender) rawLine(seg gtext.Segment, st mdStyle, width int) []string {
	l := strings.TrimRight(string(seg.Value(r.src)), "\r\n")
	return r.wrapLines([]piece{{text: l, st: st}}, width)
}

// code draws a code block in colours of its own, on a background as wide as its longest
// line, after a margin; a line longer than the room is continued on the next. The code
// is not highlighted: a highlighter (chroma) is thousands of patterns compiled at every
// start of parley, and a single colour reads well enough in a transcript.
func (r *mdRender) code(n ast.Node, width int) []string {
	var src []string
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		l := strings.Repeat(" ", seg.Padding) + strings.TrimRight(string(seg.Value(r.src)), "\r\n")
		src = append(src, l)
	}
	if len(src) == 0 {
		src = []string{""}
	}
	margin := codeMargin
	if width < 2*codeMargin+4 {
		margin = 0
	}
	room := max(width-margin-2, 1) // a space of background either side
	var wrapped []string
	w := 0
	for _, l := range src {
		for _, part := range cutToWidth(l, room) {
			wrapped = append(wrapped, part)
			w = max(w, xansi.StringWidth(part))
		}
	}
	pad := strings.Repeat(" ", margin)
	out := make([]string, len(wrapped))
	for i, l := range wrapped {
		fill := strings.Repeat(" ", w-xansi.StringWidth(l))
		out[i] = pad + r.md.line([]piece{{text: " " + l + fill + " ", st: mdCodeBlock}})
	}
	return out
}

// cutToWidth cuts a line into pieces of at most width cells, between its characters.
func cutToWidth(l string, width int) []string {
	if xansi.StringWidth(l) <= width {
		return []string{l}
	}
	var out []string
	var b strings.Builder
	w := 0
	it := graphemes.FromString(l)
	for it.Next() {
		g := it.Value()
		gw := xansi.StringWidth(g)
		if w > 0 && w+gw > width {
			out = append(out, b.String())
			b.Reset()
			w = 0
		}
		b.WriteString(g)
		w += gw
	}
	return append(out, b.String())
}

// bullets are the marks of unordered lists, by depth.
var bullets = [...]string{"•", "◦", "▪"}

// list draws each item after its mark (a bullet, its number, or a task's box), its lines
// after the first indented under the first.
func (r *mdRender) list(l *ast.List, width int) []string {
	r.depth++
	defer func() { r.depth-- }()
	n := l.ChildCount()
	numW := len(strconv.Itoa(l.Start + n - 1))
	var out []string
	i := 0
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		var mark string
		if l.IsOrdered() {
			num := strconv.Itoa(l.Start + i)
			mark = strings.Repeat(" ", numW-len(num)) + num + string(l.Marker)
		} else {
			mark = bullets[(r.depth-1)%len(bullets)]
		}
		i++
		lines := r.item(item, width, l.IsTight, &mark)
		markW := xansi.StringWidth(mark) + 1
		if !l.IsTight && len(out) > 0 {
			out = append(out, "")
		}
		if len(lines) == 0 {
			lines = []string{""}
		}
		indent := strings.Repeat(" ", markW)
		for j, line := range lines {
			switch {
			case j == 0:
				out = append(out, r.md.line([]piece{{text: mark, st: mdDim}})+" "+line)
			case line == "":
				out = append(out, "")
			default:
				out = append(out, indent+line)
			}
		}
	}
	return out
}

// item renders a list item's blocks in the room its mark leaves. An item whose text
// starts "[ ]" or "[x]" is a task: its mark becomes the box.
func (r *mdRender) item(item ast.Node, width int, tight bool, mark *string) []string {
	first := item.FirstChild()
	var ps []piece
	if first != nil && (first.Kind() == ast.KindParagraph || first.Kind() == ast.KindTextBlock) {
		ps = r.inline(first, 0, nil)
		if box, rest, ok := taskBox(ps); ok {
			*mark, ps = box, rest
		}
	}
	room := max(width-xansi.StringWidth(*mark)-1, 1)
	var out []string
	for c := first; c != nil; c = c.NextSibling() {
		var lines []string
		if c == first && ps != nil {
			lines = r.wrapLines(ps, room)
		} else {
			lines = r.block(c, room)
		}
		out = appendBlock(out, lines, tight)
	}
	return out
}

// taskBox finds a task's "[ ] " or "[x] " at the start of an item's text.
func taskBox(ps []piece) (box string, rest []piece, ok bool) {
	var head strings.Builder
	n := 0
	for n < len(ps) && head.Len() < 4 && ps[n].st == 0 && !ps[n].br {
		head.WriteString(ps[n].text)
		n++
	}
	h := head.String()
	if len(h) < 4 || h[0] != '[' || h[2] != ']' || h[3] != ' ' {
		return "", nil, false
	}
	switch h[1] {
	case ' ':
		box = "[ ]"
	case 'x', 'X':
		box = "[x]"
	default:
		return "", nil, false
	}
	rest = append([]piece{{text: strings.TrimLeft(h[4:], " ")}}, ps[n:]...)
	return box, rest, true
}

// table draws a table's cells in columns apart by rules, its header bold and ruled off.
// When the columns do not fit the width, the widest are narrowed and their cells wrap.
func (r *mdRender) table(text string, width int) []string {
	rows := strings.Split(text, "\n")
	head := tableCells(rows[0])
	aligns := tableCells(rows[1])
	cols := len(head)
	cells := make([][][]piece, 0, len(rows)-1)
	for i, row := range rows {
		if i == 1 {
			continue
		}
		cs := tableCells(row)
		line := make([][]piece, cols)
		for j := range cols {
			if j < len(cs) {
				st := mdStyle(0)
				if i == 0 {
					st = mdBold
				}
				line[j] = r.cell(cs[j], st)
			}
		}
		cells = append(cells, line)
	}
	widths := make([]int, cols)
	for _, row := range cells {
		for j, c := range row {
			widths[j] = max(widths[j], piecesWidth(c))
		}
	}
	for sum(widths)+3*cols-1 > width {
		widest := 0
		for j, w := range widths {
			if w > widths[widest] {
				widest = j
			}
		}
		if widths[widest] <= 1 {
			break
		}
		widths[widest]--
	}
	rule := r.md.line([]piece{{text: "│", st: mdDim}})
	var out []string
	for i, row := range cells {
		wrapped := make([][][]piece, cols)
		height := 1
		for j, c := range row {
			wrapped[j] = wrap(c, widths[j])
			height = max(height, len(wrapped[j]))
		}
		for k := range height {
			var b strings.Builder
			for j := range cols {
				if j > 0 {
					b.WriteString(rule)
				}
				var ps []piece
				if k < len(wrapped[j]) {
					ps = wrapped[j][k]
				}
				gap := max(widths[j]-piecesWidth(ps), 0)
				left := 0
				if j < len(aligns) {
					a := aligns[j]
					switch {
					case strings.HasPrefix(a, ":") && strings.HasSuffix(a, ":"):
						left = gap / 2
					case strings.HasSuffix(a, ":"):
						left = gap
					}
				}
				b.WriteString(strings.Repeat(" ", left+1))
				b.WriteString(r.md.line(ps))
				b.WriteString(strings.Repeat(" ", gap-left+1))
			}
			out = append(out, strings.TrimRight(b.String(), " "))
		}
		if i == 0 {
			parts := make([]string, cols)
			for j, w := range widths {
				parts[j] = strings.Repeat("─", w+2)
			}
			out = append(out, r.md.line([]piece{{text: strings.Join(parts, "┼"), st: mdDim}}))
		}
	}
	return out
}

// cell is a table cell's inline Markdown as pieces.
func (r *mdRender) cell(text string, st mdStyle) []piece {
	text = strings.ReplaceAll(text, `\|`, "|")
	c := &mdRender{md: r.md, src: []byte(text)}
	doc := mdParser().Parse(gtext.NewReader(c.src))
	if first := doc.FirstChild(); first != nil && first.NextSibling() == nil &&
		(first.Kind() == ast.KindParagraph || first.Kind() == ast.KindHeading) {
		return c.inline(first, st, nil)
	}
	return []piece{{text: text, st: st}}
}

func piecesWidth(ps []piece) int {
	w := 0
	for _, p := range ps {
		w += xansi.StringWidth(p.text)
	}
	return w
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// appendBlock appends a block's lines to out, after a blank line unless tight (or the
// block or out is empty).
func appendBlock(out, lines []string, tight bool) []string {
	if len(lines) == 0 {
		return out
	}
	if len(out) > 0 && !tight {
		out = append(out, "")
	}
	return append(out, lines...)
}
