package acpserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/conversation"
)

// TestSignInMethodsCarryTheWholeRun: the page is given every line of what a terminal
// method runs, values and all, made visible, and why parley refuses a method.
func TestSignInMethodsCarryTheWholeRun(t *testing.T) {
	run := &conversation.TerminalRun{Program: "bash", Path: "/bin/bash", Args: []string{"-c", "echo hi\x1b[2J"}, Env: []string{"BASH_ENV=/home/u/rc"}, Dir: "/w", Named: true}
	got := signInMethods("shell", []conversation.AuthMethod{{ID: "rc", Name: "Shell", Kind: conversation.AuthTerminal, Run: run, Refused: "it sets BASH_ENV, which runs a file"}})
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

// A method is given in lm/signInRequired's shape: the parley command that signs in with it
// (what a page that runs no terminal offers), the names of an env_var method's variables,
// and how to ask for each.
func TestSignInMethodsNameTheLoginCommandAndTheVariables(t *testing.T) {
	got := signInMethods("claude", []conversation.AuthMethod{{ID: "key", Name: "API key", Kind: conversation.AuthEnvVar,
		Vars: []conversation.AuthVar{{Name: "API_KEY", Label: "Your key", Secret: true}, {Name: "API_BASE", Optional: true}}}})
	m := got[0]
	if want := []string{"login", "--agent", "claude", "--method", "key"}; !slices.Equal(m.Command, want) {
		t.Errorf("command %q, want %q", m.Command, want)
	}
	if want := []string{"API_KEY", "API_BASE"}; !slices.Equal(m.Vars, want) {
		t.Errorf("vars %q, want %q", m.Vars, want)
	}
	if len(m.Fields) != 2 || m.Fields[0].Label != "Your key" || !m.Fields[0].Secret || !m.Fields[1].Optional {
		t.Errorf("fields %+v, want the key's label and secrecy, the base optional", m.Fields)
	}
}
