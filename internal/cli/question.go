package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/toolui"
)

// A permission question goes from the policy (on the agent's request goroutine) to the
// one goroutine that reads the user's input: the chat loop, or run's question server.
// The console's questions channel is unbuffered, so questions wait their turn in the
// order they came and only one is ever on screen; the line the user types next answers
// the question on screen, never the chat prompt.

// pendingQuestion is a question waiting to be shown and answered.
type pendingQuestion struct {
	ctx    context.Context // done when the agent's request is withdrawn (session/cancel)
	q      *permission.Question
	answer chan permission.Answer // buffered: the answerer never waits on it
}

// questionEnd is how answering a question ended, for the reader of the input.
type questionEnd int

const (
	answered    questionEnd = iota
	quitAsked               // /quit or the end of the input: refused, and the user leaves
	interrupted             // Ctrl-C: refused, and the turn is to be cancelled
)

var (
	errInterrupted = errors.New("interrupted")
	errEOF         = errors.New("end of input")
)

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

// answer shows pq and reads the user's lines from in until one answers it. It always
// sends an answer (a refusal when the user quits, interrupts on interrupts (nil: none),
// or the input ends), unless the question was withdrawn meanwhile.
//
// Only what is typed once the question is on screen answers it: what was typed before
// (for the next prompt, or pushed into the terminal by something else) is discarded
// each time the question, or the reminder of the answers, is about to be shown.
func (c *console) answer(pq *pendingQuestion, in *prompter, interrupts <-chan os.Signal) questionEnd {
	c.mu.Lock()
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	c.mu.Unlock()
	noted, shown := false, false
	ignored := func() { // said once per question: the user sees why their line did nothing
		if noted {
			return
		}
		noted = true
		if shown {
			fmt.Fprint(c.stderr, "\n(ignored what was typed before the question)\n? ")
		} else {
			fmt.Fprintln(c.stderr, "(ignored what was typed before the question)")
		}
	}
	discard := func() uint64 {
		mark, dropped := in.discardTypeAhead()
		if dropped {
			ignored()
		}
		return mark
	}
	// The discard comes just before the question is shown, not after: a script that
	// answers as soon as it sees the question must not lose its answer.
	mark := discard()
	fmt.Fprint(c.stderr, questionText(pq.q))
	shown = true
	for {
		l, err := in.next(pq.ctx, interrupts)
		if err == nil && l.epoch < mark { // read before the question was shown
			ignored()
			continue
		}
		line := l.text
		switch {
		case pq.ctx.Err() != nil:
			fmt.Fprintln(c.stderr, "\n(the agent withdrew the question)")
			return answered
		case errors.Is(err, errInterrupted):
			fmt.Fprintln(c.stderr, "\n(refused)")
			pq.answer <- permission.RejectOnce
			return interrupted
		case err != nil:
			fmt.Fprintln(c.stderr)
			pq.answer <- permission.RejectOnce
			return quitAsked
		}
		if t := strings.TrimSpace(line); t == "/quit" || t == "/exit" {
			pq.answer <- permission.RejectOnce
			return quitAsked
		}
		if a, ok := parseAnswer(line, pq.q.Answers); ok {
			pq.answer <- a
			return answered
		}
		shown = false
		mark = discard()
		fmt.Fprintf(c.stderr, "%s\n? ", retryText(pq.q.Answers))
		shown = true
	}
}
