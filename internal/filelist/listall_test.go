package filelist

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/workspace"
)

func listAll(t *testing.T, dir string, opts Options) Listing {
	t.Helper()
	roots, err := workspace.NewRoots(dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := roots.OpenTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	l, err := ListAll(t.Context(), roots, dir, tree, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func rels(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Rel)
	}
	slices.Sort(out)
	return out
}

// TestListAllKeepsTheRulesOfItsTime: ListAll says what is ignored and which directories
// are repositories of their own, and the rules it kept judge files as they did then,
// whatever the ignore files say later; in a git work tree (with info/exclude and the
// global excludes file) and in a plain directory.
func TestListAllKeepsTheRulesOfItsTime(t *testing.T) {
	for _, git := range []bool{false, true} {
		t.Run(map[bool]string{false: "walk", true: "git"}[git], func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			files := map[string]string{".gitignore": "*.log\nbuild/\n", "a.txt": "a", "x.log": "x", "build/o": "o", "sub/.gitignore": "*.tmp\n", "sub/s.tmp": "s"}
			for name, content := range files {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
				os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
			}
			wantRepos := []string(nil)
			if git {
				if _, err := exec.LookPath("git"); err != nil {
					t.Skip("no git here")
				}
				for _, args := range [][]string{{"init", "-q", dir}, {"init", "-q", filepath.Join(dir, "nested")}} {
					if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
						t.Fatalf("git %v: %v\n%s", args, err, out)
					}
				}
				os.WriteFile(filepath.Join(dir, "nested", "n.txt"), []byte("n"), 0o644)
				os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("*.excluded\n"), 0o644)
				os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755)
				os.WriteFile(filepath.Join(home, ".config", "git", "ignore"), []byte("*.global\n"), 0o644)
				wantRepos = []string{"nested"}
			}
			l := listAll(t, dir, Options{Ignored: true, Rules: true})
			if diff := cmp.Diff([]string{".gitignore", "a.txt", "sub/.gitignore"}, rels(l.Files)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			slices.Sort(l.Ignored)
			if diff := cmp.Diff([]string{"build/", "sub/s.tmp", "x.log"}, l.Ignored); diff != "" {
				t.Errorf("ignored (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantRepos, l.Repos); diff != "" {
				t.Errorf("repositories (-want +got):\n%s", diff)
			}
			// The rules change on disk; those kept do not.
			os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.sh\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "sub", ".gitignore"), []byte("*\n"), 0o644)
			want := map[string]bool{"new.log": true, "new.sh": false, "sub/new.tmp": true, "sub/new.txt": false, "new.tmp": false, "build/x": true}
			if git {
				want["a.excluded"], want["a.global"] = true, true
			}
			for rel, ignored := range want {
				if got := l.Rules.Ignored(rel, false); got != ignored {
					t.Errorf("%s: ignored %v, want %v", rel, got, ignored)
				}
			}
			if !l.Rules.Ignored("build", true) {
				t.Error("build/ is not ignored")
			}
		})
	}
}
