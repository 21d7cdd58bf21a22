//go:build !windows

package main

import (
	"strings"
	"testing"
)

// The terminal UI words a refusal as the other views do: "not run: refused by you" for a
// "no", "refused by a rule" for a rule's, never "failed" or "rejected", and never the
// agent's text for its model.
func TestTUIWordsARefusalAsNotRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.config(t, `{"permissions":[{"tool":"execute:shred*","action":"reject"}]}`)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("tool-ask rm -rf ../victim\r")
	s.WaitText("The agent asks permission")
	answer(s, "n", "chose reject_once")
	screen := s.WaitText("not run: refused by you")
	s.Type("tool-ask shred secrets\r")
	screen = s.WaitText("not run: refused by a rule")
	shot(t, s, "refusals")
	for _, bad := range []string{"failed", "rejected", "Error:"} {
		if strings.Contains(screen, bad) {
			t.Errorf("the screen says %q of a refused call:\n%s", bad, screen)
		}
	}
}
