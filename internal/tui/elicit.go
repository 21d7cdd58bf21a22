package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
)

// formPanel is the agent asking the user something (an elicitation), in place of the
// composer like a permission question: a form a field at a time (a secret one masked),
// then a summary to send, start over, decline or cancel; or a page to open, shown whole
// with its host (and a warning when the host may imitate another name), opened only once
// the user says so. A form of parley's own (the variables a sign-in needs) is sent once
// its last field is answered. Keys of its first moment answer nothing, as for questions.
type formPanel struct {
	ask     conversation.ElicitationAsked
	send    func(conversation.ElicitationAnswer) error
	openURL func(string) error
	shownAt time.Time

	field   int            // the field asked; len(Fields) is the summary
	values  map[string]any // the answers so far
	input   string         // what is typed for the field
	problem string         // why the last answer did not do
	note    string         // what happened (the page opened)
	ignored int
	done    bool
}

func newFormPanel(ask conversation.ElicitationAsked, send func(conversation.ElicitationAnswer) error, openURL func(string) error, now time.Time) *formPanel {
	p := &formPanel{ask: ask, send: send, openURL: openURL, shownAt: now, values: map[string]any{}}
	if f := ask.Elicitation.Form; f != nil {
		if !f.Answerable {
			p.field = len(f.Fields)
		} else {
			p.skipUnknown()
		}
	}
	return p
}

// own reports a form of parley's own (no id): sent once its last field is answered.
func (p *formPanel) own() bool { return p.ask.ID == 0 }

func (p *formPanel) form() *conversation.Form { return p.ask.Elicitation.Form }

// skipUnknown moves past fields parley cannot ask (optional ones of a kind it does not
// know).
func (p *formPanel) skipUnknown() {
	f := p.form()
	for p.field < len(f.Fields) && f.Fields[p.field].Kind == conversation.FieldUnknown {
		p.field++
	}
}

// answer sends a, and reports whether the panel is done.
func (p *formPanel) answer(a conversation.ElicitationAnswer) bool {
	if err := p.send(a); err != nil {
		p.problem = err.Error()
		if f := p.form(); f != nil && f.Answerable {
			p.values, p.field, p.input = map[string]any{}, 0, ""
			p.skipUnknown()
		}
		return false
	}
	p.done = true
	return true
}

func (p *formPanel) action(a acp.ElicitationAction) bool {
	return p.answer(conversation.ElicitationAnswer{Action: a})
}

// key handles a key; it reports whether the panel is done.
func (p *formPanel) key(k tea.KeyPressMsg, now time.Time) bool {
	if now.Sub(p.shownAt) < answerGrace {
		p.ignored++
		return false
	}
	s := k.String()
	if s == "esc" {
		return p.action(acp.ElicitationActionDecline)
	}
	el := p.ask.Elicitation
	switch {
	case el.URL != nil:
		return p.urlKey(s)
	case p.field >= len(p.form().Fields):
		return p.summaryKey(s)
	}
	switch s {
	case "enter":
		f := p.form().Fields[p.field]
		v, err := f.Parse(p.input)
		if err != nil {
			p.problem = err.Error() // it never quotes what was typed
			return false
		}
		p.problem = ""
		if v == nil {
			delete(p.values, f.Name)
		} else {
			p.values[f.Name] = v
		}
		p.field++
		p.input = ""
		p.skipUnknown()
		if p.field == len(p.form().Fields) && p.own() {
			return p.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionAccept, Content: p.values})
		}
	case "backspace":
		if r := []rune(p.input); len(r) > 0 {
			p.input = string(r[:len(r)-1])
		}
	case "ctrl+u":
		p.input = ""
	default:
		p.input += k.Text
	}
	return false
}

// paste adds pasted text to the field (one line).
func (p *formPanel) paste(text string) {
	if p.ask.Elicitation.Form != nil && p.field < len(p.form().Fields) {
		p.input += strings.ReplaceAll(strings.TrimRight(text, "\r\n"), "\n", " ")
	}
}

func (p *formPanel) summaryKey(s string) bool {
	switch strings.ToLower(s) {
	case "y", "s":
		if p.form().Answerable {
			return p.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionAccept, Content: p.values})
		}
	case "r":
		if p.form().Answerable {
			p.values, p.field, p.input = map[string]any{}, 0, ""
			p.skipUnknown()
		}
	case "d":
		return p.action(acp.ElicitationActionDecline)
	case "n":
		if len(p.form().Fields) == 0 { // a yes-or-no question of parley's own
			return p.action(acp.ElicitationActionDecline)
		}
		p.ignored++
	case "c":
		return p.action(acp.ElicitationActionCancel)
	default:
		p.ignored++
	}
	return false
}

