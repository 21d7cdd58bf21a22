//go:build !windows

package main

// The terminal UI as a new user meets it (issue 31): what /changes shows, Esc, and a
// narrow terminal.

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIChangesListIsStyledNotEscaped: /changes shows each file's counts dim, as
// colour, not as the escape sequences of the colour spelt out.
func TestTUIChangesListIsStyledNotEscaped(t *testing.T) {
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("write " + filepath.Join(w.dir, "a.txt") + " changed-by-the-agent\r")
	s.WaitText("Changed 1 file")
	s.Type("/changes\r")
	screen := s.WaitText("Turn 1")
	shot(t, s, "changes-list")
	if strings.Contains(screen, "␛") || strings.Contains(screen, "[38;5") || strings.Contains(screen, "\x1b") {
		t.Fatalf("/changes shows escape sequences as text:\n%s", screen)
	}
	x, y, ok := s.Find("changed  a.txt (+1 −1)")
	if !ok {
		t.Fatalf("/changes does not list a.txt with its counts:\n%s", screen)
	}
	if s.Foreground(x+len("changed  a.txt "), y) == nil {
		t.Errorf("the counts of a.txt are not styled")
	}
}
