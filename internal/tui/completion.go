package tui

import (
	"github.com/parley-acp/parley/internal/filelist"
	"sort"
	"strings"

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
}

// parleyCommands are handled by parley itself.
var parleyCommands = []command{
	{name: "help", desc: "keys and commands"},
	{name: "mode", desc: "pick the session's mode", hint: "[mode]"},
	{name: "model", desc: "pick the model", hint: "[model]"},
	{name: "config", desc: "the agent's other settings"},
	{name: "sessions", desc: "the agent's sessions: load or resume one"},
	{name: "new", desc: "start a new session with this agent"},
	{name: "agent", desc: "talk to another agent, or switch conversation"},
	{name: "login", desc: "sign in to the agent", hint: "[method]"},
	{name: "changes", desc: "what the agent changed, turn by turn"},
	{name: "diff", desc: "the diff of a file the agent changed (default: the last turn's)", hint: "[file|turn]"},
	{name: "undo", desc: "take back the last turn's changes (or a file's, or a turn's)", hint: "[file|turn]"},
	{name: "rewind", desc: "take back every turn from this one on", hint: "turn"},
	{name: "keep", desc: "keep changes: they can no longer be undone", hint: "[file|turn]"},
	{name: "find", desc: "search the transcript (ctrl+f)", hint: "text"},
	{name: "copy", desc: "copy the agent's last reply (or its last code block) to the clipboard", hint: "[code]"},
	{name: "quit", desc: "leave parley"},
}

// commandsFor lists parley's commands, then the agent's (parley's own win a name both
// have).
func commandsFor(agentCmds []acp.AvailableCommand) []command {
	out := append([]command(nil), parleyCommands...)
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
		out = append(out, compItem{insert: "/" + c.name + " ", label: "/" + c.name, desc: desc, needsArg: c.agent && c.hint != "" || c.name == "find" || c.name == "rewind"})
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
