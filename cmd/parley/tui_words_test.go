//go:build !windows

package main

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/sandbox"
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

// A command that runs project code (go test) is never allowed "always": its code may
// change. Confined, it may be allowed for the session: "allow while confined" is offered,
// and the same command is then not asked about again; unconfined it is not offered.
func TestTUIAllowWhileConfined(t *testing.T) {
	t.Parallel()
	if sandbox.Mechanism() == "" {
		t.Skip("nothing confines commands here")
	}
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("ask go test ./...\r")
	screen := s.WaitText("The agent asks permission")
	if !strings.Contains(screen, "[c] allow while confined") || strings.Contains(screen, "[a] allow always") {
		t.Fatalf("the question about go test, confined:\n%s", screen)
	}
	shot(t, s, "while-confined")
	answer(s, "c", "chose allow_once")
	s.WaitGone("The agent asks permission")
	s.Type("ask go test ./...\r")
	s.WaitFor("the second go test allowed unasked", func(screen string) bool {
		return strings.Count(screen, "chose allow_once") == 2
	})
	if strings.Contains(s.Text(), "The agent asks permission") {
		t.Errorf("asked again about a command allowed while confined:\n%s", s.Text())
	}
	s.Type("ask rm -rf /\r") // critical: asked every time, never "while confined"
	screen = s.WaitText("The agent asks permission")
	if strings.Contains(screen, "allow while confined") {
		t.Errorf("a critical command offers allow while confined:\n%s", screen)
	}
	answer(s, "n", "chose reject_once")

	s = startTUI(t, w.dir, w.env, 100, 30, "chat", "--sandbox", "off", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("ask go test ./...\r")
	screen = s.WaitText("The agent asks permission")
	if strings.Contains(screen, "allow while confined") {
		t.Errorf("unconfined, the question offers allow while confined:\n%s", screen)
	}
}
