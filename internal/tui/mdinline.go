package tui

import (
	"bytes"
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdStyle is how a piece of rendered Markdown looks: a set of these bits.
type mdStyle uint16

const (
	mdBold mdStyle = 1 << iota
	mdItalic
	mdStrike
	mdUnderline
	mdCode      // inline code
	mdLink      // a link's text
	mdHeading   // a heading's text: the accent colour
	mdCodeBlock // a code block: its own colours and background
	mdDim       // what is about the text rather than it: a link's address, HTML, bullets, rules
)

// style is the SGR sequence that starts a piece of style s ("" for the terminal's own).
// Colours are ANSI 256 indexes, for a dark or a light background; on the light one each
// is dark enough to read on white (contrast 4.5:1 or more).
func (m *markdown) style(s mdStyle) string {
	if s == 0 {
		return ""
	}
	if v, ok := m.sgr[s]; ok {
		return v
	}
	pick := func(light, dark xansi.IndexedColor) xansi.Color {
		if m.dark {
			return dark
		}
		return light
	}
	var st xansi.Style
	if s&mdBold != 0 {
		st = st.Bold()
	}
	if s&mdItalic != 0 {
		st = st.Italic(true)
	}
	if s&mdStrike != 0 {
		st = st.Strikethrough(true)
	}
	if s&(mdUnderline|mdLink) != 0 {
		st = st.Underline(true)
	}
	switch {
	case s&mdCodeBlock != 0:
		st = st.ForegroundColor(pick(236, 252)).BackgroundColor(pick(255, 236))
	case s&mdCode != 0:
		st = st.ForegroundColor(pick(125, 203)).BackgroundColor(pick(255, 236))
	case s&(mdLink|mdHeading) != 0:
		st = st.ForegroundColor(pick(26, 75))
	case s&mdDim != 0:
		st = st.ForegroundColor(pick(243, 244))
	}
	v := st.String()
	m.sgr[s] = v
	return v
}

// piece is a run of text of one style; br is a hard line break.
type piece struct {
	text string
	st   mdStyle
	br   bool
}

// line is pieces drawn as one screen line: each run of one style starts its SGR and
// resets after, so a line reads the same whatever is drawn before it.
func (m *markdown) line(ps []piece) string {
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].st == ps[i].st {
			j++
		}
		sgr := m.style(ps[i].st)
		b.WriteString(sgr)
		for _, p := range ps[i:j] {
			b.WriteString(p.text)
		}
		if sgr != "" {
			b.WriteString("\x1b[m")
		}
		i = j
	}
	return b.String()
}

// mdRender is one rendering: the source parsed and the nesting of lists so far.
type mdRender struct {
	md    *markdown
	src   []byte
	depth int // of lists
}

// inline appends the pieces of n's inline children, in style st and theirs.
func (r *mdRender) inline(n ast.Node, st mdStyle, out []piece) []piece {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(r.src)
			if !c.IsRaw() {
				v = unescape(v)
			}
			out = append(out, piece{text: string(v), st: st})
			if c.HardLineBreak() {
				out = append(out, piece{br: true})
			} else if c.SoftLineBreak() {
				out = append(out, piece{text: " ", st: st})
			}
		case *ast.String:
			v := c.Value
			if !c.IsCode() && !c.IsRaw() {
				v = unescape(v)
			}
			out = append(out, piece{text: string(v), st: st})
		case *ast.CodeSpan:
			var b []byte
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				switch t := t.(type) {
				case *ast.Text:
					b = append(b, t.Segment.Value(r.src)...)
				case *ast.String:
					b = append(b, t.Value...)
				}
			}
			out = append(out, piece{text: string(b), st: st | mdCode})
		case *ast.Emphasis:
			em := mdItalic
			if c.Level >= 2 {
				em = mdBold
			}
			out = r.inline(c, st|em, out)
		case *strikeNode:
			out = r.inline(c, st|mdStrike, out)
		case *ast.Link:
			out = r.link(c, c.Destination, st, out)
		case *ast.Image:
			out = append(out, piece{text: "image:", st: st | mdDim}, piece{text: " ", st: st})
			out = r.link(c, c.Destination, st, out)
		case *ast.AutoLink:
			out = append(out, piece{text: string(c.Label(r.src)), st: st | mdLink})
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				out = append(out, piece{text: string(seg.Value(r.src)), st: st | mdDim})
			}
		default:
			out = r.inline(c, st, out)
		}
	}
	return out
}

