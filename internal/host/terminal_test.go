//go:build unix

package host

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// newTerminals serves the sessions of workspaceFixture; at the end of the test it is
// closed and no goroutine may be left.
func newTerminals(t *testing.T) (*Terminals, string) {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) }) // runs last
	base, rootsFor := workspaceFixture(t)
	ts := NewTerminals(rootsFor)
	t.Cleanup(func() { ts.Close() })
	return ts, base
}

func create(t *testing.T, ts *Terminals, req *acp.CreateTerminalRequest) acp.TerminalID {
	t.Helper()
	if req.SessionID == "" {
		req.SessionID = "s1"
	}
	resp, err := ts.CreateTerminal(t.Context(), req)
	if err != nil {
		t.Fatalf("terminal/create %s %q: %v", req.Command, req.Args, err)
	}
	return resp.TerminalID
}

func sh(script string, args ...string) *acp.CreateTerminalRequest {
	return &acp.CreateTerminalRequest{Command: "sh", Args: append([]string{"-c", script, "sh"}, args...)}
}

// finish waits for the command to exit and returns terminal/output.
func finish(t *testing.T, ts *Terminals, id acp.TerminalID) *acp.TerminalOutputResponse {
	t.Helper()
	if _, err := ts.WaitForTerminalExit(t.Context(), &acp.WaitForTerminalExitRequest{SessionID: "s1", TerminalID: id}); err != nil {
		t.Fatalf("terminal/wait_for_exit: %v", err)
	}
	out, err := ts.TerminalOutput(t.Context(), &acp.TerminalOutputRequest{SessionID: "s1", TerminalID: id})
	if err != nil {
		t.Fatalf("terminal/output: %v", err)
	}
	return out
}

func exited(code uint32) *acp.TerminalExitStatus { return &acp.TerminalExitStatus{ExitCode: &code} }

