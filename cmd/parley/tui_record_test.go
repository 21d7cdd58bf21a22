//go:build !windows

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/testbin"
)

// TestRecordChat records a short session of parley chat as PNG frames in
// $PARLEY_RECORD (scripts/record-chat turns them into docs/chat.gif when vhs cannot
// run). Without PARLEY_RECORD it is skipped.
func TestRecordChat(t *testing.T) {
	t.Parallel()
	out := os.Getenv("PARLEY_RECORD")
	if out == "" {
		t.Skip("PARLEY_RECORD names the directory for the frames")
	}
	os.MkdirAll(out, 0o755)
	w := newWorkspace(t)
	os.WriteFile(filepath.Join(w.dir, "answer.go"), []byte("package main\n\nfunc answer() int {\n\treturn 41\n}\n"), 0o644)
	exec.Command("git", "-C", w.dir, "init", "-q").Run()
	cmd := exec.Command(self(t), "chat", "--agent-command", fakeAgentCommand(t, "tui"))
	cmd.Env = append(append(envWithout("TERM", "NO_COLOR"), "PARLEY_TEST_ROLE=parley", "TERM=xterm-256color", "PARLEY_TUI_DEMO=1"), w.env...)
	cmd.Dir = w.dir
	s := testbin.StartScreen(t, cmd, 100, 28)
	n := 0
	frame := func(times int) {
		for range times {
			n++
			if !s.SavePNG(filepath.Join(out, fmt.Sprintf("frame%03d.png", n))) {
				t.Fatal("no browser to take the pictures (chromium)")
			}
		}
	}
	typeSlowly := func(text string) {
		for i, r := range text {
			s.Type(string(r))
			if i%3 == 2 {
				s.WaitFor("the text typed", func(screen string) bool { return strings.Contains(screen, text[:i+1]) })
				frame(1)
			}
		}
	}
	s.WaitText("ready")
	frame(3)
	typeSlowly("plan")
	s.Type("\r")
	s.WaitText("run the tests")
	frame(4)
	typeSlowly("run go version")
	s.Type("\r")
	s.WaitText("ran it")
	frame(3)
	s.Type("\x0f")
	s.WaitText("Output")
	frame(6)
	s.Type("\x0f")
	typeSlowly("edit " + filepath.Join(w.dir, "answer.go"))
	s.Type("\r")
	s.WaitText("return 42")
	frame(8)
	answer(s, "y", "edited")
	frame(3)
	typeSlowly("markdown")
	s.Type("\r")
	s.WaitText("hello")
	frame(10)
}
