//go:build linux

package realagents

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runTimeout only guards against a hang.
const runTimeout = 2 * time.Minute

// parleyRun is one `parley run` in a sandbox.
type parleyRun struct {
	sb   *sandbox
	cmd  *exec.Cmd
	out  *firstByteWriter
	errb bytes.Buffer
	done chan struct{}
	err  error
}

// firstByteWriter keeps what is written and closes first when the first byte arrives.
type firstByteWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first chan struct{}
	at    time.Time
}

func (w *firstByteWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() == 0 && len(b) > 0 {
		w.at = time.Now()
		close(w.first)
	}
	return w.buf.Write(b)
}

func (w *firstByteWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startRun starts `parley run` with the agent (through the tee, unless direct) and args,
// its stdin from /dev/null: no terminal.
func (sb *sandbox) startRun(t testing.TB, tee bool, args ...string) *parleyRun {
	t.Helper()
	command := strings.Join(sb.agent.argv(), " ")
	if tee {
		command = sb.agentCommand()
	}
	argv := append([]string{"run", "--agent-command", command, "--cwd", sb.workspace}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	cmd := exec.CommandContext(ctx, parleyBinary(t), argv...)
	cmd.Env, cmd.Dir = sb.env, sb.workspace
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = null
	r := &parleyRun{sb: sb, cmd: cmd, out: &firstByteWriter{first: make(chan struct{})}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = r.out, &r.errb
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer cancel()
		defer null.Close()
		r.err = cmd.Wait()
		if ctx.Err() != nil {
			r.err = ctx.Err()
		}
		close(r.done)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-r.done })
	return r
}

// wait waits for parley to exit and returns its exit status.
func (r *parleyRun) wait(t testing.TB) int {
	t.Helper()
	<-r.done
	if r.err == context.DeadlineExceeded {
		t.Fatalf("parley run hung (killed after %v)\nstdout:\n%s\nstderr:\n%s%s", runTimeout, r.out.String(), r.errb.String(), r.sb.agentLog())
	}
	return r.cmd.ProcessState.ExitCode()
}

// exitStatus is the status as a shell reports it: 128+N for a signal.
func (r *parleyRun) exitStatus() int {
	if ws, ok := r.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return r.cmd.ProcessState.ExitCode()
}

func (r *parleyRun) String() string {
	return "stdout:\n" + r.out.String() + "\nstderr:\n" + r.errb.String() + r.sb.agentLog()
}

// runParley runs `parley run` through the tee to its end.
func (sb *sandbox) runParley(t testing.TB, args ...string) *parleyRun {
	t.Helper()
	r := sb.startRun(t, true, args...)
	r.wait(t)
	return r
}

// agentLog is the end of the agent's stderr as parley logged it, for failure messages.
func (sb *sandbox) agentLog() string {
	dir := filepath.Join(sb.xdg("XDG_STATE_HOME"), "parley", "logs")
	entries, _ := os.ReadDir(dir)
	var b strings.Builder
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		b.WriteString("\nagent log " + e.Name() + " (end):\n" + string(data))
	}
	return b.String()
}
