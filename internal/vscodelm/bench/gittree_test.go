package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/vscodelm/vscodetest"
)

// startBridgeInGit is startBridge with its workspace a git work tree of a few hundred
// committed files, as most workspaces are: the record of changes lists it with git.
func startBridgeInGit(b *testing.B) *bridge {
	b.Helper()
	requireBinary(b)
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("no git here")
	}
	dir := b.TempDir()
	for d := range 10 {
		for f := range 30 {
			name := filepath.Join(dir, fmt.Sprintf("pkg%d", d), fmt.Sprintf("file%d.go", f))
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(name, fmt.Appendf(nil, "package pkg%d\n\n// file %d\n", d, f), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\nbuild/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "tree"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// A listing is reused only once what it depends on is older than a file system's
	// clock tick can hide (internal/changes, reuse.go); a workspace is older than that
	// in use, so the tree is aged before it is measured (once per sub-benchmark run).
	time.Sleep(1100 * time.Millisecond)
	return &bridge{vscodetest.Start(b, vscodetest.Options{Binary: parleyBin, Dir: dir, Quiet: true, HangGuard: waitLimit})}
}
