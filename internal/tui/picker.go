package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/sahilm/fuzzy"
)

// picker is a filterable list shown in place of the composer: agents, sessions, modes,
// models, config options and their values. Typing filters, Up and Down move, Enter
// picks, Esc closes.
type picker struct {
	title  string
	items  []pickItem
	filter string
	shown  []int // indexes of items that match the filter
	sel    int   // in shown
	pick   func(pickItem) tea.Cmd
	empty  string // what to say when there is nothing to pick
}

type pickItem struct {
	id, label, desc string
	current         bool
}

func newPicker(title string, items []pickItem, pick func(pickItem) tea.Cmd) *picker {
	p := &picker{title: title, items: items, pick: pick}
	p.refilter()
	for i, idx := range p.shown {
		if items[idx].current {
			p.sel = i
		}
	}
	return p
}

func (p *picker) refilter() {
	p.shown = p.shown[:0]
	if p.filter == "" {
		for i := range p.items {
			p.shown = append(p.shown, i)
		}
	} else {
		texts := make([]string, len(p.items))
		for i, it := range p.items {
			texts[i] = it.label + " " + it.id + " " + it.desc
		}
		for _, m := range fuzzy.Find(p.filter, texts) {
			p.shown = append(p.shown, m.Index)
		}
	}
	p.sel = min(p.sel, max(0, len(p.shown)-1))
}

// key handles a key; done reports that the picker closes (with cmd, the pick's).
func (p *picker) key(k tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	switch k.String() {
	case "esc", "ctrl+c", "ctrl+g":
		return nil, true
	case "up", "ctrl+p":
		if p.sel > 0 {
			p.sel--
		}
	case "down", "ctrl+n", "tab":
		if p.sel < len(p.shown)-1 {
			p.sel++
		}
	case "enter":
		if len(p.shown) == 0 {
			return nil, false
		}
		return p.pick(p.items[p.shown[p.sel]]), true
	case "backspace":
		if p.filter != "" {
			r := []rune(p.filter)
			p.filter = string(r[:len(r)-1])
			p.refilter()
		}
	default:
		if k.Text != "" {
			p.filter += k.Text
			p.refilter()
		}
	}
	return nil, false
}

// view draws the picker in at most height lines.
func (p *picker) view(st styles, width, height int) string {
	var lines []string
	head := st.bold.Render(p.title)
	if p.filter != "" {
		head += "  " + st.accent.Render("filter: ") + p.filter
	} else {
		head += st.dim.Render("  type to filter · ↑↓ move · enter picks · esc closes")
	}
	lines = append(lines, xansi.Truncate(head, width, "…"))
	rows := max(1, height-1)
	first := 0
	if p.sel >= rows {
		first = p.sel - rows + 1
	}
	if len(p.shown) == 0 {
		msg := "(nothing matches)"
		if len(p.items) == 0 && p.empty != "" {
			msg = p.empty
		}
		lines = append(lines, st.dim.Render("  "+msg))
	}
	for i := first; i < len(p.shown) && i < first+rows; i++ {
		it := p.items[p.shown[i]]
		mark := "  "
		if it.current {
			mark = "● "
		}
		line := mark + it.label
		if it.desc != "" {
			line += st.dim.Render("  " + it.desc)
		}
		line = xansi.Truncate(line, width-2, "…")
		if i == p.sel {
			line = st.popupSel.Render(xansi.Strip(line))
		}
		lines = append(lines, "  "+line)
	}
	return strings.Join(lines, "\n")
}
