package main

// Black-box tests: they drive the real parley command line over stdio, the way a user or
// a peer does. The test binary doubles as parley (and as the fake agents and MCP servers
// the tests need): TestMain switches on PARLEY_TEST_ROLE, the same re-exec trick gopls's
// integration tests use, so no separate build is needed.
//
// Every test calls t.Parallel() unless a "// Not parallel:" line says why: each runs in
// directories and a home of its own (parley, parleyIn, newWorkspace, isolatedXDG), and its
// processes mostly wait on one another, so on two cores several at a time finish sooner.
// A test stays serial when it shares something process-wide (the environment through
// t.Setenv, the working directory, a port, a signal to the process group), or when it
// holds parley to a wall-clock time a busy machine could miss (a timeout of a second or
// less, a turn that must still be running): serial tests run alone, before the others.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/cli"
	"github.com/parley-acp/parley/internal/testbin"
)

func TestMain(m *testing.M) {
	switch os.Getenv("PARLEY_TEST_ROLE") {
	case "parley":
		os.Exit(cli.Main(os.Args[1:]))
	case "fake-agent":
		os.Exit(runFakeAgent(os.Args[1]))
	case "mcp-server":
		os.Exit(runMCPServer())
	case "intruder":
		os.Exit(runIntruder(os.Args[1:]))
	}
	// Every parley and agent the tests start keeps its logs and store under a temporary
	// home, never the user's own.
	cleanup, err := testbin.Isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// self is the test binary, which acts as parley under PARLEY_TEST_ROLE=parley.
func self(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

type result struct {
	stdout, stderr string
	code           int
}

// parley runs the parley command line with args in a fresh directory, with fresh XDG
// directories, and returns what it printed.
func parley(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return parleyIn(t, t.TempDir(), isolatedXDG(t), stdin, args...)
}

// parleyIn runs parley in dir with env added.
func parleyIn(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	return parleyFrom(t, dir, env, strings.NewReader(stdin), args...)
}

// parleyFrom is parleyIn with any stdin, an *os.File included (then parley's stdin is that
// file itself, not a pipe).
func parleyFrom(t *testing.T, dir string, env []string, stdin io.Reader, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard, not a synchronisation
	defer cancel()
	cmd := exec.CommandContext(ctx, self(t), args...)
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), env...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running parley %v: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("parley %v hung; stderr:\n%s", args, errb.String())
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// isolatedXDG points HOME and parley's configuration, data and logs at a fresh temp dir,
// so that no test reads or writes the developer's own.
func isolatedXDG(t *testing.T) []string { return testbin.HomeEnv(t.TempDir()) }

// parleyConfigDir is where parley reads config.json in env.
func parleyConfigDir(env []string) string {
	for _, kv := range env {
		if dir, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			return filepath.Join(dir, "parley")
		}
	}
	panic("no XDG_CONFIG_HOME in the test environment")
}

// fakeAgentCommand is an --agent-command that runs one of the fake agents.
func fakeAgentCommand(t *testing.T, behaviour string) string {
	return "env PARLEY_TEST_ROLE=fake-agent " + self(t) + " " + behaviour
}

func TestRunElizaAnswers(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run", "--agent", "eliza", "I am worried about my tests")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "worried about your tests") || !strings.HasSuffix(r.stdout, "\n") {
		t.Errorf("stdout %q: want the DOCTOR's reflection, ending in a newline", r.stdout)
	}
}

