//go:build !windows

package main

import (
	"strings"
	"testing"
)

// The terminal UI on a server's conversation: parley chat --connect on a terminal, from a
// directory of the client's, talks with the server's Eliza and lists the changes it made
// there.
func TestConnectTUI(t *testing.T) {
	t.Parallel()
	srv := startWeb(t, nil, "--no-open")
	w := newWorkspace(t)
	s := startTUI(t, clientDir(t), append(w.env, "PARLEY_TOKEN="+srv.token), 100, 30, "chat", "--connect", srv.base+"/")
	s.Type("slowly hello from afar\r")
	s.WaitText("hello from afar")
	// The server's record of changes, through its _parley/changes.
	s.Type("write file notes.txt with hello there\r")
	s.WaitText("wrote notes.txt")
	s.Type("/changes\r")
	s.WaitText("notes.txt")
	s.Type("\x04") // Ctrl-D leaves
	if code := s.Wait(); code != 0 {
		t.Errorf("exit %d after Ctrl-D", code)
	}
	if !strings.Contains(s.Text(), "hello from afar") {
		t.Errorf("the transcript left on the normal screen has no reply:\n%s", s.Text())
	}
}
