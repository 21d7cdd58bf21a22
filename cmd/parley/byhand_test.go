//go:build !windows

package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/parley-acp/parley/internal/testbin"
)

// TestAgentsRunByHandSayWhatTheyAreAndQuitOnCtrlC: parley eliza and parley agent started
// in a terminal say they speak ACP and how to talk to them, and Ctrl-C ends them at once
// (a read of the terminal cannot be interrupted: an orderly stop would wait for a line).
func TestAgentsRunByHandSayWhatTheyAreAndQuitOnCtrlC(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cmd, talk string }{{"eliza", "parley chat --agent eliza"}, {"agent", "parley chat --agent parley"}} {
		cmd := exec.Command(self(t), tc.cmd)
		cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley", "TERM=xterm-256color"), isolatedXDG(t)...)
		cmd.Dir = t.TempDir()
		s := testbin.StartScreen(t, cmd, 120, 20)
		s.WaitText("is an ACP agent")
		s.WaitText(tc.talk)
		s.Type("\x03")
		if code := s.Wait(); code != 130 {
			t.Errorf("parley %s: exit %d after Ctrl-C", tc.cmd, code)
		}
	}
}
