package filelist

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func paths(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Path)
	}
	return out
}

func TestIndexIgnoresWhatGitIgnores(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"src/main.go", "src/util.go", "build/out.bin", "README.md", "node_modules/x/index.js"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n"), 0o644)
	idx, err := NewIndex(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(idx.Find("smain", 5)); len(got) == 0 || got[0] != "src/main.go" {
		t.Errorf("smain: %q", got)
	}
	for _, f := range idx.Files() {
		if strings.HasPrefix(f, "build/") || strings.HasPrefix(f, "node_modules/") {
			t.Errorf("%s is listed", f)
		}
	}
}

func TestIndexInAGitWorkTree(t *testing.T) {
	root := t.TempDir()
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	for _, f := range []string{"tracked.go", "ignored.log", "new.go"} {
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644)
	idx, err := NewIndex(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	got := idx.Files()
	if !slices.Contains(got, "tracked.go") || !slices.Contains(got, "new.go") || slices.Contains(got, "ignored.log") {
		t.Errorf("files: %q", got)
	}
}

func TestFindAcrossCase(t *testing.T) {
	idx := IndexOf([]string{"docs/README.md", "src/Main.go", "src/other.go"})
	if got := paths(idx.Find("smain", 5)); len(got) != 1 || got[0] != "src/Main.go" {
		t.Errorf("smain: %q", got)
	}
	if got := idx.Find("READ", 5); len(got) != 1 || len(got[0].Matched) != 4 {
		t.Errorf("READ: %+v", got)
	}
}

func fiftyThousand() []string {
	var files []string
	for i := range 50_000 {
		files = append(files, fmt.Sprintf("pkg%d/sub%d/file_%d_handler.go", i%97, i%13, i))
	}
	return files
}

// BenchmarkFind is `@` on 50,000 files: one fuzzy search per key typed.
func BenchmarkFind(b *testing.B) {
	idx := IndexOf(fiftyThousand())
	for b.Loop() {
		idx.Find("sub7hand42", 10)
	}
}

// BenchmarkFindCommonQuery is `@` on 50,000 files with a query every file matches (the
// first letters typed).
func BenchmarkFindCommonQuery(b *testing.B) {
	idx := IndexOf(fiftyThousand())
	for b.Loop() {
		idx.Find("handler", 10)
	}
}
