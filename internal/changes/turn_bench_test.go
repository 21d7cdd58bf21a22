package changes

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
)

// BenchmarkQuietTurn is what the record adds to a turn that changes nothing, in a git work
// tree of 300 committed files: the snapshots that begin and end it (BeginTurn until the
// prompt may leave, EndTurn once it is answered), each reported apart, against `git
// ls-files` (what one listing by git costs) measured in the same run.
//
//	go test -run '^$' -bench BenchmarkQuietTurn -count 5 ./internal/changes/
func BenchmarkQuietTurn(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("no git here")
	}
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	for d := range 10 {
		for f := range 30 {
			writeFile(b, filepath.Join(ws, fmt.Sprintf("pkg%d/file%d.go", d, f)), fmt.Sprintf("package pkg%d\n\n// file %d\n", d, f))
		}
	}
	gitCommitAll(b, ws)
	time.Sleep(listingSettle + 100*time.Millisecond) // a workspace in use is older than a clock tick
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(filepath.Join(root, "parley.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rec, err := NewLog(st, Limits{}).Conversation(b.Context(), roots, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	rec.SetAgentSession("s", false)
	if err := rec.Prepare(b.Context()); err != nil {
		b.Fatal(err)
	}
	var begins, ends, lists time.Duration
	for b.Loop() {
		start := time.Now()
		if err := rec.BeginTurn(b.Context(), "quiet"); err != nil {
			b.Fatal(err)
		}
		begins += time.Since(start)
		start = time.Now()
		if _, err := rec.EndTurn(b.Context()); err != nil {
			b.Fatal(err)
		}
		ends += time.Since(start)
		b.StopTimer()
		start = time.Now()
		cmd := exec.Command("git", "ls-files", "-co", "--exclude-standard", "-z")
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git ls-files: %v\n%s", err, out)
		}
		lists += time.Since(start)
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(float64(begins)/n, "ns/begin")
	b.ReportMetric(float64(ends)/n, "ns/end")
	b.ReportMetric(float64(begins)/float64(lists), "begin/git-ls-files")
}
