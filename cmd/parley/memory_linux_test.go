package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/proc"
	"github.com/parley-acp/parley/internal/testbin"
)

// TestHostileAgentMemoryIsBounded runs parley against an agent that tries every way it
// knows to exhaust parley's memory (see memhog in hostile_test.go) and checks parley's
// peak resident size. PARLEY_MEMHOG="UPDATES SECONDS STDERR_MB READS" sets the attack's
// size (default "5000 0.5 10 100", fewer reads under the race detector, where each takes
// long; the figures for the issues use "200000 3 100 3" and "5000 0.5 10 300").
func TestHostileAgentMemoryIsBounded(t *testing.T) {
	t.Parallel()
	attack := "5000 0.5 10 100"
	if testbin.Race() {
		attack = "5000 0.5 10 10"
	}
	if v := os.Getenv("PARLEY_MEMHOG"); v != "" {
		attack = v
	}
	w := newWorkspace(t)
	file := filepath.Join(w.dir, "control.bin")
	if err := os.WriteFile(file, bytes.Repeat([]byte{1}, 40<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self(t), "run", "--agent-command", fakeAgentCommand(t, "hostile-memhog"), file+" "+attack)
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), w.env...)
	cmd.Dir = w.dir
	stderr := proc.NewOutput(0, 4<<10)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(5 * time.Minute): // a hang guard
		cmd.Process.Kill()
		<-exited
		t.Fatal("parley did not finish the turn")
	}
	_, tail, _ := stderr.Snapshot(true)
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10 // KiB → MiB
	t.Logf("attack %q: parley's peak RSS %d MiB, %v, status %v", attack, peak, time.Since(start).Round(time.Millisecond), cmd.ProcessState)
	if cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("status %v; stderr ends:\n%s", cmd.ProcessState, tail)
	}
	if limit := int64(memoryLimitMiB); peak > limit {
		t.Errorf("peak RSS %d MiB, over %d MiB", peak, limit)
	}
	logs, _ := filepath.Glob(filepath.Join(envValue(w.env, "XDG_STATE_HOME"), "parley", "logs", "*"))
	var total int64
	for _, l := range logs {
		if info, err := os.Stat(l); err == nil {
			total += info.Size()
		}
	}
	t.Logf("the agent's log: %d files, %d MiB", len(logs), total>>20)
	if total > 2*agentLogLimit {
		t.Errorf("the agent's stderr log takes %d MiB: %s", total>>20, strings.Join(logs, ", "))
	}
}

// memoryLimitMiB is the most parley may use under the attack: generous, since the race
// detector (under which the tests run) multiplies memory several times.
var memoryLimitMiB = func() int {
	if testbin.Race() {
		return 1500
	}
	return 300
}()

// agentLogLimit is the size at which parley rotates an agent's log (it keeps one more).
const agentLogLimit = 8 << 20

// envValue is name's value in env.
func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}
