package changes

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// vouchedFixture is a committed git work tree, older than racyWindow, whose first
// snapshot takes its files from git's index.
func vouchedFixture(t *testing.T, files map[string]string, setup ...func(dir string)) *fixture {
	t.Helper()
	isolateGit(t)
	old := indexMinFiles
	indexMinFiles = 1
	t.Cleanup(func() { indexMinFiles = old })
	f := newFixture(t, files)
	for _, s := range setup {
		s(f.dir)
	}
	gitInit(t, f.dir)
	time.Sleep(racyWindow + 100*time.Millisecond) // a workspace in use is older than a clock tick
	if err := f.rec.Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	return f
}

// vouched lists the files whose entries git vouched for.
func (f *fixture) vouched() []string {
	var out []string
	for p, e := range f.rec.t.files {
		if e.blob != "" {
			rel, _ := filepath.Rel(f.dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
	}
	slices.Sort(out)
	return out
}

func TestFilesGitVouchesForAreUndoneExactly(t *testing.T) {
	f := vouchedFixture(t, map[string]string{
		"edited.txt":  "a\nb\nc\n",
		"doomed.txt":  "x\ny\n",
		"moved.txt":   "m\n",
		"run.sh":      "#!/bin/sh\n",
		"written.txt": "one\n",
		"touched.txt": "t\n",
		"twice.txt":   "1\n",
		"sub/deep.go": "package sub\n",
	}, func(dir string) { os.Chmod(filepath.Join(dir, "run.sh"), 0o755) })
	want := []string{"doomed.txt", "edited.txt", "moved.txt", "run.sh", "sub/deep.go", "touched.txt", "twice.txt", "written.txt"}
	if diff := cmp.Diff(want, f.vouched()); diff != "" {
		t.Fatalf("the files git vouched for (-want +got):\n%s", diff)
	}
	rows, err := f.st.ChangeFiles(t.Context(), f.rec.t.ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !strings.Contains(r.Path, string(filepath.Separator)+".git"+string(filepath.Separator)) {
			t.Errorf("%s is in the database: git vouched for it", r.Path)
		}
	}

	f.begin("do things")
	writeFile(t, f.path("edited.txt"), "a\nB\nc\n")
	os.Remove(f.path("doomed.txt"))
	os.Rename(f.path("moved.txt"), f.path("moved2.txt"))
	os.Chmod(f.path("run.sh"), 0o644)
	now := time.Now()
	os.Chtimes(f.path("touched.txt"), now, now) // times, not content: no change
	f.write("written.txt", "two\n")
	writeFile(t, f.path("twice.txt"), "2\n") // on disk, then through parley
	f.write("twice.txt", "3\n")
	writeFile(t, f.path("sub/deep.go"), "package deep\n")
	turn := f.end()
	wantSummary := []string{"D doomed.txt +0 -2", "M edited.txt +1 -1", "D moved.txt +0 -1", "A moved2.txt +1 -0",
		"M run.sh", "M sub/deep.go +1 -1", "M twice.txt +1 -1 (written)", "M written.txt +1 -1 (written)"}
	if diff := cmp.Diff(wantSummary, summary(turn)); diff != "" {
		t.Errorf("the turn's changes (-want +got):\n%s", diff)
	}
	for _, c := range turn.Changes {
		if c.Before.Exists && !c.Before.Kept {
			t.Errorf("%s: what it was is not kept (%s)", c.Rel, c.Before.NotKept())
		}
	}
	d, err := f.rec.Diff(t.Context(), DiffRequest{Path: f.path("edited.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "--- a/edited.txt\n+++ b/edited.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"; d.Unified != want {
		t.Errorf("diff:\n%s\nwant:\n%s", d.Unified, want)
	}

	if _, err := f.rec.Undo(t.Context(), UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"edited.txt": "a\nb\nc\n", "doomed.txt": "x\ny\n", "moved.txt": "m\n",
		"run.sh": "#!/bin/sh\n", "written.txt": "one\n", "twice.txt": "1\n", "sub/deep.go": "package sub\n"} {
		if got, _ := f.read(name); got != want {
			t.Errorf("after the undo %s = %q, want %q", name, got, want)
		}
	}
	if _, ok := f.read("moved2.txt"); ok {
		t.Error("the renamed file's new name survived the undo")
	}
	if info, err := os.Stat(f.path("run.sh")); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("run.sh after the undo: %v, %v; want mode 0755", info.Mode(), err)
	}
}

func TestGitVouchesAcrossProcesses(t *testing.T) {
	f := vouchedFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	// Another process: nothing of what git vouched for was written to the database.
	f.log = NewLog(f.st, Limits{})
	f.rec = f.conversation("scripted", "s-2")
	f.begin("edit")
	editAndUndo(t, f)
}

func TestBinaryAndLargeFilesGitVouchesForAreRecordedNotKept(t *testing.T) {
	f := vouchedFixture(t, map[string]string{"img.bin": "\x00\x01old", "big.txt": strings.Repeat("x", 100)})
	f.log = NewLog(f.st, Limits{MaxFileBytes: 64}) // big.txt is not read, nor taken from git
	f.rec = f.conversation("scripted", "s-2")
	f.begin("binary")
	writeFile(t, f.path("img.bin"), "\x00\x01new")
	writeFile(t, f.path("big.txt"), strings.Repeat("y", 100))
	turn := f.end()
	if len(turn.Changes) != 2 {
		t.Fatalf("changes: %q", summary(turn))
	}
	for _, c := range turn.Changes {
		if c.Before.Kept || c.Rel == "img.bin" && !c.Before.Binary {
			t.Errorf("%s before: %+v; want binary (or large), not kept", c.Rel, c.Before)
		}
	}
}

func TestAnObjectGitLostIsNotKept(t *testing.T) {
	f := vouchedFixture(t, map[string]string{"a.txt": "a\n"})
	f.rec.t.files[f.path("a.txt")].blob = strings.Repeat("0", 40) // pruned meanwhile
	f.begin("edit")
	writeFile(t, f.path("a.txt"), "A\n")
	turn := f.end()
	if len(turn.Changes) != 1 || turn.Changes[0].Before.Kept || turn.Changes[0].Undoable() {
		t.Errorf("changes: %+v; want one, not undoable", turn.Changes)
	}
}

func TestGitConvertingContentIsNotTrusted(t *testing.T) {
	for name, setup := range map[string]func(dir string){
		"text=auto": func(dir string) { writeFile(t, filepath.Join(dir, ".gitattributes"), "* text=auto\n") },
		"a filter below": func(dir string) {
			writeFile(t, filepath.Join(dir, "sub/.gitattributes"), "*.txt filter=lfs\n")
		},
		"autocrlf": func(dir string) {
			gitIn(t, dir, "init", "-q")
			gitIn(t, dir, "config", "core.autocrlf", "input")
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := vouchedFixture(t, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"}, setup)
			got := f.vouched()
			switch name {
			case "a filter below":
				if !slices.Equal(got, []string{"a.txt"}) {
					t.Errorf("vouched for %q; want only what is above sub", got)
				}
			default:
				if len(got) != 0 {
					t.Errorf("vouched for %q; want nothing", got)
				}
			}
		})
	}
}

func TestReadIndexVersions(t *testing.T) {
	isolateGit(t)
	f := newFixture(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n", "dir/sub/c.txt": "c\n", "dir/sub/d.txt": "d\n"})
	gitInit(t, f.dir)
	index := filepath.Join(f.dir, ".git", "index")
	v2, _, err := readIndex(index, "")
	if err != nil || len(v2) != 4 {
		t.Fatalf("version 2: %d entries, %v", len(v2), err)
	}
	for _, v := range []string{"3", "4"} {
		gitIn(t, f.dir, "update-index", "--index-version", v)
		got, _, err := readIndex(index, "")
		if err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		if diff := cmp.Diff(v2, got, cmp.AllowUnexported(indexEntry{})); diff != "" {
			t.Errorf("version %s (-v2 +got):\n%s", v, diff)
		}
	}
	gitIn(t, f.dir, "update-index", "--skip-worktree", "dir/b.txt")
	got, _, err := readIndex(index, "dir/")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["dir/b.txt"]; ok || len(got) != 2 {
		t.Errorf("under dir/ with b skip-worktree: %v", got)
	}
}

// A workspace recorded before git vouched for files (every file a row, its content kept)
// goes on: its rows are compared as they were, and what they kept is what an undo restores.
func TestARecordMadeBeforeGitVouchedGoesOn(t *testing.T) {
	isolateGit(t)
	old := indexMinFiles
	indexMinFiles = 1 << 30 // as parley did before
	t.Cleanup(func() { indexMinFiles = old })
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	gitInit(t, f.dir)
	time.Sleep(racyWindow + 100*time.Millisecond)
	if err := f.rec.Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := f.vouched(); len(got) != 0 {
		t.Fatalf("vouched for %q", got)
	}
	indexMinFiles = 1
	f.log = NewLog(f.st, Limits{})
	f.rec = f.conversation("scripted", "s-2")
	f.begin("edit")
	if got := f.vouched(); len(got) != 0 {
		t.Errorf("vouched for %q: the rows as they were should serve", got)
	}
	editAndUndo(t, f)
}

func TestReadIndexRefusesWhatItCannotRead(t *testing.T) {
	isolateGit(t)
	f := newFixture(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})
	gitInit(t, f.dir)
	index := filepath.Join(f.dir, ".git", "index")
	for _, v := range []string{"2", "4"} {
		gitIn(t, f.dir, "update-index", "--index-version", v)
		data, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		cut := filepath.Join(t.TempDir(), "index")
		for n := range len(data) - 20 {
			os.WriteFile(cut, data[:n], 0o644)
			readIndex(cut, "") // an error, never a panic
		}
	}
}

// editAndUndo ends f's turn with a.txt ("a\n") edited, and undoes it: the change listed,
// the content back.
func editAndUndo(t *testing.T, f *fixture) {
	t.Helper()
	writeFile(t, f.path("a.txt"), "A\n")
	if got := summary(f.end()); !slices.Equal(got, []string{"M a.txt +1 -1"}) {
		t.Errorf("changes %q", got)
	}
	if _, err := f.rec.Undo(t.Context(), UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q after the undo", got)
	}
}
