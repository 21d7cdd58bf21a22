//go:build unix

package main

// Starting an agent a user can follow: a start that takes more than a moment says what
// runs and shows the agent's stderr as it comes; one that downloads through npx is allowed
// longer than --agent-timeout, and npx's own error is what the user reads.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/testbin"
)

// gate is a FIFO a fake program blocks on (`read x < gate`) until the test opens it.
type gate string

func newGate(t *testing.T) gate {
	path := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	g := gate(path)
	t.Cleanup(g.open) // a test that failed early must not leave its fake waiting
	return g
}

// open lets the program waiting on the gate go on.
func (g gate) open() {
	f, err := os.OpenFile(string(g), os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err == nil {
		f.WriteString("go\n")
		f.Close()
	}
}

// script writes an executable shell script into dir.
func script(t *testing.T, dir, name, body string) string {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// following is a parley whose stderr the test reads as it comes.
type following struct {
	cmd    *exec.Cmd
	lines  chan string
	stdout bytes.Buffer
	seen   []string
}

func follow(t *testing.T, env []string, stdin string, args ...string) *following {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	t.Cleanup(cancel)
	f := &following{lines: make(chan string, 100)}
	f.cmd = exec.CommandContext(ctx, self(t), args...)
	f.cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), env...)
	f.cmd.Dir = t.TempDir()
	f.cmd.Stdin = strings.NewReader(stdin)
	f.cmd.Stdout = &f.stdout
	stderr, err := f.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(f.lines)
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			f.lines <- s.Text()
		}
	}()
	return f
}

// waitFor reads stderr until a line contains want.
func (f *following) waitFor(t *testing.T, want string) {
	t.Helper()
	for line := range f.lines {
		f.seen = append(f.seen, line)
		if strings.Contains(line, want) {
			return
		}
	}
	t.Fatalf("parley's stderr ended without %q:\n%s", want, strings.Join(f.seen, "\n"))
}

// end reads the rest of stderr and waits for parley: its exit status and whole stderr.
func (f *following) end(t *testing.T) (int, string) {
	t.Helper()
	for line := range f.lines {
		f.seen = append(f.seen, line)
	}
	err := f.cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, strings.Join(f.seen, "\n")
}

// TestSlowStartShowsWhatHappens: an agent that takes a while to start is named with its
// command, and its stderr lines are shown as they come (run and chat).
func TestSlowStartShowsWhatHappens(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"run", "chat"} {
		t.Run(mode, func(t *testing.T) {
			g := newGate(t)
			agent := script(t, t.TempDir(), "slow-agent", fmt.Sprintf("echo 'loading the model…' >&2\nread x < '%s'\necho 'model loaded' >&2\nexec '%s' eliza\n", g, self(t)))
			args := []string{"run", "--agent-command", agent, "flood 2"}
			stdin := ""
			if mode == "chat" {
				args, stdin = []string{"chat", "--agent-command", agent}, "flood 2\n"
			}
			f := follow(t, testbin.HomeEnv(t.TempDir()), stdin, args...)
			f.waitFor(t, "is still starting: "+agent)
			f.waitFor(t, "waiting up to 1m0s for it to answer")
			f.waitFor(t, agent+": loading the model…")
			g.open()
			code, stderr := f.end(t)
			if code != 0 || !strings.Contains(f.stdout.String(), "0 1 ") {
				t.Errorf("exit %d, stdout %q, stderr:\n%s", code, f.stdout.String(), stderr)
			}
			if !strings.Contains(stderr, agent+": model loaded") {
				t.Errorf("a line written later in the start is not shown:\n%s", stderr)
			}
		})
	}
}

// TestQuickStartSaysNothing: an agent that is ready at once shows nothing of its start.
func TestQuickStartSaysNothing(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run", "flood 2")
	if r.code != 0 || strings.Contains(r.stderr, "still starting") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestStartThatDownloadsIsFollowed: the start of an npx agent whose package npm's cache
// does not have is allowed its download time, not --agent-timeout; parley says what it
// downloads, shows npx's output as it comes, and reports npx's own error when it fails
// (here npm cannot reach its registry, as on a machine offline).
func TestStartThatDownloadsIsFollowed(t *testing.T) {
	t.Parallel()
	g := newGate(t)
	bin := t.TempDir()
	script(t, bin, "npx", fmt.Sprintf(`echo "npm warn exec The following package was not found and will be installed: $2" >&2
read x < '%s'
echo "npm error code ECONNREFUSED" >&2
echo "npm error FetchError: request to https://registry.npmjs.org/@parley-test%%2fagent failed, reason: connect ECONNREFUSED" >&2
exit 1
`, g))
	env := append(testbin.HomeEnv(t.TempDir()), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "npm_config_cache="+t.TempDir())
	// The download is reported after a second, well past the 300ms --agent-timeout: had
	// the start been given only that, it would have failed before.
	f := follow(t, env, "", "run", "--agent-timeout", "300ms", "--agent-command", "npx --yes @parley-test/agent@1.0.0", "hello")
	f.waitFor(t, "is still starting: npx --yes @parley-test/agent@1.0.0")
	f.waitFor(t, "it first downloads @parley-test/agent@1.0.0 through npx (allowed 10m0s")
	f.waitFor(t, "npm warn exec The following package was not found and will be installed: @parley-test/agent@1.0.0")
	g.open()
	code, stderr := f.end(t)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"npm error code ECONNREFUSED", "reason: connect ECONNREFUSED"} {
		if !strings.Contains(stderr[strings.Index(stderr, "ECONNREFUSED"):], want) {
			t.Errorf("npx's own error %q is not reported:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "did not answer") || strings.Contains(stderr, "deadline exceeded") {
		t.Errorf("the download was held to the agent timeout:\n%s", stderr)
	}
}

// TestStartThatDownloadsTimesOutWithItsOutput: a download that outlasts its allowance ends
// with what the runner last said, not only "context deadline exceeded".
func TestStartThatDownloadsTimesOutWithItsOutput(t *testing.T) {
	// Not parallel: the fake npx must speak within a 500ms PARLEY_DOWNLOAD_TIMEOUT.
	g := newGate(t)
	bin := t.TempDir()
	script(t, bin, "npx", fmt.Sprintf("echo 'npm http fetch GET https://registry.npmjs.org/@parley-test%%2fagent attempt 1 failed with ETIMEDOUT' >&2\nread x < '%s'\n", g))
	env := append(testbin.HomeEnv(t.TempDir()), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "npm_config_cache="+t.TempDir(), "PARLEY_DOWNLOAD_TIMEOUT=500ms")
	r := parleyIn(t, t.TempDir(), env, "", "run", "--agent-command", "npx --yes @parley-test/agent@1.0.0", "hello")
	g.open()
	for _, want := range []string{"attempt 1 failed with ETIMEDOUT", "allows 500ms for a start that downloads @parley-test/agent@1.0.0 through npx"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d", r.code)
	}
}