func TestRunPromptFromStdin(t *testing.T) {
	t.Parallel()
	r := parley(t, "flood 5\n", "run", "-")
	if r.code != 0 || r.stdout != "0 1 2 3 4 \n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestRunFloodLosesNothing(t *testing.T) {
	t.Parallel()
	const n = 20000
	r := parley(t, "", "run", "flood 20000")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	fields := strings.Fields(r.stdout)
	if len(fields) != n || fields[n-1] != "19999" {
		t.Errorf("got %d chunks, want %d", len(fields), n)
	}
}

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no prompt", []string{"run"}, "needs the PROMPT"},
		{"empty prompt", []string{"run", "  "}, "prompt is empty"},
		{"unknown agent", []string{"run", "--agent", "nope", "hi"}, `unknown agent "nope"; known agents: claude, codex, eliza, gemini, parley`},
		{"both agent flags", []string{"run", "--agent", "eliza", "--agent-command", "x", "hi"}, "not both"},
		{"wrong flag", []string{"run", "--frobnicate", "hi"}, "unknown flag: --frobnicate"},
		{"bad cwd", []string{"run", "--cwd", "/nonexistent/dir", "hi"}, "--cwd"},
		{"bad log level", []string{"--log", "loud", "run", "hi"}, "not a level"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := parley(t, "", tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

func TestRunMissingAgentCommand(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run", "--agent-command", "no-such-agent-binary --acp", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, `"no-such-agent-binary": command not found`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "parley run") || !strings.Contains(r.stdout, "eliza") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	r = parley(t, "", "run", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "Exit status") || !strings.Contains(r.stdout, "--agent-command") {
		t.Errorf("run --help: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestRunBrokenAgents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		behaviour string
		code      int
		want      []string
	}{
		{"crash-at-start", 1, []string{"exit status 3", "the agent is broken"}},
		{"crash-mid-turn", 1, []string{"the turn failed", "exit status 4", "died mid-turn"}},
		{"garbage", 1, []string{"not ACP", "Hello! I am not an ACP agent"}},
		{"refuse", 3, []string{"refused"}},
		{"max-tokens", 4, []string{"token limit"}},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			r := parley(t, "", "run", "--agent-command", fakeAgentCommand(t, tc.behaviour), "hi")
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

func TestRunGarbageAgentThatStaysAliveTimesOut(t *testing.T) {
	// Not parallel: the agent must write its garbage within a 500ms PARLEY_INIT_TIMEOUT.
	// Unconfined: confining it costs a part of that (BenchmarkAgentStartConfined).
	cmd := exec.Command(self(t), "run", "--sandbox", "off", "--agent-command", fakeAgentCommand(t, "garbage-forever"), "hi")
	cmd.Env = append(os.Environ(), "PARLEY_TEST_ROLE=parley", "PARLEY_INIT_TIMEOUT=500ms")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !bytes.Contains(out, []byte("did not answer in time")) || !bytes.Contains(out, []byte("not ACP")) {
		t.Errorf("err %v, output:\n%s", err, out)
	}
}

func TestRunDeliversUpdatesSentBeforeTheSessionResponse(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run", "--agent-command", fakeAgentCommand(t, "early-updates"), "hi")
	if r.code != 0 || r.stdout != "early bird\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A peer on Windows may end its lines with \r\n: parley reads them, as a client of an
// agent and as an agent of a client.
func TestLinesEndingInCRLFAreRead(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run", "--agent-command", fakeAgentCommand(t, "crlf"), "hi")
	if r.code != 0 || r.stdout != "every line of mine ends in CRLF\n" {
		t.Errorf("parley run, an agent writing CRLF: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = parley(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\r\n", "eliza")
	if r.code != 0 || !strings.Contains(r.stdout, `"id":1,"result":{`) {
		t.Errorf("parley eliza, a client writing CRLF: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestRunRefusesPermissionByKind(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run", "request permission deploy")
	if r.code != 7 || r.stdout != "permission: reject_once\n" || !strings.Contains(r.stderr, "deploy — not run: refused (no one to ask)") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestAgentsListsBuiltinsAndConfigured(t *testing.T) {
	t.Parallel()
	env := isolatedXDG(t)
	cfgDir := parleyConfigDir(env)
	os.MkdirAll(cfgDir, 0o700)
	os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{"agent_servers":{"mine":{"command":"no-such-agent-xyz","args":["--acp"]}}}`), 0o600)
	cmd := exec.Command(self(t), "agents")
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"eliza", "codex", "claude", "gemini", "mine", "no-such-agent-xyz --acp", "no: no-such-agent-xyz is not installed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("parley agents does not show %q:\n%s", want, out)
		}
	}
}

// TestRunAgentThatNeverOpensASession: an agent that never answers session/new is given up
// on after --agent-timeout, with an error that names it and says what to try.
func TestRunAgentThatNeverOpensASession(t *testing.T) {
	// Not parallel: the agent's start must beat a 1s --agent-timeout.
	r := parley(t, "", "run", "--agent-timeout", "1s", "--agent-command", fakeAgentCommand(t, "hostile-mute-new"), "hello")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"hostile-mute-new", "did not answer session/new within 1s", "--agent-timeout"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestVersion: --version says which parley this is, from the build information.
func TestVersion(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "parley version ") || strings.TrimSpace(strings.TrimPrefix(r.stdout, "parley version ")) == "" {
		t.Errorf("parley --version: exit %d, %q", r.code, r.stdout)
	}
}