// link is a link's text, then its address when that is not the text. (No OSC 8: the
// transcript's lines are cut, selected and printed as text; the address shows.)
func (r *mdRender) link(n ast.Node, dest []byte, st mdStyle, out []piece) []piece {
	start := len(out)
	out = r.inline(n, st|mdLink, out)
	var label strings.Builder
	for _, p := range out[start:] {
		label.WriteString(p.text)
	}
	if url := string(unescape(dest)); url != "" && url != label.String() {
		out = append(out, piece{text: " ", st: st}, piece{text: "(" + url + ")", st: st | mdDim})
	}
	return out
}

// unescape resolves backslash escapes and entity references. A reference may name a
// character the text could not hold as itself (&#27; is ESC): what it gives is made safe
// to print again.
func unescape(v []byte) []byte {
	if bytes.IndexByte(v, '\\') < 0 && bytes.IndexByte(v, '&') < 0 {
		return v
	}
	v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
	return []byte(toolui.SafeText(string(v)))
}

// wrap lays pieces out in lines of at most width cells, breaking at spaces (a run of
// spaces is one), and inside a word only when it is longer than a line. Widths are the
// terminal's: East Asian characters and emoji take two cells.
func wrap(ps []piece, width int) [][]piece {
	width = max(width, 1)
	var (
		lines       [][]piece
		cur, word   []piece
		curW, wordW int
		spaceSt     mdStyle
	)
	newLine := func() {
		lines = append(lines, cur)
		cur, curW = nil, 0
	}
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		if curW > 0 && curW+1+wordW > width {
			newLine()
		}
		if curW > 0 {
			cur = append(cur, piece{text: " ", st: spaceSt})
			curW++
		}
		if curW+wordW <= width {
			cur = append(cur, word...)
			curW += wordW
		} else { // longer than a line: cut between its characters
			for _, p := range word {
				it := graphemes.FromString(p.text)
				for it.Next() {
					g := it.Value()
					gw := xansi.StringWidth(g)
					if curW > 0 && curW+gw > width {
						newLine()
					}
					cur = append(cur, piece{text: g, st: p.st})
					curW += gw
				}
			}
		}
		word, wordW = nil, 0
	}
	for _, p := range ps {
		if p.br {
			flushWord()
			newLine()
			continue
		}
		s := p.text
		for s != "" {
			i := strings.IndexAny(s, " \n")
			if i < 0 {
				i = len(s)
			}
			if i > 0 {
				word = append(word, piece{text: s[:i], st: p.st})
				wordW += xansi.StringWidth(s[:i])
			}
			if i == len(s) {
				break
			}
			flushWord()
			spaceSt = p.st
			s = s[i+1:]
		}
	}
	flushWord()
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

// wrapLines is wrap's lines drawn.
func (r *mdRender) wrapLines(ps []piece, width int) []string {
	var out []string
	for _, l := range wrap(ps, width) {
		out = append(out, r.md.line(l))
	}
	return out
}

// strikeNode is ~~struck~~ text.
type strikeNode struct{ ast.BaseInline }

var kindStrike = ast.NewNodeKind("Strikethrough")

func (n *strikeNode) Kind() ast.NodeKind            { return kindStrike }
func (n *strikeNode) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// strikeParser finds ~~ (or ~) and leaves the pairing to goldmark's delimiter stack, as
// its emphasis does.
type strikeParser struct{}

func (strikeParser) Trigger() []byte                     { return []byte{'~'} }
func (strikeParser) CloseBlock(ast.Node, parser.Context) {}

func (strikeParser) Parse(parent ast.Node, block gtext.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelimiter{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

// strikeDelimiter pairs runs of one or two tildes of the same length, as GitHub does.
type strikeDelimiter struct{}

func (strikeDelimiter) IsDelimiter(b byte) bool       { return b == '~' }
func (strikeDelimiter) OnMatch(consumes int) ast.Node { return &strikeNode{} }

func (strikeDelimiter) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.OriginalLength == closer.OriginalLength
}
