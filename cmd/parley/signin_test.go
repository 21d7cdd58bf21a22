package main

// Issue 19, sign-in: agents that answer session/new with auth_required until the user has
// signed in, in each form an agent offers (signin_agent_test.go), driven through parley
// run, parley login and logout, and parley chat.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// signInFixture is a workspace and a home that outlive one parley: what one command
// signs in, the next finds signed in.
type signInFixture struct {
	dir string
	env []string
}

func newSignIn(t *testing.T, extraEnv ...string) signInFixture {
	t.Helper()
	f := signInFixture{dir: t.TempDir(), env: append(isolatedXDG(t), extraEnv...)}
	// The sign-in agents keep what they sign in (and their markers) in the home
	// directory itself, which a confined agent may write only when told.
	plant(t, map[string]string{filepath.Join(parleyConfigDir(f.env), "config.json"): `{"sandbox": {"write": ["~"]}}`})
	return f
}

func (f signInFixture) home() string {
	for _, kv := range f.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	panic("no HOME")
}

func (f signInFixture) parley(t *testing.T, args ...string) result {
	t.Helper()
	return parleyIn(t, f.dir, f.env, "", args...)
}

// TestRunNeedsSignIn: parley run does not sign in; it exits 6 at once, naming the
// agent, its method and the command that signs in with it.
func TestRunNeedsSignIn(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	agent := fakeAgentCommand(t, "signin-agent")
	r := f.parley(t, "run", "--agent-timeout", "20s", "--agent-command", agent, "hello")
	if r.code != 6 {
		t.Fatalf("exit %d, want 6; stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"needs you to sign in", "agent-login", "Sign in", "parley login --agent-command '" + agent + "' --method agent-login"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.stdout != "" {
		t.Errorf("a reply came: %q", r.stdout)
	}
}

// TestLoginLogoutAgentMethod: parley login signs in with the agent's own method and
// says so; parley run then works; parley logout signs out, and run exits 6 again.
func TestLoginLogoutAgentMethod(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	agent := fakeAgentCommand(t, "signin-agent")
	r := f.parley(t, "login", "--agent-command", agent)
	if r.code != 0 || !strings.Contains(r.stderr, "Signed in to") {
		t.Fatalf("login: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if r := f.parley(t, "run", "--agent-command", agent, "hello"); r.code != 0 || !strings.Contains(r.stdout, "you are signed in") {
		t.Fatalf("run after login: exit %d; stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// Signed in already: login without --method leaves it so.
	if r := f.parley(t, "login", "--agent-command", agent); r.code != 0 || !strings.Contains(r.stderr, "does not need you to sign in") {
		t.Errorf("login when signed in: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if r := f.parley(t, "logout", "--agent-command", agent); r.code != 0 || !strings.Contains(r.stderr, "Signed out") {
		t.Fatalf("logout: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if r := f.parley(t, "run", "--agent-command", agent, "hello"); r.code != 6 {
		t.Fatalf("run after logout: exit %d, want 6; stderr:\n%s", r.code, r.stderr)
	}
	// An unknown method is a usage error that lists the real ones.
	if r := f.parley(t, "login", "--agent-command", agent, "--method", "nope"); r.code != 2 || !strings.Contains(r.stderr, "agent-login") {
		t.Errorf("login --method nope: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestLogoutWithoutTheCapability is a clear error, not a call the agent never offered.
func TestLogoutWithoutTheCapability(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	r := f.parley(t, "logout", "--agent-command", fakeAgentCommand(t, "signin-env"))
	if r.code == 0 || !strings.Contains(r.stderr, "does not offer to sign out") {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestSignInWithEnvironmentVariables: run names the variable (never a value) and exits 6;
// login without the variable says to set it; with it set, run works. In chat, /login asks
// for it without showing what is typed, and starts the agent again with it.
func TestSignInWithEnvironmentVariables(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	agent := fakeAgentCommand(t, "signin-env")
	r := f.parley(t, "run", "--agent-command", agent, "hello")
	if r.code != 6 || !strings.Contains(r.stderr, "FAKE_AGENT_KEY") || !strings.Contains(r.stderr, "--method api-key") {
		t.Fatalf("run: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if r := f.parley(t, "login", "--agent-command", agent); r.code != 1 || !strings.Contains(r.stderr, "set FAKE_AGENT_KEY") {
		t.Fatalf("login without the variable: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	withKey := signInFixture{dir: f.dir, env: append(f.env, "FAKE_AGENT_KEY=sekrit-value")}
	if r := withKey.parley(t, "run", "--agent-command", agent, "hello"); r.code != 0 {
		t.Fatalf("run with the variable: exit %d; stderr:\n%s", r.code, r.stderr)
	}

	term := startTerminalIn(t, f.dir, f.env, "chat", "--agent-command", agent)
	term.expect("needs you to sign in")
	term.expect("FAKE_AGENT_KEY")
	term.typeLine("hello")
	term.expect("sign in first")
	term.typeLine("/login")
	term.expect("Your key (FAKE_AGENT_KEY)")
	term.expect("(hidden)")
	term.typeLine("sekrit-value")
	term.expect("is ready")
	term.typeLine("hello")
	term.expect("you are signed in")
	term.typeLine("/quit")
	term.wait(t, 0)
	if strings.Contains(term.since(0), "sekrit-value") {
		t.Errorf("the secret was shown:\n%s", term.since(0))
	}
	noSecretUnder(t, f.home(), "sekrit-value")
}

// noSecretUnder fails when a file under dir (parley's logs, state and store, the agent's
// log) holds secret.
func noSecretUnder(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
}

// TestLoginTerminalMethod: the agent's command runs again with the method's argument and
// variable, in the user's terminal, reading what the user types; parley then starts the
// agent again and the session opens.
func TestLoginTerminalMethod(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	agent := fakeAgentCommand(t, "signin-terminal")
	r := f.parley(t, "run", "--agent-command", agent, "hello")
	if r.code != 6 || !strings.Contains(r.stderr, "tui-login") || !strings.Contains(r.stderr, "--login") {
		t.Fatalf("run: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	term := startTerminalIn(t, f.dir, f.env, "login", "--agent-command", agent, "--method", "tui-login")
	term.expect("Run it? [y/N]")
	term.typeLine("y")
	term.expect("Login code: ")
	term.typeLine(signInCode)
	term.expect("logged in")
	term.expect("Signed in to")
	term.wait(t, 0)
	if r := f.parley(t, "run", "--agent-command", agent, "hello"); r.code != 0 {
		t.Fatalf("run after login: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestLoginTerminalMethodNeedsATerminal: without one, login says why.
func TestLoginTerminalMethodNeedsATerminal(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	r := f.parley(t, "login", "--agent-command", fakeAgentCommand(t, "signin-terminal"))
	if r.code != 1 || !strings.Contains(r.stderr, "terminal") {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestChatSignsInWithTheOlderTerminalForm: an agent that names its login command in
// _meta["terminal-auth"] (offered only to a client that advertises that marker); /login
// runs it in the chat's terminal, then the chat goes on with the agent started again.
func TestChatSignsInWithTheOlderTerminalForm(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	term := startTerminalIn(t, f.dir, f.env, "chat", "--agent-command", fakeAgentCommand(t, "signin-legacy"))
	term.expect("needs you to sign in")
	term.expect("old-login")
	term.typeLine("/login 1")
	term.expect("Run it? [y/N]")
	term.typeLine("y")
	term.expect("Login code: ")
	term.typeLine(signInCode)
	term.expect("logged in")
	term.expect("is ready")
	term.typeLine("hello")
	term.expect("you are signed in")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestChatSignInWithAPage: the agent's sign-in asks the user to open a page (a URL
// elicitation about the authenticate request): parley shows the whole URL and its host,
// warns of a punycode host, opens it only when asked, and the agent says when it is done.
func TestChatSignInWithAPage(t *testing.T) {
	t.Parallel()
	opened := filepath.Join(t.TempDir(), "opened")
	browser := writeScript(t, "browser", "#!/bin/sh\nprintf '%s' \"$1\" > "+opened+"\n")
	f := newSignIn(t, "BROWSER="+browser)
	term := startTerminalIn(t, f.dir, f.env, "chat", "--agent-command", fakeAgentCommand(t, "signin-device"))
	term.expect("needs you to sign in")
	term.typeLine("/login")
	term.expect("enter the code WXYZ")
	term.expect("https://xn--exmple-cua.com/device?code=WXYZ")
	term.expect("host: xn--exmple-cua.com")
	term.expect("punycode")
	term.expect("[o] open it in your browser") // the choices come after the type-ahead is discarded
	if _, err := os.Stat(opened); err == nil {
		t.Fatal("the page was opened before the user said so")
	}
	term.typeLine("o")
	term.expect("is done with the page")
	term.expect("is ready")
	if b, _ := os.ReadFile(opened); string(b) != "https://xn--exmple-cua.com/device?code=WXYZ" {
		t.Errorf("the browser was given %q", b)
	}
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestChatGivesUpASignInWithCancelRequest: Ctrl-C during an agent's sign-in cancels its
// authenticate request with $/cancel_request, and the chat goes on.
func TestChatGivesUpASignInWithCancelRequest(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	// The agent says when its authenticate starts and when it saw the cancellation, into
	// FIFOs the test reads: no waiting on time.
	started, cancelled := filepath.Join(f.home(), "authenticate-started"), filepath.Join(f.home(), "authenticate-cancelled")
	for _, fifo := range []string{started, cancelled} {
		if err := mkfifo(fifo); err != nil {
			t.Fatal(err)
		}
	}
	term := startTerminalIn(t, f.dir, f.env, "chat", "--agent-command", fakeAgentCommand(t, "signin-slow"))
	term.expect("needs you to sign in")
	term.typeLine("/login")
	if got := readFIFO(t, started); got != "started" {
		t.Fatalf("the agent said %q", got)
	}
	term.pty.Write([]byte{3}) // Ctrl-C
	term.expect("giving up the sign-in")
	term.expect("the sign-in failed")
	if got := readFIFO(t, cancelled); !strings.Contains(got, "cancel") {
		t.Errorf("the agent saw %q", got)
	}
	term.typeLine("/quit")
	term.wait(t, 0)
}

// readFIFO reads what a process writes into the FIFO at path.
func readFIFO(t *testing.T, path string) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(path)
		got <- string(b)
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(20 * time.Second): // a hang guard
		t.Fatalf("nothing came through %s", path)
		return ""
	}
}

func writeScript(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
