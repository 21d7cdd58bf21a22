package main

// Issue 26, class 7: writes through options of programs on the harmless list. Each
// command below writes the file it names through an option (a log, a report), which
// the judge used to rate None, so parley agent ran it without a question. Each is now
// judged like a redirection to that file: asked about, and, refused, writes nothing;
// allowed, it writes the file (so the test would see a write that slipped through).

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parley-acp/parley/acp"
)

func TestAgentAsksBeforeWritesThroughOptions(t *testing.T) {
	t.Parallel()
	needs(t, "pip", "npm", "git", "sort")
	writes := map[string]string{ // command: the file it writes when it runs
		"pip list --log=.github/workflows/pip.yml":              ".github/workflows/pip.yml",
		"npm ls --logs-dir=.github/workflows/npm":               ".github/workflows/npm",
		"git reflog --output=.github/workflows/reflog.yml":      ".github/workflows/reflog.yml",
		"git stash list --output=.github/workflows/stash.yml":   ".github/workflows/stash.yml",
		"git stash show -p --output=.github/workflows/show.yml": ".github/workflows/show.yml",
		"git diff --output=.github/workflows/diff.yml HEAD":     ".github/workflows/diff.yml",
		"sort -o .github/workflows/sort.yml a.txt":              ".github/workflows/sort.yml",
	}
	var commands []string
	for c := range writes {
		commands = append(commands, c)
	}
	slices.Sort(commands)
	harmless := []string{"pip list", "git reflog", "git stash list", "sort a.txt"}

	for _, allow := range []bool{false, true} {
		w := newWorkspace(t)
		git := func(args ...string) {
			t.Helper()
			cmd := exec.Command("git", append([]string{"-C", w.dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		git("init", "-q")
		git("add", "a.txt")
		git("commit", "-qm", "first")
		os.WriteFile(filepath.Join(w.dir, "a.txt"), []byte("changed"), 0o644)
		git("stash", "-q")
		os.MkdirAll(filepath.Join(w.dir, ".github", "workflows"), 0o755) // git does not make it
		var answer func(*acp.RequestPermissionRequest) string
		if allow {
			answer = func(*acp.RequestPermissionRequest) string { return "allow_once" }
		}
		asked := askedAbout(agentRuns(t, w, append(slices.Clone(commands), harmless...), answer))
		for _, c := range commands {
			if !slices.Contains(asked, c) {
				t.Errorf("%q ran without a question", c)
			}
			_, err := os.Stat(filepath.Join(w.dir, writes[c]))
			switch {
			case !allow && err == nil:
				t.Errorf("%q was refused, but %s exists", c, writes[c])
			case allow && err != nil:
				t.Errorf("%q was allowed, but did not write %s: %v", c, writes[c], err)
			}
		}
		for _, c := range harmless {
			if slices.Contains(asked, c) {
				t.Errorf("the harmless %q was asked about", c)
			}
		}
	}
}
