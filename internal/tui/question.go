package tui

import (
	"strings"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
)

// questionPanel is a permission question on screen, in place of the composer (whose
// text waits unchanged): what runs — the command, or the edit's diff — its risk, what
// "always" covers, and the answers as keys. Keys pressed before it was drawn, or in the
// moment after, answer nothing: a key meant for the composer must not approve a command.
type questionPanel struct {
	q       conversation.QuestionAsked
	tool    *toolstate.ToolCall // the call the question is about, as the transcript knows it
	shownAt time.Time
	ignored int // keys ignored: the panel says how many, and why
}

// answerGrace is how long after a question appears its keys are not taken: a key typed
// for the composer a moment before it appeared must not answer it.
const answerGrace = 250 * time.Millisecond

// offeredKeys are the keys of the answers q offers, as the status line names them
// ("y/n" when only those are offered).
func offeredKeys(q *permission.Question) string {
	var keys []string
	for _, ak := range answerKeys {
		if offered(q, ak.answer) {
			keys = append(keys, ak.keys[0])
		}
	}
	return strings.Join(keys, "/")
}

var answerKeys = []struct {
	answer permission.Answer
	keys   []string
	label  string
}{
	{permission.AllowOnce, []string{"y", "1"}, "allow once"},
	{permission.AllowWhileConfined, []string{"c", "5"}, "allow while confined"},
	{permission.AllowAlways, []string{"a", "2"}, "allow always"},
	{permission.RejectOnce, []string{"n", "3"}, "reject once"},
	{permission.RejectAlways, []string{"r", "4"}, "reject always"},
}

func offered(q *permission.Question, a permission.Answer) bool {
	for _, x := range q.Answers {
		if x == a {
			return true
		}
	}
	return false
}

// key reads a key as an answer.
func (p *questionPanel) key(k tea.KeyPressMsg, now time.Time) (permission.Answer, bool) {
	if now.Sub(p.shownAt) < answerGrace {
		p.ignored++
		return 0, false
	}
	s := strings.ToLower(k.String())
	for _, ak := range answerKeys {
		for _, key := range ak.keys {
			if s == key && offered(p.q.Question, ak.answer) {
				return ak.answer, true
			}
		}
	}
	if s == "esc" {
		return permission.RejectOnce, true
	}
	p.ignored++
	return 0, false
}

// view draws the question in at most maxLines lines.
func (p *questionPanel) view(st styles, root string, width, maxLines int) string {
	q := p.q.Question
	req := q.Request
	title := req.ToolCall.Title
	if title == "" && p.tool != nil {
		title = p.tool.InvocationMessage
	}
	if rawName(title) { // a tool's name, not words: parley's words for the call
		switch {
		case q.Subject.Command != "":
			title = "Run " + toolstate.Code(oneLine(q.Subject.Command))
		case p.tool != nil && p.tool.InvocationMessage != "":
			title = p.tool.InvocationMessage
		}
	}
	if title == "" {
		title = string(req.ToolCall.ToolCallID)
	}
	var head, body, foot []string
	head = append(head, st.question.Render("The agent asks permission: ")+toolui.SafeText(oneLine(title)))
	s := q.Subject
	switch {
	case s.Command != "":
		head = append(head, "  runs: "+st.accent.Render(toolui.SafeText(oneLine(s.Command))))
	case s.Kind == "execute":
		head = append(head, st.dim.Render("  The agent did not say which command it runs; judge it by its title."))
	}
	if s.Analysis != nil && s.Tier() > safety.None {
		risk := st.warn
		if s.Tier() >= safety.High {
			risk = st.fail
		}
		head = append(head, "  "+risk.Render("risk: "+s.Tier().String())+": "+toolui.SafeText(oneLine(s.Analysis.Reason())))
	}
	if s.Critical() {
		head = append(head, st.fail.Render("  Critical commands are asked about every time."))
	}
	if p.tool != nil {
		r := &renderCtx{st: st, root: root}
		diffs := q.Diffs // parley's, against the files as they are
		if len(diffs) == 0 {
			diffs = p.tool.Diffs
		}
		for _, d := range diffs {
			body = append(body, diffLines(r, d, width-4, "  ", 400)...)
		}
		if len(p.tool.Diffs) == 0 && s.Command == "" {
			if in := prettyJSON(p.tool.RawInput); in != "" {
				body = append(body, boxed(r, toolui.SafeText(in), width-4, "  ", 20)...)
			}
		}
	}
	if covers := permission.AlwaysCovers(s, offered(q, permission.AllowAlways), offered(q, permission.RejectAlways)); covers != "" {
		foot = append(foot, st.dim.Render("  "+toolui.SafeText(oneLine(covers))))
	}
	if covers := permission.WhileConfinedCovers(s, offered(q, permission.AllowWhileConfined)); covers != "" {
		foot = append(foot, st.dim.Render("  "+toolui.SafeText(oneLine(covers))))
	}
	var keys []string
	for _, ak := range answerKeys {
		if offered(q, ak.answer) {
			keys = append(keys, st.statusKey.Render("["+ak.keys[0]+"]")+" "+ak.label)
		}
	}
	keys = append(keys, st.dim.Render("· esc rejects"), st.dim.Render("· ctrl+c cancels the turn"))
	foot = append(foot, packed(keys, "  ", "  ", width)...)
	if p.ignored > 0 {
		foot = append(foot, st.dim.Render("  ("+toolstate.Count(p.ignored, "key", "keys")+" ignored: keys typed before the question, or that answer nothing, are ignored)"))
	}
	// Every line wrapped, not cut: on a narrow terminal the answers and what they
	// answer must all still be seen.
	head, foot = wrapAll(head, width), wrapAll(foot, width)
	room := maxLines - len(head) - len(foot)
	if len(body) > room {
		cut := len(body) - max(room-1, 0)
		body = append(body[:max(room-1, 0)], st.dim.Render("  … "+toolstate.Count(cut, "more line", "more lines")))
	}
	lines := append(append(head, wrapAll(body, width)...), foot...)
	return strings.Join(lines, "\n")
}

// rawName reports whether a title is a tool's internal name ("run_terminal_command",
// "Bash", "edit") rather than words for what the call does.
func rawName(title string) bool {
	if title == "" || strings.ContainsAny(title, " `") {
		return title == ""
	}
	for _, r := range title {
		if !(r == '_' || r == '-' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}
