//go:build !windows

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The terminal UI has /rewind, /fork and /handoff too.
func TestTUIRewindForkAndHandoff(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 120, 40, "chat", "--agent", "eliza")
	s.Type("write file a.txt with changed\r")
	s.WaitText("wrote a.txt")
	s.Type("/rewind 1\r")
	s.WaitText("Going on in a new session (eliza-2), from the start of the conversation.")
	if b, _ := os.ReadFile(filepath.Join(w.dir, "a.txt")); string(b) != "inside" {
		t.Errorf("a.txt after /rewind 1: %q", b)
	}
	s.Type("recall\r")
	s.WaitText("I remember 1 prompts in session eliza-2")
	s.Type("/fork\r")
	s.WaitText("Going on in a fork of the conversation (1 turn): the agent's session eliza-3")
	s.Type("/handoff eliza\r")
	s.WaitText("The conversation (1 turn) goes on with eliza")
	s.Type("recall\r")
	s.WaitText("| | recall")
}
