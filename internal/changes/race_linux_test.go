//go:build linux

package changes

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUndoThroughASwappedDirectoryStaysInside: since the turn, the directory of the
// files it changed was swapped for a symlink to a directory outside, holding files of the
// same names with exactly what the turn left (so a check by name would find them
// unchanged). The undo refuses, and nothing outside is written or deleted. (The race of
// a swap during the undo, cmd/parley's TestUndoSymlinkSwapRaceNeverEscapes, ends the same
// way: every read and write of an undo goes through an os.Root at the workspace root.)
func TestUndoThroughASwappedDirectoryStaysInside(t *testing.T) {
	f := newFixture(t, map[string]string{"d/m.txt": "before the turn\n"})
	f.begin("edit d")
	f.write("d/m.txt", "left by the turn\n")
	f.write("d/n.txt", "created by the turn\n")
	f.end()
	outside := filepath.Join(filepath.Dir(f.dir), "outside")
	writeFile(t, filepath.Join(outside, "m.txt"), "left by the turn\n")
	writeFile(t, filepath.Join(outside, "n.txt"), "created by the turn\n")
	if err := os.Rename(f.path("d"), f.path("d-moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, f.path("d")); err != nil {
		t.Fatal(err)
	}
	_, err := f.rec.Undo(t.Context(), UndoRequest{})
	if err == nil {
		t.Error("the undo went through a directory swapped for a symlink to outside")
	}
	if got := readFileOr(filepath.Join(outside, "m.txt")); got != "left by the turn\n" {
		t.Errorf("outside m.txt = %q", got)
	}
	if got := readFileOr(filepath.Join(outside, "n.txt")); got != "created by the turn\n" {
		t.Errorf("outside n.txt = %q", got)
	}
}
