//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUndoSymlinkSwapRaceNeverEscapes is the attack of the swapped directory on undo:
// the turn changed a file and created one under ws/d; while parley undo restores the
// one and deletes the other (and undoes its undos, again and again), ws/d is exchanged,
// atomically and in a tight loop, with a symlink to a directory outside the workspace
// holding files of the same names. An undo that resolved the path and then wrote or
// deleted by name would, now and then, overwrite or delete those instead. (Two files:
// an undo checks every file before it writes any, and a check that sees the swap
// refuses the whole undo; with more files, hardly any undo would get to write.)
func TestUndoSymlinkSwapRaceNeverEscapes(t *testing.T) {
	// Not parallel: its swapper spins a core for the whole run: beside other tests it would slow them and race less.
	// At least undos undos, and more (up to maxUndos) until one got through: most are
	// refused (the swap is seen), and under load all of the first 60 could be.
	const files, undos, maxUndos = 1, 60, 600
	w := newWorkspace(t)
	dir, swap := filepath.Join(w.dir, "d"), filepath.Join(w.dir, "d-swap")
	var script strings.Builder
	for i := range files {
		mustWrite(t, filepath.Join(dir, fmt.Sprintf("m%d.txt", i)), "inside before the turn\n")
		mustWrite(t, filepath.Join(w.outside, fmt.Sprintf("m%d.txt", i)), "OUTSIDE\n")
		mustWrite(t, filepath.Join(w.outside, fmt.Sprintf("n%d.txt", i)), "OUTSIDE\n")
		fmt.Fprintf(&script, "write %s/m%d.txt changed by the turn\n", dir, i)
		fmt.Fprintf(&script, "write %s/n%d.txt created by the turn\n", dir, i)
	}
	if r := w.run(t, script.String()); r.code != 0 || strings.Contains(r.stdout, "error") {
		t.Fatalf("the turn: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if err := os.Symlink(w.outside, swap); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var swapper sync.WaitGroup
	swapper.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swapping: %v", err)
				return
			}
		}
	})
	var wrote, refused int
	for n := 0; n < undos || wrote == 0 && n < maxUndos; n++ {
		r := w.parley(t, "undo")
		switch {
		case r.code == 0 || strings.Contains(r.stderr, "The undo stopped"):
			wrote++
		case r.code == 1:
			refused++
		default:
			t.Errorf("parley undo: exit %d\n%s", r.code, r.stderr)
		}
	}
	close(stop)
	swapper.Wait()

	var escapes []string
	for i := range files {
		for _, name := range []string{fmt.Sprintf("m%d.txt", i), fmt.Sprintf("n%d.txt", i)} {
			if got := readOr(t, filepath.Join(w.outside, name), "(deleted)"); got != "OUTSIDE\n" {
				escapes = append(escapes, name+" = "+strings.TrimSpace(got))
			}
		}
	}
	stray, _ := filepath.Glob(filepath.Join(w.outside, ".*parley*"))
	t.Logf("%d undos wrote inside (fully or in part), %d were refused; outside: %d files touched, %d temporary files left", wrote, refused, len(escapes), len(stray))
	if len(escapes)+len(stray) > 0 {
		t.Errorf("the swap led an undo outside the workspace: %v %v", escapes, stray)
	}
	if wrote == 0 {
		t.Errorf("no undo got through at all (%d refused): the attack did not test anything", refused)
	}
}
