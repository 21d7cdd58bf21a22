package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"
)

// composer is where the user writes: a multi-line editor (Enter sends; Shift+Enter,
// Alt+Enter or Ctrl+J start a new line; a bracketed paste is inserted whole, newlines
// and all), with the workspace's history (Up on the first line, Down on the last, Ctrl+R
// to search) and completion of @files and /commands.
type composer struct {
	ta    textarea.Model
	hist  *history
	st    styles
	width int

	// Ctrl+R: the search typed, and the entry found (-1: none).
	searching bool
	query     string
	found     int

	comp completion
}

// maxComposerHeight is the most lines the composer takes before it scrolls.
const maxComposerHeight = 10

func newComposer(st styles, hist *history) *composer {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.MaxWidth = 0
	ta.Placeholder = "Message the agent — @ to attach a file, / for commands"
	ta.SetVirtualCursor(false)
	ta.SetPromptFunc(2, func(info textarea.PromptInfo) string {
		if info.LineNumber == 0 {
			return st.accent.Render("›") + " "
		}
		return "  "
	})
	km := textarea.DefaultKeyMap()
	km.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"))
	km.Paste.Unbind() // pasting is the terminal's (bracketed paste): no clipboard program runs
	km.LinePrevious = key.NewBinding(key.WithKeys("up"))
	km.LineNext = key.NewBinding(key.WithKeys("down"))
	km.DeleteCharacterForward = key.NewBinding(key.WithKeys("delete"))
	ta.KeyMap = km
	s := textarea.DefaultStyles(true)
	s.Focused.CursorLine = lipgloss.NewStyle()
	s.Focused.Placeholder = st.dim
	s.Blurred.Placeholder = st.dim
	s.Cursor.Blink = false
	ta.SetStyles(s)
	ta.Focus()
	c := &composer{ta: ta, hist: hist, st: st, found: -1}
	c.fit()
	return c
}

func (c *composer) setWidth(w int) {
	c.width = w
	c.ta.SetWidth(w)
	c.fit()
}

// fit makes the editor as tall as its text, up to maxComposerHeight.
func (c *composer) fit() {
	h := c.ta.LineCount()
	// Soft-wrapped lines count too.
	if w := c.ta.Width(); w > 0 {
		h = 0
		for _, l := range strings.Split(c.ta.Value(), "\n") {
			h += max(1, (xansi.StringWidth(l)+w)/w)
		}
	}
	c.ta.SetHeight(min(max(h, 1), maxComposerHeight))
}

func (c *composer) value() string { return c.ta.Value() }

func (c *composer) setValue(s string) {
	c.ta.SetHeight(maxComposerHeight)
	c.ta.SetValue(s)
	c.fit()
}

func (c *composer) reset() {
	c.ta.Reset()
	c.hist.reset()
	c.comp = completion{}
	c.fit()
}

// update passes a key or a paste to the editor, handling history at its edges.
func (c *composer) update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "up":
			if c.ta.Line() == 0 && c.ta.LineInfo().RowOffset == 0 {
				if s, ok := c.hist.prev(c.value()); ok {
					c.setValue(s)
					c.ta.MoveToBegin()
				}
				return nil
			}
		case "down":
			if c.ta.Line() == c.ta.LineCount()-1 && c.ta.LineInfo().RowOffset == c.ta.LineInfo().Height-1 {
				if s, ok := c.hist.next(); ok {
					c.setValue(s)
				}
				return nil
			}
		}
	}
	// At its tallest while it takes the key, the editor never scrolls for a line it is
	// about to grow by; fit then makes it as tall as its text.
	c.ta.SetHeight(maxComposerHeight)
	var cmd tea.Cmd
	c.ta, cmd = c.ta.Update(msg)
	c.fit()
	return cmd
}

// Ctrl+R: searching the history.

func (c *composer) startSearch() {
	c.searching, c.query, c.found = true, "", -1
}

// searchKey handles a key while searching; it reports false when the search is over.
func (c *composer) searchKey(k tea.KeyPressMsg) {
	switch k.String() {
	case "ctrl+r":
		if c.found > 0 {
			if _, i := c.hist.search(c.query, c.found); i >= 0 {
				c.found = i
			}
		}
		return
	case "backspace":
		if c.query != "" {
			r := []rune(c.query)
			c.query = string(r[:len(r)-1])
		}
	case "enter", "tab", "right", "end":
		if c.found >= 0 {
			c.setValue(c.hist.entries[c.found])
		}
		c.searching = false
		return
	case "esc", "ctrl+g", "ctrl+c":
		c.searching = false
		return
	default:
		if k.Text == "" {
			return
		}
		c.query += k.Text
	}
	_, c.found = c.hist.search(c.query, len(c.hist.entries))
}

func (c *composer) view() string {
	if c.searching {
		found := ""
		if c.found >= 0 {
			found = strings.ReplaceAll(c.hist.entries[c.found], "\n", "⏎")
		} else if c.query != "" {
			found = c.st.dim.Render("(no match)")
		}
		line := c.st.accent.Render("history search: ") + c.query + c.st.dim.Render(" → ") + found
		return xansi.Truncate(line, c.width, "…") + "\n" + c.st.dim.Render("  enter takes it · ctrl+r older · esc cancels")
	}
	return c.ta.View()
}

// cursor is where the terminal's cursor goes, relative to the composer's top left.
func (c *composer) cursor() *tea.Cursor {
	if c.searching {
		return nil
	}
	return c.ta.Cursor()
}

func (c *composer) height() int {
	if c.searching {
		return 2
	}
	return c.ta.Height()
}

// wordAtCursor is the word the cursor ends (what completion completes) and where it
// starts in the cursor's row (in runes), on the first row or another.
func (c *composer) wordAtCursor() (word string, row, start int) {
	row = c.ta.Line()
	lines := strings.Split(c.value(), "\n")
	if row >= len(lines) {
		return "", row, 0
	}
	rs := []rune(lines[row])
	col := min(c.cursorColumn(), len(rs))
	start = col
	for start > 0 && rs[start-1] != ' ' && rs[start-1] != '\t' {
		start--
	}
	return string(rs[start:col]), row, start
}

// cursorColumn is the cursor's rune offset in its row.
func (c *composer) cursorColumn() int {
	li := c.ta.LineInfo()
	return li.StartColumn + li.ColumnOffset
}

// replaceWord puts s in place of the word at the cursor, the cursor after it.
func (c *composer) replaceWord(row, start int, s string) {
	lines := strings.Split(c.value(), "\n")
	rs := []rune(lines[row])
	col := min(c.cursorColumn(), len(rs))
	lines[row] = string(rs[:start]) + s + string(rs[col:])
	c.ta.SetValue(strings.Join(lines, "\n"))
	for range len(lines) - 1 - row {
		c.ta.CursorUp()
	}
	c.ta.SetCursorColumn(start + len([]rune(s)))
	c.fit()
}
