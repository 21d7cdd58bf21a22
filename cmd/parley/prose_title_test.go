//go:build !windows

package main

import (
	"strings"
	"testing"
)

// Issue 31, item 8: a prose title is not a command. An execute call that shows no
// command is asked about as such: its title ("Delete the build directory") is not judged
// as a program named Delete, and no risk of one is shown.
func TestProseTitleIsNotJudgedAsACommand(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := w.chat(t)
	mark := term.mark()
	term.typeLine(`askjson {"toolCall":{"toolCallId":"t1","title":"Delete the build directory","kind":"execute"},"options":` + allKinds + `}`)
	term.expect("Delete the build directory")
	term.expect("[n]")
	q := term.since(mark)
	for _, bad := range []string{"`Delete`", "Delete is", "program"} {
		if strings.Contains(q, bad) {
			t.Errorf("the title was judged as a command (%q):\n%s", bad, q)
		}
	}
	term.typeLine("n")
	term.expect("chose reject_once")
	term.typeLine("/quit")
	term.wait(t, 0)
}
