// Package interop drives the parley binary with ACP peers written on the
// official TypeScript SDK (@agentclientprotocol/sdk), across a real process
// boundary, and checks every frame parley writes against the SDK's stable
// JSON schema. The peers live in peers/ and need `npm ci --prefix test/interop`;
// without it the tests skip, unless PARLEY_INTEROP=1 makes that a failure.
package interop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/testbin"
)

// peerTimeout bounds one peer run; it only guards against hangs.
const peerTimeout = 20 * time.Second

var (
	tmpRoot string // removed after all tests

	buildOnce  sync.Once
	parleyPath string
	buildErr   error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "parley-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		os.Exit(1)
	}
	tmpRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// interopDir is the directory of this file.
func interopDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate interop_test.go")
	}
	return filepath.Dir(file)
}

// requirePeers skips the test when the Node peers cannot run, or fails it
// when PARLEY_INTEROP=1 says they must.
func requirePeers(t *testing.T) {
	t.Helper()
	sdk := filepath.Join(interopDir(t), "node_modules", "@agentclientprotocol", "sdk", "package.json")
	problem := ""
	if _, err := exec.LookPath("node"); err != nil {
		problem = "node is not on PATH"
	} else if _, err := os.Stat(sdk); err != nil {
		problem = "test/interop/node_modules is missing; run `npm ci --prefix test/interop`"
	}
	if problem == "" {
		return
	}
	if os.Getenv("PARLEY_INTEROP") == "1" {
		t.Fatalf("%s (PARLEY_INTEROP=1 requires the interop peers)", problem)
	}
	t.Skipf("%s; set PARLEY_INTEROP=1 to make this a failure", problem)
}

// parleyBinary builds cmd/parley once per test binary.
func parleyBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		parleyPath, buildErr = testbin.Build(tmpRoot)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return parleyPath
}

// tempDir is a directory for one test whose path has no spaces, so it can
// appear unquoted in an agent command line.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(tmpRoot, "t-")
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(dir, " \t'\"") {
		t.Fatalf("temp dir %q needs quoting in a command line; set TMPDIR to a plain path", dir)
	}
	return dir
}

