//go:build !windows

package main

import (
	"strings"
	"testing"
)

// TestTUIDeclinesAPageThatIsNotHTTP: the terminal UI shows the notice, not the question.
func TestTUIDeclinesAPageThatIsNotHTTP(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUIFor(t, w.dir, w.env, "ready", "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("elicit-url javascript:alert(1)\r")
	screen := s.WaitText("elicited: decline")
	if !strings.Contains(strings.Join(strings.Fields(screen), " "), "not javascript: addresses") || strings.Contains(screen, "It asks you to open") {
		t.Errorf("the screen:\n%s", screen)
	}
}
