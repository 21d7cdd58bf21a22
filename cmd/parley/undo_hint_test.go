package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An undo stopped by a hand edit ends on the command that undoes the turn's other files,
// and that command does it, leaving the hand edit alone.
func TestUndoConflictGivesTheCommandForTheOtherFiles(t *testing.T) {
	w := changesFixture(t)
	if r := w.run(t, oneTurnOfEveryKind(w.dir), "--yolo"); r.code != 0 {
		t.Fatalf("the turn: exit %d\n%s", r.code, r.stderr)
	}
	mine := "edited by a command\nand by my own hand\n"
	mustWrite(t, filepath.Join(w.dir, "cmd.txt"), mine)

	u := w.parley(t, "undo", "--turn", "1")
	const lead = "To undo the other files alone: "
	i := strings.LastIndex(u.stderr, lead)
	if u.code != 1 || i < 0 {
		t.Fatalf("parley undo: exit %d, stderr %q; want it to end on the command for the other files", u.code, u.stderr)
	}
	line, _, _ := strings.Cut(u.stderr[i+len(lead):], "\n")
	command := strings.Fields(line)
	want := []string{"parley", "undo", "--turn", "1", "a.txt", "doomed.txt", "made.txt", "own.txt"}
	if strings.Join(command, " ") != strings.Join(want, " ") {
		t.Fatalf("the command given: %q, want %q", command, want)
	}
	if r := w.parley(t, command[1:]...); r.code != 0 {
		t.Fatalf("%s: exit %d\n%s", strings.Join(command, " "), r.code, r.stderr)
	}
	if got := readOr(t, filepath.Join(w.dir, "cmd.txt"), ""); got != mine {
		t.Errorf("cmd.txt = %q: the hand edit was overwritten", got)
	}
	if got := readOr(t, filepath.Join(w.dir, "doomed.txt"), "(none)"); got != "doomed\n" {
		t.Errorf("doomed.txt = %q after undoing the other files", got)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt: %v; the undo of the other files deletes what the turn created", err)
	}
}
