package tui

import (
	"strings"

	"charm.land/glamour/v2"
	gstyles "charm.land/glamour/v2/styles"
	xansi "github.com/charmbracelet/x/ansi"
)

// markdown renders the agent's Markdown for the transcript: glamour, wrapped to a width,
// without the document's own margins (the transcript indents). One renderer per width
// and theme is kept: making one costs more than a small render.
type markdown struct {
	dark  bool
	width int
	r     *glamour.TermRenderer
}

func newMarkdown(dark bool) *markdown { return &markdown{dark: dark} }

func (m *markdown) renderer(width int) *glamour.TermRenderer {
	if m.r != nil && m.width == width {
		return m.r
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
	m.r, m.width = r, width
	return r
}

// render returns text (already made safe to print) as lines of at most width cells.
// What glamour cannot render is shown as plain wrapped text.
func (m *markdown) render(text string, width int) []string {
	width = max(width, 10)
	text = expandTabs(text)
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