type violation struct {
	Index   int    `json:"index"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Frame   string `json:"frame"`
}

type checked struct {
	FramesIn       int         `json:"framesIn"`
	FramesOut      int         `json:"framesOut"`
	ViolationCount int         `json:"violationCount"`
	Violations     []violation `json:"violations"`
}

func (c checked) requireClean(t *testing.T, who string) {
	t.Helper()
	if c.ViolationCount == 0 {
		return
	}
	for _, v := range c.Violations {
		t.Errorf("%s: frame %d broke %s: %s\n\t%s", who, v.Index, v.Rule, v.Message, v.Frame)
	}
	t.Errorf("%s: %d frames from parley broke the rules", who, c.ViolationCount)
}

type permissionRecord struct {
	Title    string   `json:"title"`
	Kind     string   `json:"kind"`
	Offered  []string `json:"offered"`
	Want     string   `json:"want"`
	Answered string   `json:"answered"`
}

type stepRecord struct {
	Op               string             `json:"op"`
	Session          string             `json:"session"`
	Prompt           string             `json:"prompt"`
	StopReason       string             `json:"stopReason"`
	Text             string             `json:"text"`
	UserText         string             `json:"userText"`
	Chunks           int                `json:"chunks"`
	ChunksAtResponse int                `json:"chunksAtResponse"`
	Updates          map[string]int     `json:"updates"`
	Permissions      []permissionRecord `json:"permissions"`
	Error            string             `json:"error"`
}

type clientSummary struct {
	checked
	OK                bool `json:"ok"`
	Error             string
	AgentCapabilities struct {
		LoadSession         bool            `json:"loadSession"`
		SessionCapabilities map[string]any  `json:"sessionCapabilities"`
		PromptCapabilities  map[string]bool `json:"promptCapabilities"`
	} `json:"agentCapabilities"`
	Notifications []string `json:"notifications"` // the methods of the agent's other notifications
	Sessions      map[string]struct {
		SessionID string `json:"sessionId"`
	} `json:"sessions"`
	Steps []stepRecord `json:"steps"`
	Flood *struct {
		N         int     `json:"n"`
		Chunks    int     `json:"chunks"`
		Lossless  bool    `json:"lossless"`
		ElapsedMs float64 `json:"elapsedMs"`
		PerSecond float64 `json:"perSecond"`
	} `json:"flood"`
	OrphanUpdates int            `json:"orphanUpdates"`
	AgentExit     map[string]any `json:"agentExit"`
	AgentStderr   string         `json:"agentStderr"`
}

// runClient runs peers/client.mjs against agentCommand and returns its
// summary. A failed step is in the summary; the caller decides.
func runClient(t *testing.T, agentCommand string, args ...string) clientSummary {
	t.Helper()
	return runClientIn(t, tempDir(t), nil, agentCommand, args...)
}

// runClientIn is runClient with the sessions' cwd and the environment added (for the
// agent, which the peer starts).
func runClientIn(t *testing.T, cwd string, env []string, agentCommand string, args ...string) clientSummary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
	defer cancel()
	dir := interopDir(t)
	argv := append([]string{filepath.Join(dir, "peers", "client.mjs"), "--agent", agentCommand, "--cwd", cwd}, args...)
	cmd := exec.CommandContext(ctx, "node", argv...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("client peer hung (killed after %v)\nstderr:\n%s", peerTimeout, stderr.String())
	}
	var s clientSummary
	if jerr := json.Unmarshal(stdout.Bytes(), &s); jerr != nil {
		t.Fatalf("client peer: %v; no summary (%v)\nstdout:\n%s\nstderr:\n%s", err, jerr, stdout.String(), stderr.String())
	}
	if s.Error != "" || !s.OK {
		t.Errorf("client peer failed: %s (exit: %v)\nagent stderr:\n%s", s.Error, err, s.AgentStderr)
	}
	for _, st := range s.Steps {
		if st.Error != "" {
			t.Errorf("step %s %q on session %s failed: %s", st.Op, st.Prompt, st.Session, st.Error)
		}
	}
	s.requireClean(t, agentCommand)
	return s
}

func writeScript(t *testing.T, steps ...map[string]any) string {
	t.Helper()
	data, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tempDir(t), "script.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func onlyTurn(t *testing.T, s clientSummary) stepRecord {
	t.Helper()
	if len(s.Steps) != 1 {
		t.Fatalf("got %d steps, want 1: %+v", len(s.Steps), s.Steps)
	}
	return s.Steps[0]
}

// TestPeersSelfCheck runs the two SDK peers against each other, without
// parley: a clean exchange has no violations, and the checker does catch an
// agent that sends updates before its session/new response.
func TestPeersSelfCheck(t *testing.T) {
	requirePeers(t)
	t.Parallel()
	agent := "node " + filepath.Join(interopDir(t), "peers", "agent.mjs")

	t.Run("clean", func(t *testing.T) {
		t.Parallel()
		s := runClient(t, agent, "--prompt", "echo hello, world", "--prompt", "permission", "--prompt", "flood 100")
		if got := s.Steps[0].Text; got != "hello, world" {
			t.Errorf("echo: got %q", got)
		}
		if got := s.Steps[2].Chunks; got != 100 {
			t.Errorf("flood 100: got %d chunks", got)
		}
	})
	t.Run("checker catches early updates", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
		defer cancel()
		out, err := exec.CommandContext(ctx, "node", filepath.Join(interopDir(t), "peers", "client.mjs"),
			"--agent", agent+" --mode updates-before-response", "--cwd", tempDir(t), "--prompt", "echo hi", "--strict").Output()
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			t.Fatalf("--strict with violations: want a non-zero exit, got %v", err)
		}
		var s clientSummary
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatal(err)
		}
		if s.ViolationCount != 2 || s.Violations[0].Rule != "order" {
			t.Errorf("want 2 order violations, got %+v", s.Violations)
		}
	})
}

// TestClientDrivesEliza drives `parley eliza --deterministic` with the SDK
// client.
func TestClientDrivesEliza(t *testing.T) {
	requirePeers(t)
	eliza := parleyBinary(t) + " eliza --deterministic"
	t.Parallel()
	const worry = "I am worried about my tests"

	t.Run("single prompt", func(t *testing.T) {
		t.Parallel()
		turn := onlyTurn(t, runClient(t, eliza, "--prompt", worry))
		if turn.StopReason != "end_turn" || strings.TrimSpace(turn.Text) == "" {
			t.Errorf("got stopReason %q, text %q; want end_turn and a reply", turn.StopReason, turn.Text)
		}
		t.Logf("DOCTOR: %q in %d chunks", turn.Text, turn.Chunks)
	})

	t.Run("fresh sessions answer alike", func(t *testing.T) {
		t.Parallel()
		s := runClient(t, eliza, "--script", writeScript(t,
			map[string]any{"op": "prompt", "session": "a", "text": worry},
			map[string]any{"op": "prompt", "session": "b", "text": worry},
		))
		if len(s.Steps) != 2 {
			t.Fatalf("got %d steps", len(s.Steps))
		}
		if s.Sessions["a"].SessionID == s.Sessions["b"].SessionID {
			t.Errorf("two session/new calls returned the same id %q", s.Sessions["a"].SessionID)
		}
		if a, b := s.Steps[0].Text, s.Steps[1].Text; a != b || a == "" {
			t.Errorf("--deterministic replies differ:\n a: %q\n b: %q", a, b)
		}
	})

	for _, kind := range []string{"allow_once", "reject_once"} {
		t.Run("permission "+kind, func(t *testing.T) {
			t.Parallel()
			turn := onlyTurn(t, runClient(t, eliza, "--permission", kind, "--prompt", "request permission deploy"))
			if want := "permission: " + kind; !strings.Contains(turn.Text, want) {
				t.Errorf("got text %q, want it to contain %q", turn.Text, want)
			}
			if len(turn.Permissions) != 1 {
				t.Fatalf("got %d permission requests, want 1", len(turn.Permissions))
			}
			p := turn.Permissions[0]
			if p.Kind != "execute" {
				t.Errorf("tool call kind %q, want execute", p.Kind)
			}
			offered := strings.Join(slices.Sorted(slices.Values(p.Offered)), ",")
			if offered != "allow_always,allow_once,reject_always,reject_once" {
				t.Errorf("offered kinds %s, want the four spec kinds", offered)
			}
		})
	}

	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		words := strings.Repeat("word ", 50)
		turn := onlyTurn(t, runClient(t, eliza, "--cancel-after-first-chunk", "--prompt", "slowly "+words))
		if turn.StopReason != "cancelled" {
			t.Errorf("stopReason %q after session/cancel, want cancelled", turn.StopReason)
		}
		if turn.Chunks >= 50 {
			t.Errorf("got all %d chunks; the cancel did not stop the turn", turn.Chunks)
		}
	})

	t.Run("flood 1000", func(t *testing.T) {
		t.Parallel()
		s := runClient(t, eliza, "--flood", "1000")
		if s.Flood == nil || s.Flood.Chunks != 1000 {
			t.Fatalf("got %+v, want exactly 1000 chunks", s.Flood)
		}
		if turn := s.Steps[0]; turn.StopReason != "end_turn" || turn.ChunksAtResponse != 1000 {
			t.Errorf("stopReason %q with %d chunks handled at the response, want end_turn after all 1000", turn.StopReason, turn.ChunksAtResponse)
		}
	})

	t.Run("load", func(t *testing.T) {
		t.Parallel()
		s := runClient(t, eliza, "--script", writeScript(t,
			map[string]any{"op": "prompt", "session": "a", "text": worry},
			map[string]any{"op": "load", "session": "a"},
			map[string]any{"op": "prompt", "session": "a", "text": "Yes, very much"},
		))
		if !s.AgentCapabilities.LoadSession {
			t.Fatal("eliza does not advertise loadSession")
		}
		if len(s.Steps) != 3 {
			t.Fatalf("got %d steps", len(s.Steps))
		}
		first, load, after := s.Steps[0], s.Steps[1], s.Steps[2]
		if load.UserText != worry {
			t.Errorf("replayed user text %q, want %q", load.UserText, worry)
		}
		if load.Text != first.Text {
			t.Errorf("replayed agent text %q, want the first reply %q", load.Text, first.Text)
		}
		if after.StopReason != "end_turn" || after.Text == "" {
			t.Errorf("prompt after load: stopReason %q, text %q", after.StopReason, after.Text)
		}
	})

	t.Run("close", func(t *testing.T) {
		t.Parallel()
		s := runClient(t, eliza, "--script", writeScript(t,
			map[string]any{"op": "prompt", "session": "a", "text": worry},
			map[string]any{"op": "close", "session": "a"},
		))
		if len(s.Steps) != 2 {
			t.Fatalf("got %d steps", len(s.Steps))
		}
	})
}

type agentSummary struct {
	checked
	ClientCapabilities map[string]any `json:"clientCapabilities"`
	Turns              []struct {
		Prompt     string `json:"prompt"`
		StopReason string `json:"stopReason"`
		Permission *struct {
			Offered []string `json:"offered"`
			Chosen  string   `json:"chosen"`
		} `json:"permission"`
	} `json:"turns"`
}

type runResult struct {
	stdout, stderr string
	err            error
	agent          agentSummary
}

// runParley runs `parley run` with peers/agent.mjs as the agent. A hang
// fails the test.
func runParley(t *testing.T, agentFlags, prompt string) runResult {
	t.Helper()
	dir := tempDir(t)
	summary := filepath.Join(dir, "agent-summary.json")
	agentCommand := fmt.Sprintf("node %s --summary %s %s", filepath.Join(interopDir(t), "peers", "agent.mjs"), summary, agentFlags)
	ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, parleyBinary(t), "run", "--agent-command", strings.TrimSpace(agentCommand), "--cwd", dir, prompt)
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("parley run %q hung (killed after %v)\nstdout:\n%s\nstderr:\n%s", prompt, peerTimeout, stdout.String(), stderr.String())
	}
	r := runResult{stdout: stdout.String(), stderr: stderr.String(), err: err}
	data, rerr := os.ReadFile(summary)
	if rerr != nil {
		t.Fatalf("agent peer wrote no summary: %v\nparley stderr:\n%s", rerr, r.stderr)
	}
	if jerr := json.Unmarshal(data, &r.agent); jerr != nil {
		t.Fatalf("agent summary: %v\n%s", jerr, data)
	}
	r.agent.requireClean(t, "parley run")
	return r
}

func (r runResult) requireSuccess(t *testing.T) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("parley run: %v\nstderr:\n%s", r.err, r.stderr)
	}
}

// requireOutput accepts the reply exactly, with at most one newline that
// parley run may add after the streamed text.
func (r runResult) requireOutput(t *testing.T, want string) {
	t.Helper()
	if got := strings.TrimSuffix(r.stdout, "\n"); got != want && r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
}

// TestRunDrivesSDKAgent drives the SDK agent with `parley run`.
func TestRunDrivesSDKAgent(t *testing.T) {
	requirePeers(t)
	parleyBinary(t)
	t.Parallel()

	t.Run("echo", func(t *testing.T) {
		t.Parallel()
		text := "Hello, parley: ünïcode ✓, \"quotes\", a tab\there  and two spaces."
		r := runParley(t, "", "echo "+text)
		r.requireSuccess(t)
		r.requireOutput(t, text)
		if caps := r.agent.ClientCapabilities; caps != nil {
			if _, flat := caps["readTextFile"]; flat {
				t.Errorf("flat clientCapabilities: %v", caps)
			}
		}
	})

	t.Run("updates before session/new response", func(t *testing.T) {
		t.Parallel()
		r := runParley(t, "--mode updates-before-response", "echo still here")
		r.requireSuccess(t)
		r.requireOutput(t, "still here")
	})

	t.Run("unknown update kind", func(t *testing.T) {
		t.Parallel()
		r := runParley(t, "", "unknown-kind")
		r.requireSuccess(t)
		r.requireOutput(t, "before unknown kind. after unknown kind.")
	})

	t.Run("permission", func(t *testing.T) {
		t.Parallel()
		r := runParley(t, "", "permission")
		outcome := regexp.MustCompile(`permission: (allow_once|allow_always|reject_once|reject_always|cancelled)`)
		switch {
		case r.err == nil && outcome.MatchString(r.stdout):
			t.Logf("parley run answered: %s", outcome.FindString(r.stdout))
		case r.err != nil && strings.TrimSpace(r.stderr) != "":
			t.Logf("parley run stopped: %v: %s", r.err, strings.TrimSpace(r.stderr))
		default:
			t.Errorf("no clear outcome: err %v\nstdout %q\nstderr %q", r.err, r.stdout, r.stderr)
		}
		for _, turn := range r.agent.Turns {
			if turn.Permission != nil && strings.HasPrefix(turn.Permission.Chosen, "unoffered") {
				t.Errorf("parley answered with an option it was not offered: %s", turn.Permission.Chosen)
			}
		}
	})
}
