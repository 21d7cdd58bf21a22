package changes

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
)

// The cost of a snapshot, on a workspace of 50,000 files (500 directories of 100 source
// files of about 1.3 KB, older than racyWindow as a workspace in use is): the first (this
// process's first look: every file read and hashed, or in a git work tree taken from
// git's index where it matches) and a later one with 10 files changed (every file's
// metadata compared, the 10 read). Each is reported
// with its ratio to baselines measured on the same tree just before each snapshot: a
// plain directory walk that lstats every file, and, in a git work tree, `git status`.
//
//	go test -run '^$' -bench BenchmarkSnapshot -benchtime 3x ./internal/changes/

const (
	benchDirs        = 500
	benchFilesPerDir = 100
	benchChanged     = 10
)

func BenchmarkSnapshot(b *testing.B) { benchSnapshot(b, false) }

func BenchmarkSnapshotGit(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("no git here")
	}
	benchSnapshot(b, true)
}

func benchSnapshot(b *testing.B, git bool) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	buildTree(b, ws)
	if git {
		gitCommitAll(b, ws)
	}
	// A workspace in use is older than a clock tick: a file changed within racyWindow of
	// a snapshot is read again by the next one, which would make the first "later"
	// snapshot read every file the tree was just built with.
	time.Sleep(racyWindow + 100*time.Millisecond)
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		b.Fatal(err)
	}
	// The baselines are measured just before each snapshot, with the timer stopped: on a
	// shared machine the load changes from one minute to the next, and a ratio is only
	// worth something between figures taken under the same load.
	var walks, statuses time.Duration
	baselines := func(b *testing.B) {
		b.Helper()
		start := time.Now()
		walkTree(b, ws)
		walks += time.Since(start)
		if git {
			start = time.Now()
			cmd := exec.Command("git", "status", "--porcelain")
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git status: %v\n%s", err, out)
			}
			statuses += time.Since(start)
		}
	}
	report := func(b *testing.B) {
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/snapshot")
		b.ReportMetric(float64(b.Elapsed())/float64(walks), "x-walk")
		if git {
			b.ReportMetric(float64(b.Elapsed())/float64(statuses), "x-git-status")
		}
	}

	b.Run("first", func(b *testing.B) {
		walks, statuses = 0, 0
		for b.Loop() {
			b.StopTimer()
			dbDir := b.TempDir()
			st, err := store.Open(filepath.Join(dbDir, "parley.db"))
			if err != nil {
				b.Fatal(err)
			}
			t := &tracker{log: NewLog(st, Limits{}), roots: roots, root: ws, walk: true, sem: make(chan struct{}, 1)}
			if t.ws, err = st.ChangeWorkspace(b.Context(), ws); err != nil {
				b.Fatal(err)
			}
			baselines(b)
			b.StartTimer()
			if err := t.snapshot(b.Context(), false); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if len(t.files) < benchDirs*benchFilesPerDir {
				b.Fatalf("the snapshot saw %d files", len(t.files))
			}
			st.Close()
			os.RemoveAll(dbDir)
			b.StartTimer()
		}
		report(b)
	})

	b.Run("later", func(b *testing.B) {
		walks, statuses = 0, 0
		st, err := store.Open(filepath.Join(b.TempDir(), "parley.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		t := &tracker{log: NewLog(st, Limits{}), roots: roots, root: ws, walk: true, sem: make(chan struct{}, 1)}
		if t.ws, err = st.ChangeWorkspace(b.Context(), ws); err != nil {
			b.Fatal(err)
		}
		if err := t.snapshot(b.Context(), false); err != nil {
			b.Fatal(err)
		}
		round := 0
		for b.Loop() {
			b.StopTimer()
			round++
			for i := range benchChanged {
				p := benchFile(ws, i*37%benchDirs, i)
				if err := os.WriteFile(p, []byte(fmt.Sprintf("changed in round %d\n", round)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			baselines(b)
			b.StartTimer()
			if err := t.snapshot(b.Context(), false); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})

	// A turn: the snapshot that begins it (which also takes what is ignored then) and
	// the one that ends it (which also looks for what the turn may have hidden), 10
	// files changed in between; s/snapshot is half a turn.
	b.Run("turn", func(b *testing.B) {
		walks, statuses = 0, 0
		st, err := store.Open(filepath.Join(b.TempDir(), "parley.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		rec, err := NewLog(st, Limits{}).Conversation(b.Context(), roots, "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer rec.Close()
		if err := rec.Prepare(b.Context()); err != nil {
			b.Fatal(err)
		}
		round := 0
		for b.Loop() {
			b.StopTimer()
			baselines(b)
			baselines(b)
			b.StartTimer()
			if err := rec.BeginTurn(b.Context(), "bench"); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			round++
			for i := range benchChanged {
				p := benchFile(ws, i*37%benchDirs, i)
				if err := os.WriteFile(p, []byte(fmt.Sprintf("changed in turn %d\n", round)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			turn, err := rec.EndTurn(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			if len(turn.Changes) != benchChanged {
				b.Fatalf("the turn changed %d files", len(turn.Changes))
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(2*b.N), "s/snapshot")
		b.ReportMetric(float64(b.Elapsed())/float64(walks), "x-walk")
		if git {
			b.ReportMetric(float64(b.Elapsed())/float64(statuses), "x-git-status")
		}
	})
}

// walkTree is the baseline: a plain walk that lstats every file.
func walkTree(b *testing.B, ws string) {
	n := 0
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d != nil && d.Type().IsRegular() {
			if _, err := os.Lstat(p); err == nil {
				n++
			}
		}
		return nil
	})
	if n < benchDirs*benchFilesPerDir {
		b.Fatalf("walked %d files", n)
	}
}

func benchFile(ws string, dir, file int) string {
	return filepath.Join(ws, fmt.Sprintf("pkg%02d", dir/50), fmt.Sprintf("sub%03d", dir), fmt.Sprintf("f%02d.go", file))
}

func buildTree(b *testing.B, ws string) {
	b.Helper()
	var line strings.Builder
	for d := range benchDirs {
		if err := os.MkdirAll(filepath.Dir(benchFile(ws, d, 0)), 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range benchFilesPerDir {
			line.Reset()
			for l := range 30 {
				fmt.Fprintf(&line, "line %d of file %d/%d, which is source code\n", l, d, f)
			}
			if err := os.WriteFile(benchFile(ws, d, f), []byte(line.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func gitCommitAll(b *testing.B, dir string) {
	b.Helper()
	// No automatic gc: a detached one would still be writing in .git when the temporary
	// directory is removed.
	for _, args := range [][]string{{"init", "-q"}, {"config", "gc.auto", "0"}, {"config", "maintenance.auto", "false"},
		{"add", "-A"}, {"-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "tree"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