func TestTerminalOutput(t *testing.T) {
	ts, base := newTerminals(t)
	tests := []struct {
		name string
		req  *acp.CreateTerminalRequest
		want *acp.TerminalOutputResponse
	}{
		{"exit code", sh("printf hello; exit 3"),
			&acp.TerminalOutputResponse{Output: "hello", ExitStatus: exited(3)}},
		{"no shell", &acp.CreateTerminalRequest{Command: "echo", Args: []string{"$HOME", "a;b", "*"}},
			&acp.TerminalOutputResponse{Output: "$HOME a;b *\n", ExitStatus: exited(0)}},
		{"stderr interleaved", sh("echo out; echo err >&2; echo out2; echo err2 >&2; exit 1"),
			&acp.TerminalOutputResponse{Output: "out\nerr\nout2\nerr2\n", ExitStatus: exited(1)}},
		{"env", &acp.CreateTerminalRequest{Command: "sh", Args: []string{"-c", `printf '%s|%s' "$PARLEY_A" "$PARLEY_B"`},
			Env: []acp.EnvVariable{{Name: "PARLEY_A", Value: "x y"}, {Name: "PARLEY_B", Value: "1"}, {Name: "PARLEY_B", Value: "2"}}},
			&acp.TerminalOutputResponse{Output: "x y|2", ExitStatus: exited(0)}},
		{"default cwd", &acp.CreateTerminalRequest{Command: "pwd"},
			&acp.TerminalOutputResponse{Output: base + "/a\n", ExitStatus: exited(0)}},
		{"cwd", &acp.CreateTerminalRequest{Command: "pwd", Cwd: base + "/b"},
			&acp.TerminalOutputResponse{Output: base + "/b\n", ExitStatus: exited(0)}},
		{"relative command in cwd", &acp.CreateTerminalRequest{Command: "./hi.sh", Cwd: base + "/a/sub"},
			&acp.TerminalOutputResponse{Output: "hi\n", ExitStatus: exited(0)}},
		{"signal", sh("kill -USR1 $$"),
			&acp.TerminalOutputResponse{ExitStatus: &acp.TerminalExitStatus{Signal: "SIGUSR1"}}},
		{"stdin is empty", &acp.CreateTerminalRequest{Command: "cat"},
			&acp.TerminalOutputResponse{ExitStatus: exited(0)}},
		{"zero limit", &acp.CreateTerminalRequest{Command: "echo", Args: []string{"hi"}, OutputByteLimit: new(uint64(0))},
			&acp.TerminalOutputResponse{Truncated: true, ExitStatus: exited(0)}},
	}
	writeFile(t, base+"/a/sub/hi.sh", "#!/bin/sh\necho hi\n", 0o755)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := create(t, ts, tt.req)
			if diff := cmp.Diff(tt.want, finish(t, ts, id)); diff != "" {
				t.Errorf("terminal/output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTerminalTruncation(t *testing.T) {
	ts, _ := newTerminals(t)
	// 1000 "é" are 2000 bytes; the last 101 begin in the middle of one.
	req := sh(`printf '%s' "$1"; printf '%s' "$1" >&2`, strings.Repeat("é", 500))
	req.OutputByteLimit = new(uint64(101))
	got := finish(t, ts, create(t, ts, req))
	want := &acp.TerminalOutputResponse{Output: strings.Repeat("é", 50), Truncated: true, ExitStatus: exited(0)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("terminal/output (-want +got):\n%s", diff)
	}
}

func TestTerminalKill(t *testing.T) {
	ts, _ := newTerminals(t)
	id := create(t, ts, &acp.CreateTerminalRequest{Command: "sleep", Args: []string{"100"}})
	out, err := ts.TerminalOutput(t.Context(), &acp.TerminalOutputRequest{SessionID: "s1", TerminalID: id})
	if err != nil || out.ExitStatus != nil {
		t.Fatalf("terminal/output of a running command: %+v, %v", out, err)
	}
	if _, err := ts.KillTerminal(t.Context(), &acp.KillTerminalRequest{SessionID: "s1", TerminalID: id}); err != nil {
		t.Fatalf("terminal/kill: %v", err)
	}
	// The terminal is still there, with how the command ended.
	want := &acp.TerminalOutputResponse{ExitStatus: &acp.TerminalExitStatus{Signal: "SIGTERM"}}
	if diff := cmp.Diff(want, finish(t, ts, id)); diff != "" {
		t.Errorf("terminal/output after kill (-want +got):\n%s", diff)
	}
	if _, err := ts.KillTerminal(t.Context(), &acp.KillTerminalRequest{SessionID: "s1", TerminalID: id}); err != nil {
		t.Errorf("a second terminal/kill: %v", err)
	}
}

func TestTerminalKillEscalates(t *testing.T) {
	ts, base := newTerminals(t)
	ts.KillGrace = 50 * time.Millisecond
	fifo := base + "/a/ready"
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	id := create(t, ts, sh(`trap "" TERM; echo > "$1"; while :; do :; done`, fifo))
	if _, err := os.ReadFile(fifo); err != nil { // returns once the trap is set
		t.Fatal(err)
	}
	if _, err := ts.KillTerminal(t.Context(), &acp.KillTerminalRequest{SessionID: "s1", TerminalID: id}); err != nil {
		t.Fatalf("terminal/kill: %v", err)
	}
	if got := finish(t, ts, id).ExitStatus; got == nil || got.Signal != "SIGKILL" {
		t.Errorf("exit status %+v, want SIGKILL", got)
	}
}

func TestTerminalMaxRunTime(t *testing.T) {
	ts, _ := newTerminals(t)
	ts.MaxRunTime = 50 * time.Millisecond
	got := finish(t, ts, create(t, ts, &acp.CreateTerminalRequest{Command: "sleep", Args: []string{"100"}}))
	want := &acp.TerminalOutputResponse{Output: "\n[parley: stopped after running longer than 50ms]\n", ExitStatus: &acp.TerminalExitStatus{Signal: "SIGTERM"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("terminal/output (-want +got):\n%s", diff)
	}
}

func TestTerminalRelease(t *testing.T) {
	ts, _ := newTerminals(t)
	running := create(t, ts, &acp.CreateTerminalRequest{Command: "sleep", Args: []string{"100"}})
	proc := ts.terms[running].proc
	done := create(t, ts, &acp.CreateTerminalRequest{Command: "true"})
	finish(t, ts, done)
	for _, id := range []acp.TerminalID{running, done} {
		if _, err := ts.ReleaseTerminal(t.Context(), &acp.ReleaseTerminalRequest{SessionID: "s1", TerminalID: id}); err != nil {
			t.Fatalf("terminal/release %s: %v", id, err)
		}
		checkNotFound(t, ts, "s1", id)
	}
	if proc.State() == nil {
		t.Errorf("release left the command running")
	}
}

// checkNotFound checks that every terminal/* method answers -32002 for id in session.
func checkNotFound(t *testing.T, ts *Terminals, session acp.SessionID, id acp.TerminalID) {
	t.Helper()
	ctx := t.Context()
	_, err1 := ts.TerminalOutput(ctx, &acp.TerminalOutputRequest{SessionID: session, TerminalID: id})
	_, err2 := ts.WaitForTerminalExit(ctx, &acp.WaitForTerminalExitRequest{SessionID: session, TerminalID: id})
	_, err3 := ts.KillTerminal(ctx, &acp.KillTerminalRequest{SessionID: session, TerminalID: id})
	_, err4 := ts.ReleaseTerminal(ctx, &acp.ReleaseTerminalRequest{SessionID: session, TerminalID: id})
	for i, err := range []error{err1, err2, err3, err4} {
		if wireCode(err) != acp.CodeResourceNotFound {
			t.Errorf("method %d on terminal %s of session %s: %v, want -32002", i+1, id, session, err)
		}
	}
}

func TestTerminalSessions(t *testing.T) {
	ts, base := newTerminals(t)
	other, err := ts.CreateTerminal(t.Context(), &acp.CreateTerminalRequest{SessionID: "nope", Command: "true"})
	if wireCode(err) != acp.CodeResourceNotFound {
		t.Errorf("terminal/create in an unknown session: %v, %v", other, err)
	}
	id := create(t, ts, &acp.CreateTerminalRequest{Command: "true", Cwd: base + "/a"})
	checkNotFound(t, ts, "s2", id) // another session's terminal
	checkNotFound(t, ts, "s1", "term-999")
	finish(t, ts, id) // still there for its own session
}

func TestTerminalCreateRefused(t *testing.T) {
	ts, base := newTerminals(t)
	tests := []struct {
		name     string
		req      *acp.CreateTerminalRequest
		wantCode int64
		wantMsg  string
	}{
		{"cwd outside", &acp.CreateTerminalRequest{Command: "true", Cwd: base + "/outside"}, jsonrpc2.CodeInvalidParams, "outside the workspace"},
		{"cwd escapes", &acp.CreateTerminalRequest{Command: "true", Cwd: base + "/a/../outside"}, jsonrpc2.CodeInvalidParams, "outside the workspace"},
		{"cwd symlink out", &acp.CreateTerminalRequest{Command: "true", Cwd: base + "/a/dir-out"}, jsonrpc2.CodeInvalidParams, "outside the workspace"},
		{"cwd relative", &acp.CreateTerminalRequest{Command: "true", Cwd: "sub"}, jsonrpc2.CodeInvalidParams, "relative path"},
		{"cwd missing", &acp.CreateTerminalRequest{Command: "true", Cwd: base + "/a/missing"}, acp.CodeResourceNotFound, "no such file"},
		{"cwd a file", &acp.CreateTerminalRequest{Command: "true", Cwd: base + "/a/f"}, jsonrpc2.CodeInvalidParams, "not a directory"},
		{"not found", &acp.CreateTerminalRequest{Command: "parley-no-such-command"}, jsonrpc2.CodeInvalidParams, "command not found"},
		{"not found by path", &acp.CreateTerminalRequest{Command: base + "/a/nope"}, jsonrpc2.CodeInvalidParams, "command not found"},
		{"not executable", &acp.CreateTerminalRequest{Command: base + "/a/f"}, jsonrpc2.CodeInvalidParams, "permission denied"},
		{"no command", &acp.CreateTerminalRequest{}, jsonrpc2.CodeInvalidParams, "needs a command"},
		{"bad env", &acp.CreateTerminalRequest{Command: "true", Env: []acp.EnvVariable{{Name: "A=B"}}}, jsonrpc2.CodeInvalidParams, "environment variable"},
	}
	writeFile(t, base+"/a/f", "", 0o644)
	for _, tt := range tests {
		tt.req.SessionID = "s1"
		resp, err := ts.CreateTerminal(t.Context(), tt.req)
		if wireCode(err) != tt.wantCode || (err != nil && !strings.Contains(err.Error(), tt.wantMsg)) {
			t.Errorf("%s: %+v, %v; want code %d and %q", tt.name, resp, err, tt.wantCode, tt.wantMsg)
		}
	}
}

func TestTerminalWaitCancelled(t *testing.T) {
	ts, _ := newTerminals(t)
	id := create(t, ts, &acp.CreateTerminalRequest{Command: "sleep", Args: []string{"100"}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := ts.WaitForTerminalExit(ctx, &acp.WaitForTerminalExitRequest{SessionID: "s1", TerminalID: id})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("terminal/wait_for_exit with a cancelled context: %v", err)
	}
}

func TestTerminalsClose(t *testing.T) {
	ts, base := newTerminals(t)
	id := create(t, ts, &acp.CreateTerminalRequest{Command: "sleep", Args: []string{"100"}})
	proc := ts.terms[id].proc
	// A background process that outlives its shell is killed too. It holds a FIFO open for
	// writing: reading it ends when the process does.
	fifo := base + "/a/bg"
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	shell := create(t, ts, sh(`sleep 100 >"$1" 2>&1 &`, fifo))
	bg, err := os.Open(fifo) // returns once the background sleep has it open
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Close()
	finish(t, ts, shell)

	if err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	if proc.State() == nil || proc.State().String() != "signal: terminated" {
		t.Errorf("sleep 100 after Close: %v", proc.State())
	}
	bgDone := make(chan error, 1)
	go func() { _, err := io.ReadAll(bg); bgDone <- err }()
	select {
	case err := <-bgDone:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the background sleep survived Close")
	}
	if _, err := ts.CreateTerminal(t.Context(), &acp.CreateTerminalRequest{SessionID: "s1", Command: "true"}); err == nil {
		t.Errorf("terminal/create after Close succeeded")
	}
	checkNotFound(t, ts, "s1", id)
}

// TestTerminalCapPerSession: an agent cannot start terminals without end; the cap is a
// clear error, and releasing one makes room again.
func TestTerminalCapPerSession(t *testing.T) {
	ts, _ := newTerminals(t)
	var ids []acp.TerminalID
	for range MaxTerminals {
		ids = append(ids, create(t, ts, &acp.CreateTerminalRequest{Command: "sleep", Args: []string{"100"}}))
	}
	_, err := ts.CreateTerminal(t.Context(), &acp.CreateTerminalRequest{SessionID: "s1", Command: "true"})
	if err == nil || !strings.Contains(err.Error(), "terminal/release") {
		t.Fatalf("terminal %d: %v, want an error saying to release some", MaxTerminals+1, err)
	}
	if _, err := ts.ReleaseTerminal(t.Context(), &acp.ReleaseTerminalRequest{SessionID: "s1", TerminalID: ids[0]}); err != nil {
		t.Fatal(err)
	}
	create(t, ts, &acp.CreateTerminalRequest{Command: "true"})
}

// TestTerminalOutputLimitIsCapped: whatever the agent asks, a terminal keeps at most
// MaxOutputLimit bytes of output.
func TestTerminalOutputLimitIsCapped(t *testing.T) {
	ts, _ := newTerminals(t)
	req := sh(`head -c $(( $1 * 2 )) /dev/zero | tr '\0' x`, strconv.Itoa(MaxOutputLimit))
	req.OutputByteLimit = new(uint64(1) << 40)
	got := finish(t, ts, create(t, ts, req))
	if len(got.Output) != MaxOutputLimit || !got.Truncated {
		t.Errorf("kept %d bytes (truncated %v), want %d", len(got.Output), got.Truncated, MaxOutputLimit)
	}
}
