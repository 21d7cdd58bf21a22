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

// TestRunSymlinkSwapRaceNeverEscapes is the attack of the swapped directory: while the
// agent reads, writes and starts terminals under ws/d, ws/d is exchanged, atomically and in
// a tight loop, with a symlink to a directory outside the workspace. A check that resolves
// the path and then opens it by name is beaten whenever the swap falls between the two.
func TestRunSymlinkSwapRaceNeverEscapes(t *testing.T) {
	// Not parallel: its swapper spins a core for the whole run: beside other tests it would slow them and race less.
	const reads, writes, terminals = 3000, 1000, 300
	w := newWorkspace(t)
	dir, swap := filepath.Join(w.dir, "d"), filepath.Join(w.dir, "d-swap")
	mustWrite(t, filepath.Join(dir, "secret.txt"), "inside")
	mustWrite(t, filepath.Join(dir, "marker"), "inside")
	mustWrite(t, filepath.Join(w.outside, "marker"), "OUTSIDE")
	if err := os.Symlink(w.outside, swap); err != nil {
		t.Fatal(err)
	}

	var script strings.Builder
	for range reads {
		fmt.Fprintf(&script, "read %s/secret.txt\n", dir)
	}
	for i := range writes {
		fmt.Fprintf(&script, "write %s/planted-%d.txt x\n", dir, i)
	}
	for range terminals {
		fmt.Fprintf(&script, "runin %s cat marker\n", dir)
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
	r := w.run(t, script.String())
	close(stop)
	swapper.Wait()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}

	var readEscapes, readsInside, termEscapes, termsInside int
	for _, line := range strings.Split(r.stdout, "\n") {
		switch {
		case line == "read: SECRET":
			readEscapes++
		case line == "read: inside":
			readsInside++
		case strings.HasPrefix(line, "exit ") && strings.Contains(line, "OUTSIDE"):
			termEscapes++
		case strings.HasPrefix(line, "exit 0 ") && strings.Contains(line, `output="inside"`):
			termsInside++
		}
	}
	planted, _ := filepath.Glob(filepath.Join(w.outside, "planted-*"))
	t.Logf("escapes: reads %d of %d (%d read inside), writes %d of %d, terminals %d of %d (%d ran inside)",
		readEscapes, reads, readsInside, len(planted), writes, termEscapes, terminals, termsInside)
	if readEscapes+len(planted)+termEscapes > 0 {
		t.Errorf("the swap led outside the workspace: %d reads, %d writes, %d terminals", readEscapes, len(planted), termEscapes)
	}
	if readsInside == 0 || termsInside == 0 {
		t.Errorf("no read or terminal got through at all (%d, %d): the attack did not test anything", readsInside, termsInside)
	}
}
