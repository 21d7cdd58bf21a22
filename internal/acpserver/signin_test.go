package acpserver

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/conversation"
)

// TestSignInMethodsCarryTheWholeRun: the page is given every line of what a terminal
// method runs, values and all, made visible, and why parley refuses a method.
func TestSignInMethodsCarryTheWholeRun(t *testing.T) {
	run := &conversation.TerminalRun{Program: "bash", Path: "/bin/bash", Args: []string{"-c", "echo hi\x1b[2J"}, Env: []string{"BASH_ENV=/home/u/rc"}, Dir: "/w", Named: true}
	got := signInMethods([]conversation.AuthMethod{{ID: "rc", Name: "Shell", Kind: conversation.AuthTerminal, Run: run, Refused: "it sets BASH_ENV, which runs a file"}})
	m := got[0]
	all := strings.Join(m.Run, "\n")
	for _, want := range []string{"program:   bash", "arguments: -c 'echo hi␛[2J'", "variables: BASH_ENV=/home/u/rc", "directory: /w"} {
		if !strings.Contains(all, want) {
			t.Errorf("run lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "\x1b") {
		t.Error("an escape reached the page")
	}
	if m.Refused == "" || !strings.Contains(m.Effect, "refuses") {
		t.Errorf("refused %q, effect %q", m.Refused, m.Effect)
	}
}
