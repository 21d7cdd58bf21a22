package tui

import (
	"regexp"
	"strings"

	"charm.land/glamour/v2"
	gstyles "charm.land/glamour/v2/styles"
	xansi "github.com/charmbracelet/x/ansi"
)

// markdown renders the agent's Markdown for the transcript: glamour, wrapped to a width,
// without the document's own margins (the transcript indents). One renderer per width
// and theme is kept: making one costs more than a small render.
type markdown struct {
	dark bool
	rs   map[int]*glamour.TermRenderer // by width: a table is rendered at its own
}

func newMarkdown(dark bool) *markdown { return &markdown{dark: dark} }

// maxRenderers bounds the renderers kept (one per width seen lately).
const maxRenderers = 8

func (m *markdown) renderer(width int) *glamour.TermRenderer {
	if r := m.rs[width]; r != nil {
		return r
	}
	cfg := gstyles.DarkStyleConfig
	if !m.dark {
		cfg = gstyles.LightStyleConfig
		// glamour registers a style's code colours under one name, once a process, so a
		// theme changed after the first code block would keep the first theme's colours;
		// and the light ones are too pale on white. A chroma style of its own for light.
		cfg.CodeBlock.Chroma = nil
		cfg.CodeBlock.Theme = "github"
		inlineCode := "#af005f" // the light style's pink is 2.3:1 on its grey
		cfg.Code.Color = &inlineCode
	}
	// The transcript sets messages apart itself: no blank lines around the document, no
	// margin, and no default text colour (the terminal's own reads best).
	cfg.Document.BlockPrefix, cfg.Document.BlockSuffix = "", ""
	cfg.Document.Margin = nil
	cfg.Document.Color = nil
	zero := uint(0)
	cfg.CodeBlock.Margin = &zero
	r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(width), glamour.WithChromaFormatter("terminal256"))
	if err != nil {
		return nil
	}
	if m.rs == nil || len(m.rs) >= maxRenderers {
		m.rs = map[int]*glamour.TermRenderer{}
	}
	m.rs[width] = r
	return r
}

// render returns text (already made safe to print) as lines of at most width cells.
// What glamour cannot render is shown as plain wrapped text. glamour draws a table as
// wide as the text around it, however little it holds: each table is rendered on its
// own, at the width its cells need.
func (m *markdown) render(text string, width int) []string {
	width = max(width, 10)
	text = expandTabs(text)
	parts := splitTables(text)
	if len(parts) == 1 && parts[0].width == 0 {
		return m.renderPart(text, width)
	}
	var out []string
	for _, p := range parts {
		w := width
		if p.width > 0 {
			w = min(width, p.width)
		}
		lines := m.renderPart(p.text, w)
		if len(out) > 0 && len(lines) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

func (m *markdown) renderPart(text string, width int) []string {
	r := m.renderer(width)
	if r == nil {
		return plainLines(text, width)
	}
	out, err := r.Render(text)
	if err != nil {
		return plainLines(text, width)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	// glamour pads lines with spaces to the wrap width; the padding only costs cells.
	for i, l := range lines {
		lines[i] = trimRightSpace(l)
	}
	for len(lines) > 0 && strings.TrimSpace(xansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(xansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// mdPart is a piece of a Markdown text: a table (width: the cells it needs to show its
// cells whole) or the text between tables (width 0).
type mdPart struct {
	text  string
	width int
}

var tableDelimiter = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

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
		if !strings.Contains(t, "|") || i+1 >= len(lines) || !strings.Contains(lines[i+1], "-") || !tableDelimiter.MatchString(lines[i+1]) {
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
		row = strings.TrimSpace(row)
		row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
		for j, cell := range strings.Split(row, "|") {
			if j >= len(cols) {
				cols = append(cols, 0)
			}
			cols[j] = max(cols[j], xansi.StringWidth(strings.TrimSpace(cell)))
		}
	}
	w := 0
	for _, c := range cols {
		w += c + 3
	}
	return w + 1
}

// trimRightSpace drops trailing spaces, also those inside a trailing style sequence.
func trimRightSpace(l string) string {
	trimmed := strings.TrimRight(l, " ")
	if !strings.HasSuffix(trimmed, "m") || !strings.Contains(l, "\x1b") {
		return trimmed
	}
	// Styled padding: "text\x1b[0m    \x1b[0m" — cut the visible width back.
	w := xansi.StringWidth(strings.TrimRight(xansi.Strip(l), " "))
	if w == xansi.StringWidth(l) {
		return l
	}
	return xansi.Truncate(l, w, "") + "\x1b[0m"
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
