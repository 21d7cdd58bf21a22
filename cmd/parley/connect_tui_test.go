//go:build !windows

package main

import (
	"strings"
	"testing"
)

// The terminal UI on a server's conversation: parley chat --connect on a terminal, from a
// directory of the client's, talks with the server's Eliza and says where it works.
func TestConnectTUI(t *testing.T) {
	t.Parallel()
	srv := startWeb(t, nil, "--no-open")
	w := newWorkspace(t)
	s := startTUI(t, clientDir(t), append(w.env, "PARLEY_TOKEN="+srv.token), 100, 30, "chat", "--connect", srv.base+"/")
	s.Type("I feel sad today\r")
	s.WaitText("sad today?")
	s.Type("/changes\r")
	s.WaitText("server records the changes")
	s.Type("\x04") // Ctrl-D leaves
	if code := s.Wait(); code != 0 {
		t.Errorf("exit %d after Ctrl-D", code)
	}
	if !strings.Contains(s.Text(), "sad today") {
		t.Errorf("the transcript left on the normal screen has no reply:\n%s", s.Text())
	}
}
