package cli

import (
	"fmt"
	"strings"

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
	fmt.Fprintf(&b, "\nThe agent asks permission: %s\n", oneLineSafe(title))
	s := q.Subject
	switch {
	case s.Command != "":
		fmt.Fprintf(&b, "  The agent runs: %s\n", oneLineSafe(s.Command))
	case s.Kind == "execute":
		b.WriteString("  The agent did not say which command it runs; judge it by its title.\n")
	}
	if s.Analysis != nil && s.Tier() > safety.None {
		fmt.Fprintf(&b, "  Risk: %s: %s\n", s.Tier(), oneLineSafe(s.Analysis.Reason()))
	}
	if s.Critical() {
		b.WriteString("  Critical commands are asked about every time.\n")
	}
	for _, d := range q.Diffs {
		verb := "Edit"
		if d.IsNew {
			verb = "Create"
		}
		fmt.Fprintf(&b, "  %s %s (+%d −%d):\n", verb, oneLineSafe(d.Path), d.Added, d.Removed)
		for _, l := range d.ShortUnified(questionDiffLines) {
			fmt.Fprintf(&b, "    %s\n", toolui.SafeText(l)) // a diff line keeps its leading mark
		}
	}
	if s.Always != "" && (offers(q.Answers, permission.AllowAlways) || offers(q.Answers, permission.RejectAlways)) {
		fmt.Fprintf(&b, "  always covers: %s\n", oneLineSafe(s.Always))
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
func oneLineSafe(s string) string {
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

// ask shows a question.
func (c *console) ask(q *permission.Question) {
	c.mu.Lock()
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	c.mu.Unlock()
	fmt.Fprint(c.stderr, questionText(q))
}

// retry says which answers there are, after a line that was none of them.
func (c *console) retry(offered []permission.Answer) {
	fmt.Fprintf(c.stderr, "%s\n? ", retryText(offered))
}
