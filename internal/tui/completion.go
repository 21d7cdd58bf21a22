package tui

import (
	"sort"
	"strings"
	"sync"

	"github.com/parley-acp/parley/internal/chatcmd"
	"github.com/parley-acp/parley/internal/filelist"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/sahilm/fuzzy"
)

// completion is the list shown above the composer while the word at the cursor is an
// @file or (as the prompt's first word) a /command: Tab or Enter takes the selected
// entry, Up and Down move, Esc closes it until the word changes.
type completion struct {
	active bool
	kind   byte   // '@' or '/'
	word   string // the word completed
	row    int    // where it is in the composer
	start  int
	items  []compItem
	sel    int
	closed string // the word Esc closed the list on
}

type compItem struct {
	insert   string // what replaces the word
	label    string
	desc     string
	needsArg bool // a command that takes input the user still has to type
}

// maxCompletions is how many entries the list shows.
const maxCompletions = 8

// command is a slash command: parley's own or the agent's.
type command struct {
	name, desc, hint string
	agent            bool
	needsArg         bool // parley's, with an argument it cannot do without
}

// parleyCommands are handled by parley itself: the table's that the terminal UI offers.
var parleyCommands = sync.OnceValue(func() []command {
	var out []command
	for _, c := range chatcmd.For(chatcmd.TUI) {
		hint := strings.TrimSpace(strings.TrimPrefix(c.Usage(), "/"+c.Name))
		out = append(out, command{name: c.Name, desc: c.Summary, hint: hint, needsArg: len(c.Args) > 0 && !c.Args[0].Optional})
	}
	return out
})

// commandsFor lists parley's commands, then the agent's (parley's own win a name both
// have).
func commandsFor(agentCmds []acp.AvailableCommand) []command {
	out := append([]command(nil), parleyCommands()...)
	for _, c := range agentCmds {
		cmd := command{name: toolui.SafeText(c.Name), desc: toolui.SafeText(c.Description), agent: true}
		if c.Input != nil && c.Input.Unstructured != nil {
			cmd.hint = toolui.SafeText(c.Input.Unstructured.Hint)
		}
		out = append(out, cmd)
	}
	return out
}

// update recomputes the list for the word at the composer's cursor.
func (c *composer) updateCompletion(files *filelist.Index, cmds []command) {
	word, row, start := c.wordAtCursor()
	kind := byte(0)
	switch {
	case strings.HasPrefix(word, "@"):
		kind = '@'
	case strings.HasPrefix(word, "/") && row == 0 && start == 0:
		kind = '/'
	}
	if kind == 0 || word == c.comp.closed {
		c.comp = completion{closed: c.comp.closed}
		if kind == 0 {
			c.comp.closed = ""
		}
		return
	}
	if c.comp.active && c.comp.word == word && c.comp.kind == kind {
		return
	}
	comp := completion{active: true, kind: kind, word: word, row: row, start: start}
	q := word[1:]
	switch kind {
	case '@':
		for _, m := range files.Find(q, maxCompletions) {
			comp.items = append(comp.items, compItem{insert: "@" + quotePath(m.Path), label: "@" + m.Path})
		}
	case '/':
		comp.items = matchCommands(q, cmds)
	}
	if len(comp.items) == 0 {
		comp.active = false
	}
	c.comp = comp
}

func matchCommands(q string, cmds []command) []compItem {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	var order []int
	if q == "" {
		for i := range cmds {
			order = append(order, i)
		}
	} else {
		for _, m := range fuzzy.Find(q, names) {
			order = append(order, m.Index)
		}
		// A name that starts with what was typed comes first.
		sort.SliceStable(order, func(a, b int) bool {
			return strings.HasPrefix(names[order[a]], q) && !strings.HasPrefix(names[order[b]], q)
		})
	}
	var out []compItem
	for _, i := range order {
		c := cmds[i]
		desc := c.desc
		if c.agent {
			desc = "(agent) " + desc
		}
		if c.hint != "" {
			desc += "  ‹" + c.hint + "›"
		}
		out = append(out, compItem{insert: "/" + c.name + " ", label: "/" + c.name, desc: desc, needsArg: c.agent && c.hint != "" || c.needsArg})
	}
	return out
}

// quotePath quotes a path with spaces the way pathTokens reads it.
func quotePath(p string) string {
	if strings.ContainsAny(p, " \t'\"") {
		return `"` + p + `"`
	}
	return p
}

// acceptCompletion puts the selected entry in place of the word.
func (c *composer) acceptCompletion() {
	if !c.comp.active || c.comp.sel >= len(c.comp.items) {
		return
	}
	it := c.comp.items[c.comp.sel]
	insert := it.insert
	if c.comp.kind == '@' {
		insert += " "
	}
	c.replaceWord(c.comp.row, c.comp.start, insert)
	c.comp = completion{}
}

func (c *composer) moveCompletion(d int) {
	if n := len(c.comp.items); n > 0 {
		c.comp.sel = (c.comp.sel + d + n) % n
	}
}

func (c *composer) closeCompletion() {
	c.comp = completion{closed: c.comp.word}
}

func (c *composer) completionView() string {
	if !c.comp.active {
		return ""
	}
	var lines []string
	items := c.comp.items
	if len(items) > maxCompletions {
		items = items[:maxCompletions]
	}
	labelW := 0
	for _, it := range items {
		labelW = max(labelW, xansi.StringWidth(it.label))
	}
	labelW = min(labelW, c.width/2)
	for i, it := range items {
		label := xansi.Truncate(it.label, labelW, "…")
		line := "  " + label + strings.Repeat(" ", labelW-xansi.StringWidth(label))
		if it.desc != "" {
			line += "  " + it.desc
		}
		line = xansi.Truncate(line, c.width, "…")
		if i == c.comp.sel {
			line = c.st.popupSel.Render(line)
		} else {
			line = c.st.popup.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
