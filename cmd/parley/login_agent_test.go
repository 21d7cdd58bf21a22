//go:build !windows

package main

// Issue 31, item 5: parley login and logout without --agent use config.json's
// default_agent, else ask which agent on a terminal, else refuse naming the agents that
// may ask for a sign-in; never Eliza, who needs none.

import (
	"path/filepath"
	"strings"
	"testing"
)

// signInConfig plants config.json: the sign-in fixture's sandbox, the fake sign-in agent
// as "mine", and default_agent when given.
func signInConfig(t *testing.T, f signInFixture, defaultAgent string) {
	t.Helper()
	def := ""
	if defaultAgent != "" {
		def = `"default_agent": "` + defaultAgent + `", `
	}
	plant(t, map[string]string{filepath.Join(parleyConfigDir(f.env), "config.json"): `{` + def + `"sandbox": {"write": ["~"]}, "agent_servers": {"mine": {"command": "env", "args": ["PARLEY_TEST_ROLE=fake-agent", "` + self(t) + `", "signin-agent"]}}}`})
}

// TestLoginWithoutAgentNamesTheAgents: no terminal, no default: a usage error listing
// the agents that may ask for a sign-in (the user's own among them), not Eliza.
func TestLoginWithoutAgentNamesTheAgents(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	signInConfig(t, f, "")
	for _, sub := range []string{"login", "logout"} {
		r := f.parley(t, sub)
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2; stderr:\n%s", sub, r.code, r.stderr)
		}
		for _, want := range []string{"which agent? give --agent NAME", "default_agent", "claude", "codex", "gemini", "mine"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", sub, want, r.stderr)
			}
		}
		if strings.Contains(strings.ToLower(r.stderr), "eliza") {
			t.Errorf("%s: Eliza named:\n%s", sub, r.stderr)
		}
	}
}

// TestLoginUsesTheDefaultAgent: default_agent is the agent of login and logout.
func TestLoginUsesTheDefaultAgent(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	signInConfig(t, f, "mine")
	if r := f.parley(t, "login"); r.code != 0 || !strings.Contains(r.stderr, "Signed in to guarded") {
		t.Fatalf("login: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if r := f.parley(t, "logout"); r.code != 0 || !strings.Contains(r.stderr, "Signed out of mine") {
		t.Fatalf("logout: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestLoginAsksWhichAgent: on a terminal, with no default, parley asks and signs in to
// the one chosen.
func TestLoginAsksWhichAgent(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	signInConfig(t, f, "")
	term := startTerminalIn(t, f.dir, f.env, "login")
	term.expect("Sign in to which agent?")
	term.expect("mine")
	term.expect("? ") // the prompt: what is typed before it answers nothing
	term.typeLine("mine")
	term.expect("Signed in to guarded")
	term.wait(t, 0)
	term = startTerminalIn(t, f.dir, f.env, "logout")
	term.expect("Sign out of which agent?")
	term.expect("mine")
	term.expect("? ")
	term.typeLine("mine")
	term.expect("Signed out of mine")
	term.wait(t, 0)
}