func (p *formPanel) urlKey(s string) bool {
	u := p.ask.Elicitation.URL
	switch strings.ToLower(s) {
	case "o":
		if p.openURL == nil {
			p.ignored++
			return false
		}
		if err := conversation.CheckPageURL(u.URL); err != nil { // the core declined it already; a second look costs nothing
			p.note = fmt.Sprintf("parley will not open it: %v", err)
			return p.action(acp.ElicitationActionDecline)
		}
		if err := p.openURL(u.URL); err != nil {
			p.note = fmt.Sprintf("parley could not open it (%v): open it yourself", err)
		}
		return p.action(acp.ElicitationActionAccept)
	case "a":
		return p.action(acp.ElicitationActionAccept)
	case "d":
		return p.action(acp.ElicitationActionDecline)
	case "c":
		return p.action(acp.ElicitationActionCancel)
	}
	p.ignored++
	return false
}

// view draws the panel in at most maxLines lines; cursorRow is the row of the input
// line (-1: none), for the terminal's cursor.
func (p *formPanel) view(st styles, width, maxLines int) (text string, cursorRow, cursorCol int) {
	el := p.ask.Elicitation
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	say := func(style func(...string) string, text string) {
		for _, l := range plainLines(toolui.SafeText(strings.TrimSpace(text)), width-4) {
			add("  " + style(l))
		}
	}
	if p.own() {
		add(st.question.Render("parley asks:"))
	} else {
		add(st.question.Render("The agent asks: ") + toolui.SafeText(oneLine(el.Agent)))
	}
	say(st.user.Bold(false).Render, el.Message)
	cursorRow = -1
	var keys string
	switch {
	case el.URL != nil:
		u := el.URL
		add("  It asks you to open this page:")
		add("    " + st.accent.Render(toolui.SafeText(oneLine(u.URL))))
		add("  host: " + st.bold.Render(toolui.SafeText(oneLine(u.Host))))
		if u.Punycode {
			add("  " + st.fail.Render("Warning: the host name has international characters (punycode): it may imitate another site's name."))
		}
		keys = "[o] open it in your browser  [a] I will open it myself  [d] decline  [c] cancel"
	case el.Form != nil:
		f := el.Form
		if f.Title != "" {
			add("  " + st.bold.Render(toolui.SafeText(oneLine(f.Title))))
		}
		if f.Description != "" {
			say(st.dim.Render, f.Description)
		}
		switch {
		case !f.Answerable:
			add(st.dim.Render("  parley cannot show every field of this form."))
			keys = "[d] decline  [c] cancel"
		case len(f.Fields) == 0:
			keys = "[y] yes  [n] no (esc)" // a question of parley's own: the message asks it
		case p.field >= len(f.Fields):
			add("  Your answers:")
			for _, fl := range f.Fields {
				if v, ok := p.values[fl.Name]; ok {
					add("    " + toolui.SafeText(oneLine(fl.Label())) + ": " + toolui.SafeText(oneLine(fl.Show(v))))
				}
			}
			keys = "[y] send  [r] start over  [d] decline  [c] cancel"
		default:
			fl := f.Fields[p.field]
			head := fmt.Sprintf("  %d/%d %s", p.field+1, len(f.Fields), st.bold.Render(toolui.SafeText(oneLine(fl.Label()))))
			hint := fl.Hint()
			if fl.Secret {
				hint = strings.TrimPrefix(hint+", hidden as you type", ", ")
			}
			if hint != "" {
				head += st.dim.Render(" (" + toolui.SafeText(oneLine(hint)) + ")")
			}
			add(head)
			if fl.Description != "" {
				say(st.dim.Render, fl.Description)
			}
			for n, c := range fl.Choices {
				line := fmt.Sprintf("    %d) %s", n+1, toolui.SafeText(oneLine(c.Value)))
				if c.Title != "" && c.Title != c.Value {
					line += " — " + toolui.SafeText(oneLine(c.Title))
				}
				add(line)
			}
			if fl.Default != nil && !fl.Secret {
				add(st.dim.Render("    default: " + toolui.SafeText(oneLine(fl.Show(fl.Default)))))
			}
			shown := toolui.SafeText(p.input)
			if fl.Secret {
				shown = strings.Repeat("•", len([]rune(p.input)))
			}
			cursorRow = len(lines)
			prompt := "  " + st.accent.Render("›") + " "
			add(prompt + shown)
			cursorCol = xansi.StringWidth(xansi.Strip(prompt)) + xansi.StringWidth(shown)
			keys = "enter answers (empty: the default, or skips)  esc declines the form  ctrl+c cancels it"
		}
	}
	if p.problem != "" {
		add("  " + st.fail.Render("✗ "+toolui.SafeText(oneLine(p.problem))))
	}
	if p.note != "" {
		add(st.dim.Render("  " + toolui.SafeText(oneLine(p.note))))
	}
	add("  " + st.statusKey.Render(keys))
	if p.ignored > 0 {
		add(st.dim.Render("  (" + toolstate.Count(p.ignored, "key", "keys") + " ignored: keys typed before the question, or that answer nothing, are ignored)"))
	}
	if len(lines) > maxLines {
		// Keep the question's head and its input; cut the middle.
		keep := lines[len(lines)-(maxLines-1):]
		if cursorRow >= 0 {
			cursorRow -= len(lines) - len(keep) - 1
		}
		lines = append([]string{lines[0]}, keep...)
	}
	for i, l := range lines {
		lines[i] = xansi.Truncate(l, width, "…")
	}
	return strings.Join(lines, "\n"), cursorRow, cursorCol
}
