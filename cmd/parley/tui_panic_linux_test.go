package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTUIPanicRestoresTheTerminal: a panic of the terminal UI, wherever it happens (the
// hidden test hook PARLEY_TEST_PANIC puts one in Update, View, a command, a command of a
// tea.Batch or of a tea.Sequence, or a callback bubbletea runs in its loop, on F12), leaves the terminal as it was: the normal
// screen, the cursor shown, line mode and echo back. The agent is stopped, parley exits
// non-zero, the screen says briefly what happened and names the log, and the log has the
// panic and its stack.
func TestTUIPanicRestoresTheTerminal(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"view", "update", "command", "batch", "sequence", "exec"} {
		t.Run(where, func(t *testing.T) {
			w := newWorkspace(t)
			// In the user's cache, which a confined agent may write.
			pidFile := filepath.Join(t.TempDir(), "agent.pid")
			for _, kv := range w.env {
				if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
					pidFile = filepath.Join(v, "agent.pid")
				}
			}
			s := startTUI(t, w.dir, append(w.env, "PARLEY_TEST_PANIC="+where, "PARLEY_TEST_AGENT_PID="+pidFile), 200, 30)
			s.Type("pid\r")
			s.WaitText("pid written")
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			agentPid, _ := strconv.Atoi(string(data))
			if cooked, err := s.Cooked(); err != nil || cooked {
				t.Fatalf("the UI runs in line mode (%v): the test cannot tell a restored terminal", err)
			}

			var state string
			for _, kv := range w.env {
				if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
					state = v
				}
			}
			logPath := filepath.Join(state, "parley", "logs", "parley-chat-panics.log")

			s.Type("\x1b[24~") // F12
			if code := s.Wait(); code != 1 {
				t.Errorf("exit %d after a panic, want 1", code)
			}
			// The message naming the log is the last thing parley writes.
			s.WaitRaw("the log's path", func(raw string) bool { return strings.Contains(raw, logPath) })
			if screen := s.Text(); !strings.Contains(screen, "parley: the terminal UI failed (panic in ") {
				t.Errorf("the screen does not say what happened:\n%s", screen)
			} else if strings.Contains(screen, "goroutine ") {
				t.Errorf("the stack is on the screen, not only in the log:\n%s", screen)
			}
			if s.AltScreen() {
				t.Error("the terminal is left on the alternate screen")
			}
			if s.CursorHidden() {
				raw := s.Raw()
				t.Errorf("the cursor is left hidden: %q", raw[max(0, len(raw)-1500):])
			}
			if cooked, err := s.Cooked(); err != nil || !cooked {
				t.Errorf("the terminal is left without line mode or echo (%v)", err)
			}
			if !waitProcessEnd(t, agentPid, 10*time.Second) {
				t.Errorf("the agent (pid %d) outlived parley", agentPid)
			}

			log, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatalf("the panic log: %v", err)
			}
			for _, want := range []string{"panic: PARLEY_TEST_PANIC=" + where, "goroutine ", "internal/tui.(*testTrap)"} {
				if !strings.Contains(string(log), want) {
					t.Errorf("the panic log lacks %q:\n%s", want, log)
				}
			}
		})
	}
}
