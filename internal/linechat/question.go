package linechat

import (
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/toolui"
)

// A permission question comes from the conversation (internal/conversation) as an
// event, one at a time; the goroutine that reads the user's input (the chat loop, or
// run's) shows it and takes the next line it reads as the answer, never as a prompt.

// answerKeys are the letters that answer, and what they are called in the question.
var answerKeys = []struct {
	answer permission.Answer
	key    string
	label  string
	words  []string
}{
	{permission.AllowOnce, "y", "allow once", []string{"y", "yes", "allow", "once"}},
	{permission.AllowWhileConfined, "c", "allow while confined", []string{"c", "confined"}},
	{permission.AllowAlways, "a", "allow always", []string{"a", "always"}},
	{permission.RejectOnce, "n", "reject once", []string{"n", "no", "reject"}},
	{permission.RejectAlways, "r", "reject always", []string{"r", "never"}},
}

// questionText is a question as the user sees it. Everything the agent wrote is passed
// through toolui.SafeText: a title cannot redraw the screen.
func questionText(q *permission.Question) string {
	var b strings.Builder
	title := q.Request.ToolCall.Title
	if title == "" {
		title = string(q.Request.ToolCall.ToolCallID)
	}
	fmt.Fprintf(&b, "\nThe agent asks permission: %s", OneLineSafe(title))
	if name := q.Request.ToolCall.Name; name != "" && name != title {
		fmt.Fprintf(&b, " (its tool %s)", OneLineSafe(name))
	}
	b.WriteString("\n")
	s := q.Subject
	switch {
	case s.Command != "":
		fmt.Fprintf(&b, "  The agent runs: %s\n", OneLineSafe(s.Command))
	case s.Kind == "execute":
		b.WriteString("  The agent did not say which command it runs; judge it by its title.\n")
	}
	if s.Analysis != nil && s.Tier() > safety.None {
		fmt.Fprintf(&b, "  %s\n", permission.RiskText(s.Tier(), OneLineSafe(s.Analysis.Reason())))
	}
	if s.Critical() {
		b.WriteString("  Critical commands are asked about every time.\n")
	}
	for _, d := range q.Diffs {
		verb := "Edit"
		if d.IsNew {
			verb = "Create"
		}
		fmt.Fprintf(&b, "  %s %s (+%d −%d):\n", verb, OneLineSafe(d.Path), d.Added, d.Removed)
		for _, l := range d.ShortUnified(questionDiffLines) {
			fmt.Fprintf(&b, "    %s\n", toolui.SafeText(l)) // a diff line keeps its leading mark
		}
	}
	if covers := permission.AlwaysCovers(s, offers(q.Answers, permission.AllowAlways), offers(q.Answers, permission.RejectAlways)); covers != "" {
		fmt.Fprintf(&b, "  %s\n", OneLineSafe(covers))
	}
	if covers := permission.WhileConfinedCovers(s, offers(q.Answers, permission.AllowWhileConfined)); covers != "" {
		fmt.Fprintf(&b, "  %s\n", OneLineSafe(covers))
	}
	b.WriteString(" ")
	for _, k := range answerKeys {
		if offers(q.Answers, k.answer) {
			fmt.Fprintf(&b, " [%s] %s", k.key, k.label)
		}
	}
	b.WriteString("\n? ")
	return b.String()
}

// questionDiffLines bounds the diff a question shows of each edit: enough to judge a
// small edit, a summary of a large one (the last line says how much more there is).
const questionDiffLines = 24

// oneLineSafe is text from the agent on one line, made safe to print.
func OneLineSafe(s string) string {
	return toolui.SafeText(strings.ReplaceAll(strings.TrimSpace(s), "\n", "⏎"))
}

func offers(answers []permission.Answer, a permission.Answer) bool {
	for _, x := range answers {
		if x == a {
			return true
		}
	}
	return false
}

// parseAnswer reads a line as one of the offered answers.
func parseAnswer(line string, offered []permission.Answer) (permission.Answer, bool) {
	line = strings.ToLower(strings.TrimSpace(line))
	for _, k := range answerKeys {
		for _, w := range k.words {
			if line == w && offers(offered, k.answer) {
				return k.answer, true
			}
		}
	}
	return 0, false
}

// retryText says which answers there are.
func retryText(offered []permission.Answer) string {
	var keys []string
	for _, k := range answerKeys {
		if offers(offered, k.answer) {
			keys = append(keys, k.key)
		}
	}
	if len(keys) > 1 {
		keys[len(keys)-1] = "or " + keys[len(keys)-1]
	}
	return "Please answer " + strings.Join(keys, ", ") + " (or /quit)."
}

// onScreen is a permission question on screen, and what it takes to answer it only
// with what the user types once it is shown: what was typed before (for the next
// prompt, or pushed into the terminal by something else) is discarded each time the
// question, or the reminder of its answers, is about to be shown.
type Question struct {
	conversation.QuestionAsked
	con   *Console
	in    *Prompter // nil: nobody answers
	mark  uint64    // a line read in an older epoch was typed before the question
	noted bool      // the user was told that type-ahead was ignored
}

// showQuestion shows q. The discard comes just before the question is shown, not after:
// a script that answers as soon as it sees the question must not lose its answer.
func (c *Console) ShowQuestion(q conversation.QuestionAsked, in *Prompter) *Question {
	s := &Question{QuestionAsked: q, con: c, in: in}
	c.mu.Lock()
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	c.mu.Unlock()
	s.mark = s.discard(false)
	fmt.Fprint(c.stderr, questionText(q.Question))
	return s
}

func (s *Question) discard(shown bool) uint64 {
	if s.in == nil {
		return 0
	}
	mark, dropped := s.in.DiscardTypeAhead()
	if dropped {
		s.ignored(shown)
	}
	return mark
}

// ignored tells the user, once per question, why their line did nothing.
func (s *Question) ignored(shown bool) {
	if s.noted {
		return
	}
	s.noted = true
	if shown {
		fmt.Fprint(s.con.stderr, "\n(ignored what was typed before the question)\n? ")
	} else {
		fmt.Fprintln(s.con.stderr, "(ignored what was typed before the question)")
	}
}

// read takes a line the user typed while the question was on screen: ok when it answers
// (quit: /quit, which refuses and leaves). A line typed before the question is ignored;
// one that is no answer brings the reminder.
func (s *Question) Read(l InputLine) (a permission.Answer, quit, ok bool) {
	if l.Epoch < s.mark {
		s.ignored(true)
		return 0, false, false
	}
	if t := strings.TrimSpace(l.Text); t == "/quit" || t == "/exit" {
		return permission.RejectOnce, true, true
	}
	if a, ok := parseAnswer(l.Text, s.Question.Answers); ok {
		return a, false, true
	}
	s.mark = s.discard(false)
	fmt.Fprintf(s.con.stderr, "%s\n? ", retryText(s.Question.Answers))
	return 0, false, false
}
