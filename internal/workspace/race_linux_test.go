package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSwapRaceNeverEscapes exchanges a directory of the workspace with a symlink to
// outside, atomically and in a tight loop, while reading, writing and starting commands
// under it. Every operation either stays inside or fails.
func TestSwapRaceNeverEscapes(t *testing.T) {
	const tries = 2000
	base := tree(t)
	r := mustRoots(t, base+"/a")
	dir, swap := base+"/a/d", base+"/a/d-swap"
	mustMkdir(t, dir)
	for _, f := range []string{dir + "/secret.txt", base + "/outside/secret.txt"} {
		content := "inside"
		if strings.HasPrefix(f, base+"/outside") {
			content = "SECRET"
		}
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(base+"/outside", swap); err != nil {
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
	var readEscapes, readsInside, cwdEscapes, cwdsInside int
	for i := range tries {
		if got, err := r.ReadFile(dir+"/secret.txt", 100); err == nil {
			if string(got) == "SECRET" {
				readEscapes++
			} else {
				readsInside++
			}
		}
		r.WriteFile(filepath.Join(dir, "planted-"+strings.Repeat("x", i%3)+string(rune('a'+i%26))), []byte("x"))
		if i%10 == 0 {
			if d, err := r.Cwd(dir); err == nil {
				cmd := exec.Command("cat", "secret.txt")
				cmd.Dir = d.ChdirPath()
				out, _ := cmd.Output()
				d.Close()
				switch string(out) {
				case "SECRET":
					cwdEscapes++
				case "inside":
					cwdsInside++
				}
			}
		}
	}
	close(stop)
	swapper.Wait()
	planted, _ := filepath.Glob(base + "/outside/planted-*")
	t.Logf("escapes: reads %d of %d (%d inside), writes %d of %d, commands %d of %d (%d inside)",
		readEscapes, tries, readsInside, len(planted), tries, cwdEscapes, tries/10, cwdsInside)
	if readEscapes+len(planted)+cwdEscapes > 0 {
		t.Errorf("the swap led outside: %d reads, %d writes, %d commands", readEscapes, len(planted), cwdEscapes)
	}
}
