//go:build !windows

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIRefusesASignInThatRunsHiddenCode: the picker says why parley refuses the method;
// picking it says so again and runs nothing.
func TestTUIRefusesASignInThatRunsHiddenCode(t *testing.T) {
	t.Parallel()
	f := newSignIn(t, "FAKE_SIGNIN_VAR=LD_PRELOAD", "FAKE_SIGNIN_FORM=standard")
	s := startTUIFor(t, f.dir, f.env, "Sign in to", "chat", "--agent-command", fakeAgentCommand(t, "signin-codevar"))
	s.WaitText("parley refuses it: it sets LD_PRELOAD")
	s.Type("\r")
	s.WaitText("parley will not sign in with rc-login")
	if strings.Contains(s.Text(), "Run it?") {
		t.Error("parley asked to run it")
	}
	if _, err := os.Stat(filepath.Join(f.home(), "rc-ran")); err == nil {
		t.Error("the script ran")
	}
}
