package tui

import (
	"strings"
	"sync"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/parley-acp/parley/internal/lazy"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/yuin/goldmark/parser"
	gtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown renders the agent's Markdown for the transcript, wrapped to a width, without
// margins of its own (the transcript indents). It is parley's own renderer over
// goldmark's CommonMark parser: the blocks in mdblocks.go, the inline text and its
// wrapping in mdinline.go. GitHub's additions are recognised here, not by goldmark's
// extension package (whose patterns cost every parley command time at start): tables
// are cut out of the text before parsing (splitTables), strikethrough is an inline
// parser of a few lines, a task list item is seen by its "[ ]".
//
// The text it is given is already made safe to print (toolui.SafeText); what it adds to
// it are SGR sequences (colours, bold…) of its own, never a sequence from the text. An
// entity reference that would decode to a control character is made visible again.
type markdown struct {
	dark bool
	sgr  map[mdStyle]string // each style's SGR sequence, made on first use
}

func newMarkdown(dark bool) *markdown { return &markdown{dark: dark, sgr: map[mdStyle]string{}} }

// mdParser is goldmark's CommonMark parser with strikethrough, made on first use.
var mdParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(), util.Prioritized(strikeParser{}, 500))...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
})

// render returns text (already made safe to print) as lines of at most width cells.
// Each table is rendered on its own, at the width its cells need (or the width, if that
// is less), not as wide as the text around it.
func (m *markdown) render(text string, width int) []string {
	width = max(width, 10)
	text = toolui.SafeText(expandTabs(text)) // safe already: this keeps the renderer safe on its own
	parts := splitTables(text)
	if len(parts) == 1 && parts[0].width == 0 {
		return m.renderPart(parts[0], width)
	}
	var out []string
	for _, p := range parts {
		w := width
		if p.width > 0 {
			w = min(width, p.width)
		}
		lines := m.renderPart(p, w)
		if len(out) > 0 && len(lines) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// renderPart renders a table or the text between tables. What the parser cannot take is
// shown as plain wrapped text.
func (m *markdown) renderPart(p mdPart, width int) (lines []string) {
	defer func() {
		if recover() != nil {
			lines = plainLines(p.text, width)
		}
	}()
	r := &mdRender{md: m}
	if p.width > 0 {
		lines = r.table(p.text, width)
	} else {
		r.src = []byte(p.text)
		lines = r.blocks(mdParser().Parse(gtext.NewReader(r.src)), width, false)
	}
	for i, l := range lines {
		if xansi.StringWidth(l) > width { // a nesting deeper than the width leaves room for
			lines[i] = xansi.Truncate(l, width, "")
		}
	}
	return lines
}

// mdPart is a piece of a Markdown text: a table (width: the cells it needs to show its
// cells whole) or the text between tables (width 0).
type mdPart struct {
	text  string
	width int
}

// tableDelimiter is a table's second line: | --- | :-: | ---: |.
var tableDelimiter = lazy.Regexp(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

// splitTables cuts text into its tables (outside code fences) and what lies between.
func splitTables(text string) []mdPart {
	if !strings.Contains(text, "|") {
		return []mdPart{{text: text}}
	}
	lines := strings.Split(text, "\n")
	var parts []mdPart
	start, fence := 0, ""
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if !strings.Contains(t, "|") || i+1 >= len(lines) || !strings.Contains(lines[i+1], "-") || !tableDelimiter().MatchString(lines[i+1]) {
			continue
		}
		end := i + 2
		for end < len(lines) && strings.Contains(lines[end], "|") && strings.TrimSpace(lines[end]) != "" {
			end++
		}
		if i > start {
			parts = append(parts, mdPart{text: strings.Join(lines[start:i], "\n")})
		}
		rows := append([]string{lines[i]}, lines[i+2:end]...)
		parts = append(parts, mdPart{text: strings.Join(lines[i:end], "\n"), width: tableWidth(rows)})
		start, i = end, end-1
	}
	if start < len(lines) {
		parts = append(parts, mdPart{text: strings.Join(lines[start:], "\n")})
	}
	return parts
}

// tableWidth is the cells a table of these rows needs: each column as wide as its widest
// cell, a space either side, and a rule between columns.
func tableWidth(rows []string) int {
	var cols []int
	for _, row := range rows {
		for j, cell := range tableCells(row) {
			if j >= len(cols) {
				cols = append(cols, 0)
			}
			cols[j] = max(cols[j], xansi.StringWidth(cell))
		}
	}
	w := 0
	for _, c := range cols {
		w += c + 3
	}
	return w + 1
}

// tableCells splits a table's row at its pipes (not at an escaped \|), the cells trimmed.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	return append(cells, strings.TrimSpace(row[start:]))
}

// plainLines wraps plain text to width, keeping its own line breaks.
func plainLines(text string, width int) []string {
	return strings.Split(xansi.Wrap(expandTabs(text), max(width, 1), ""), "\n")
}

// expandTabs replaces tabs by spaces: a tab on the screen is a jump of the cursor that
// leaves no cells behind, so code would lose its indentation.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	return strings.ReplaceAll(s, "\t", "    ")
}
