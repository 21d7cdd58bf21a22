package main

// Issue 26, a sign-in that runs more than it shows: a terminal sign-in shows the whole of
// what it runs (program, every argument, every variable it sets, the directory) and asks
// before it runs, even as the only method; one that sets a variable making programs run
// code (BASH_ENV, LD_PRELOAD, NODE_OPTIONS…) is refused, and nothing runs.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoginRefusesASignInThatRunsHiddenCode: the agent's only sign-in, in the older form
// running `bash -c 'echo signing in; true'` with BASH_ENV naming a script (and other
// members of the class, in either form): parley login refuses it, naming the variable,
// with or without a terminal, and the script never runs.
func TestLoginRefusesASignInThatRunsHiddenCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, form string }{
		{"BASH_ENV", "legacy"},
		{"BASH_FUNC_echo%%", "legacy"},
		{"LD_PRELOAD", "standard"},
		{"NODE_OPTIONS", "standard"},
		{"PATH", "legacy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSignIn(t, "FAKE_SIGNIN_VAR="+tc.name, "FAKE_SIGNIN_FORM="+tc.form)
			agent := fakeAgentCommand(t, "signin-codevar")
			term := startTerminalIn(t, f.dir, f.env, "login", "--agent-command", agent)
			term.expect("parley will not sign in with rc-login: it sets " + tc.name)
			term.expect("code its command line does not show")
			term.wait(t, 1)
			if strings.Contains(term.since(0), "Run it?") {
				t.Errorf("parley asked to run it:\n%s", term.since(0))
			}
			// parley run names no command that would sign in with it.
			if r := f.parley(t, "run", "--agent-command", agent, "hello"); r.code != 6 || !strings.Contains(r.stderr, "parley refuses it: it sets "+tc.name) || strings.Contains(r.stderr, "--method rc-login") {
				t.Errorf("run: exit %d; stderr:\n%s", r.code, r.stderr)
			}
			// Without a terminal too, and before saying there is none.
			r := f.parley(t, "login", "--agent-command", agent)
			if r.code != 1 || !strings.Contains(r.stderr, "it sets "+tc.name) {
				t.Errorf("login without a terminal: exit %d; stderr:\n%s", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(f.home(), "rc-ran")); err == nil {
				t.Error("the script ran")
			}
		})
	}
}

// TestChatRefusesASignInThatRunsHiddenCode: the chat lists the method with the whole
// command and why parley refuses it; /login refuses it and runs nothing.
func TestChatRefusesASignInThatRunsHiddenCode(t *testing.T) {
	t.Parallel()
	f := newSignIn(t, "FAKE_SIGNIN_VAR=BASH_ENV")
	term := startTerminalIn(t, f.dir, f.env, "chat", "--agent-command", fakeAgentCommand(t, "signin-codevar"))
	term.expect("needs you to sign in")
	term.expect("parley refuses it: it sets BASH_ENV")
	term.typeLine("/login")
	term.expect("parley will not sign in with rc-login: it sets BASH_ENV")
	term.expect("arguments: -c 'echo signing in; true'")
	term.expect("variables: BASH_ENV=" + filepath.Join(f.home(), "login-rc.sh"))
	term.typeLine("/quit")
	term.wait(t, 0)
	if _, err := os.Stat(filepath.Join(f.home(), "rc-ran")); err == nil {
		t.Error("the script ran")
	}
}

// TestLoginShowsTheWholeSignInAndAsks: the agent's only method, in the older form: parley
// login shows the program, every argument, the variable with its value and the directory,
// and asks; declining runs nothing (the login program would ask for a code); yes runs it.
func TestLoginShowsTheWholeSignInAndAsks(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	agent := fakeAgentCommand(t, "signin-legacy")
	shown := func(term *terminal) {
		t.Helper()
		term.expect("signing in with old-login runs this program in your terminal")
		term.expect("program:   " + self(t))
		term.expect("named by the agent")
		term.expect("arguments: signin-legacy --login")
		term.expect("variables: PARLEY_TEST_ROLE=fake-agent")
		term.expect("directory: " + f.dir)
		term.expect("Run it? [y/N]")
	}
	term := startTerminalIn(t, f.dir, f.env, "login", "--agent-command", agent)
	shown(term)
	term.typeLine("n")
	term.expect("the sign-in program did not run")
	term.wait(t, 1)
	if out := term.since(0); strings.Contains(out, "Login code") || strings.Contains(out, "parley: running") {
		t.Errorf("the program ran after a no:\n%s", out)
	}
	if _, err := os.Stat(markerIn(f.home())); err == nil {
		t.Fatal("signed in after a no")
	}

	term = startTerminalIn(t, f.dir, f.env, "login", "--agent-command", agent)
	shown(term)
	term.typeLine("y")
	term.expect("Login code: ")
	term.typeLine(signInCode)
	term.expect("Signed in to")
	term.wait(t, 0)
}

// TestChatShowsTheWholeSignInAndAsks: /login with the only method (ACP's form) shows the
// agent's own command with the method's argument and variable and asks; no runs nothing,
// yes runs it.
func TestChatShowsTheWholeSignInAndAsks(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	term := startTerminalIn(t, f.dir, f.env, "chat", "--agent-command", fakeAgentCommand(t, "signin-terminal"))
	term.expect("needs you to sign in")
	term.expect("runs `FAKE_LOGIN_MODE=tty env PARLEY_TEST_ROLE=fake-agent")
	term.typeLine("/login")
	term.expect("program:   env")
	term.expect("the agent's own command")
	term.expect("arguments: PARLEY_TEST_ROLE=fake-agent " + self(t) + " signin-terminal --login")
	term.expect("variables: FAKE_LOGIN_MODE=tty")
	term.expect("directory: " + f.dir)
	term.expect("Run it? [y/N]")
	mark := term.mark()
	term.typeLine("no")
	term.expect("(not run: no sign-in)")
	if strings.Contains(term.since(mark), "Login code") {
		t.Fatalf("the program ran after a no:\n%s", term.since(mark))
	}
	term.typeLine("/login")
	term.expect("Run it? [y/N]")
	term.typeLine("y")
	term.expect("Login code: ")
	term.typeLine(signInCode)
	term.expect("is ready")
	term.typeLine("/quit")
	term.wait(t, 0)
}

func markerIn(home string) string { return filepath.Join(home, "signed-in") }
