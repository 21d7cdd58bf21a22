//go:build !windows

package main

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/sandbox"
)

// Issue 31, item 8: a question's words match its choices. The status line names only
// the keys offered (y/n when only those are), and what "always" covers is said of the
// "always" offered: "reject always covers" where "allow always" is not.
func TestTUIQuestionWordsMatchItsChoices(t *testing.T) {
	t.Parallel()
	for _, cols := range []int{100, 50} {
		w := newWorkspace(t)
		s := startTUI(t, w.dir, w.env, cols, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
		s.Type(`askjson {"toolCall":{"toolCallId":"t1","title":"Clean up","kind":"execute"},"options":` + allKinds + `}` + "\r")
		screen := s.WaitText("The agent asks permission")
		shot(t, s, "question-yn-"+strings.Repeat("x", cols/50))
		// A command the agent does not show is never remembered: only once answers.
		if !strings.Contains(screen, "y/n answer") || strings.Contains(screen, "y/a/n/r") || strings.Contains(screen, "always covers") {
			t.Errorf("%d columns: a y/n question is not named y/n, or names an always:\n%s", cols, screen)
		}
		answer(s, "n", "chose reject_once")
		s.WaitGone("The agent asks permission")

		// The project's tests run code the agent can change: no "allow always".
		s.Type("ask go test ./...\r")
		screen = s.WaitText("The agent asks permission")
		shot(t, s, "question-tests-"+strings.Repeat("x", cols/50))
		keys := "y/n/r answer"
		if sandbox.Mechanism() != "" { // confined: "allow while confined" is offered
			keys = "y/c/n/r answer"
		}
		if !strings.Contains(screen, keys) || !strings.Contains(screen, "reject always covers:") {
			t.Errorf("%d columns: the question without allow always:\n%s", cols, screen)
		}
		if strings.Contains(strings.ReplaceAll(screen, "reject always covers", ""), "always covers") {
			t.Errorf("%d columns: \"always covers\" without allow always:\n%s", cols, screen)
		}
		answer(s, "n", "chose reject_once")
	}
}
