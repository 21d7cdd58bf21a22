package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/testbin"
)

// TestVersionStamped: a release build stamps its version at link time, as .goreleaser.yaml
// and the VS Code extension's packaging (editors/vscode/scripts/package.js) do, and
// `parley --version` prints it rather than "devel". The extension compares this output
// with its own version.
func TestVersionStamped(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds parley")
	}
	testbin.NoteSources()
	bin := filepath.Join(t.TempDir(), "parley")
	args := []string{"build", "-o", bin, "-ldflags", "-X github.com/parley-acp/parley/internal/version.release=v9.8.7-rc.1"}
	if testbin.Race() {
		// Built as the test itself was, so that only the link is new: without -race, a run
		// under -race (scripts/test) compiled every package of parley a second time.
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "github.com/parley-acp/parley/cmd/parley")...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("parley --version: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != "parley version v9.8.7-rc.1" {
		t.Errorf("parley --version = %q, want %q", got, "parley version v9.8.7-rc.1")
	}
}
