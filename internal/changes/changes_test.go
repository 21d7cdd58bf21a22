package changes

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
)

// fixture is a workspace, a database and a conversation's record in it.
type fixture struct {
	t     *testing.T
	dir   string
	roots *workspace.Roots
	st    *store.Store
	log   *Log
	rec   *Record
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	for name, content := range files {
		writeFile(t, filepath.Join(ws, name), content)
	}
	os.MkdirAll(ws, 0o755)
	f := &fixture{t: t, dir: ws}
	if f.roots, err = workspace.NewRoots(ws); err != nil {
		t.Fatal(err)
	}
	if f.st, err = store.Open(filepath.Join(dir, "parley.db")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.st.Close() })
	f.log = NewLog(f.st, Limits{})
	f.rec = f.conversation("scripted", "s-1")
	return f
}

func (f *fixture) conversation(agent, session string) *Record {
	f.t.Helper()
	rec, err := f.log.Conversation(f.t.Context(), f.roots, agent)
	if err != nil {
		f.t.Fatal(err)
	}
	rec.SetAgentSession(session, false)
	f.t.Cleanup(rec.Close)
	return rec
}

func (f *fixture) path(name string) string { return filepath.Join(f.dir, name) }

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(name string) (string, bool) {
	b, err := os.ReadFile(f.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b), true
}

func (f *fixture) begin(label string) {
	f.t.Helper()
	if err := f.rec.BeginTurn(f.t.Context(), label); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) end() Turn {
	f.t.Helper()
	turn, err := f.rec.EndTurn(f.t.Context())
	if err != nil {
		f.t.Fatal(err)
	}
	return turn
}

// write is a write the agent asks of parley (fs/write_text_file).
func (f *fixture) write(name, content string) {
	f.t.Helper()
	p := f.path(name)
	err := f.rec.Write(f.t.Context(), p, []byte(content), func() error { return f.roots.WriteFile(p, []byte(content)) })
	if err != nil {
		f.t.Fatal(err)
	}
}

// summary is a turn's changes as `parley changes` lists them.
func summary(t Turn) []string {
	var out []string
	for _, c := range t.Changes {
		s := string(c.Kind) + " " + c.Rel
		if c.Added+c.Removed > 0 {
			s += " +" + strconv.Itoa(c.Added) + " -" + strconv.Itoa(c.Removed)
		}
		if c.Written {
			s += " (written)"
		}
		out = append(out, s)
	}
	return out
}

func TestATurnRecordsWritesAndChangesOnDisk(t *testing.T) {
	f := newFixture(t, map[string]string{
		"written.txt": "one\ntwo\n",
		"edited.txt":  "a\nb\nc\n",
		"doomed.txt":  "x\ny\n",
		"same.txt":    "unchanged\n",
	})
	f.begin("do things")
	f.write("written.txt", "one\n2\nthree\n")                // through parley
	writeFile(t, f.path("edited.txt"), "a\nB\nc\nd\n")       // the agent's own tool
	writeFile(t, f.path("dir/created.txt"), "new\nfile\n")   // its own process
	os.Remove(f.path("doomed.txt"))                          // ditto
	writeFile(t, f.path("same.txt"), "changed, then back\n") // a change undone within the turn
	writeFile(t, f.path("same.txt"), "unchanged\n")
	turn := f.end()
	want := []string{"A dir/created.txt +2 -0", "D doomed.txt +0 -2", "M edited.txt +2 -1", "M written.txt +2 -1 (written)"}
	if diff := cmp.Diff(want, summary(turn)); diff != "" {
		t.Errorf("the turn's changes (-want +got):\n%s", diff)
	}
	if turn.Number != 1 || turn.Label != "do things" || turn.Ended.IsZero() {
		t.Errorf("turn %d %q ended %v", turn.Number, turn.Label, turn.Ended)
	}

	d, err := f.rec.Diff(t.Context(), DiffRequest{Path: f.path("edited.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "--- a/edited.txt\n+++ b/edited.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n"; d.Unified != want {
		t.Errorf("diff:\n%s\nwant:\n%s", d.Unified, want)
	}

	res, err := f.rec.Undo(t.Context(), UndoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"written.txt": "one\ntwo\n", "edited.txt": "a\nb\nc\n", "doomed.txt": "x\ny\n", "same.txt": "unchanged\n"} {
		if got, _ := f.read(name); got != want {
			t.Errorf("after the undo %s = %q, want %q", name, got, want)
		}
	}
	if _, ok := f.read("dir/created.txt"); ok {
		t.Error("the created file survived the undo")
	}
	if res.Record.Number != 2 || !res.Record.Undo || len(res.Files) != 4 {
		t.Errorf("the undo's record: %+v", res)
	}

	// The undo can be undone: the turn's changes come back.
	if _, err := f.rec.Undo(t.Context(), UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("written.txt"); got != "one\n2\nthree\n" {
		t.Errorf("after undoing the undo written.txt = %q", got)
	}
	if got, ok := f.read("dir/created.txt"); !ok || got != "new\nfile\n" {
		t.Errorf("after undoing the undo created.txt = %q (%v)", got, ok)
	}
	if _, ok := f.read("doomed.txt"); ok {
		t.Error("after undoing the undo doomed.txt is back")
	}
}

func TestUndoNeverOverwritesAChangeMadeAfterTheTurn(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	f.begin("edit both")
	f.write("a.txt", "A\n")
	writeFile(t, f.path("b.txt"), "B\n")
	f.end()
	writeFile(t, f.path("b.txt"), "B, and my own line\n") // a hand edit

	_, err := f.rec.Undo(t.Context(), UndoRequest{})
	ce, ok := errors.AsType[*ConflictError](err)
	if !ok || len(ce.Conflicts) != 1 || ce.Conflicts[0].Rel != "b.txt" || !ce.Conflicts[0].Since || ce.Partial != nil {
		t.Fatalf("undo: %v; want a conflict on b.txt alone", err)
	}
	if got, _ := f.read("a.txt"); got != "A\n" {
		t.Errorf("a.txt = %q: undoing a turn is all or nothing", got)
	}
	if got, _ := f.read("b.txt"); got != "B, and my own line\n" {
		t.Errorf("b.txt = %q: the hand edit was overwritten", got)
	}
	d, err := f.rec.Diff(t.Context(), DiffRequest{Path: f.path("b.txt"), Since: true})
	if err != nil {
		t.Fatal(err)
	}
	if !d.ChangedSince || !strings.Contains(d.Unified, "+B, and my own line") {
		t.Errorf("the difference since the turn: %+v", d)
	}
	// One file alone can still be undone.
	if _, err := f.rec.Undo(t.Context(), UndoRequest{Paths: []string{f.path("a.txt")}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q after undoing it alone", got)
	}
}

func TestRewindGoesBackThroughTurnsAndStopsAtAHandEditBetweenThem(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "0\n"})
	for _, v := range []string{"1\n", "2\n", "3\n"} {
		f.begin("set " + v)
		writeFile(t, f.path("a.txt"), v)
		f.end()
	}
	// Undoing turn 2 alone would lose turn 3's change: it says so.
	_, err := f.rec.Undo(t.Context(), UndoRequest{Turn: 2})
	if ce, ok := errors.AsType[*ConflictError](err); !ok || !strings.Contains(ce.Conflicts[0].Reason, "turn 3 changed it since") {
		t.Fatalf("undo of turn 2: %v", err)
	}
	res, err := f.rec.Undo(t.Context(), UndoRequest{Turn: 2, Rewind: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("a.txt"); got != "1\n" || !slices.Equal(res.Turns, []int{3, 2}) {
		t.Errorf("after rewinding to turn 2: a.txt = %q, turns undone %v", got, res.Turns)
	}

	// A hand edit between two turns stops a rewind through them.
	f2 := newFixture(t, map[string]string{"a.txt": "0\n"})
	f2.begin("one")
	writeFile(t, f2.path("a.txt"), "1\n")
	f2.end()
	writeFile(t, f2.path("a.txt"), "mine\n")
	f2.begin("two")
	writeFile(t, f2.path("a.txt"), "2\n")
	f2.end()
	_, err = f2.rec.Undo(t.Context(), UndoRequest{Turn: 1, Rewind: true})
	if ce, ok := errors.AsType[*ConflictError](err); !ok || !strings.Contains(ce.Conflicts[0].Reason, "between turn 1 and turn 2") {
		t.Fatalf("rewind through a hand edit: %v", err)
	}
	if got, _ := f2.read("a.txt"); got != "2\n" {
		t.Errorf("a.txt = %q after a refused rewind", got)
	}
}

func TestKeepDropsWhatTheTurnReplaced(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "old\n"})
	f.begin("edit")
	writeFile(t, f.path("a.txt"), "new\n")
	f.end()
	kept, err := f.rec.Keep(t.Context(), KeepRequest{})
	if err != nil || len(kept) != 1 || kept[0].Change.Rel != "a.txt" {
		t.Fatalf("keep: %v %+v", err, kept)
	}
	if _, err := f.rec.Undo(t.Context(), UndoRequest{}); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("undo after keep: %v", err)
	}
	if _, err := f.st.ChangeBlob(t.Context(), f.rec.t.ws, hashOf([]byte("old\n"))); !errors.Is(err, store.ErrNoBlob) {
		t.Errorf("what the kept change replaced is still kept: %v", err)
	}
	turns, _ := f.rec.Turns(t.Context())
	if len(turns) != 1 || turns[0].Changes[0].Status != Kept {
		t.Errorf("the list after keep: %+v", turns)
	}
}

func TestIgnoredFilesAreNotFollowed(t *testing.T) {
	for _, git := range []bool{false, true} {
		t.Run(map[bool]string{false: "walk", true: "git"}[git], func(t *testing.T) {
			f := newFixture(t, map[string]string{".gitignore": "build/\n*.log\n", "src.txt": "s\n", "build/out.txt": "o\n"})
			if git {
				gitInit(t, f.dir)
			}
			f.begin("build")
			writeFile(t, f.path("build/out.txt"), "o2\n")
			writeFile(t, f.path("run.log"), "log\n")
			writeFile(t, f.path("src.txt"), "s2\n")
			if got := summary(f.end()); !slices.Equal(got, []string{"M src.txt +1 -1"}) {
				t.Errorf("changes %q: ignored files were recorded", got)
			}
		})
	}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func TestBinaryAndLargeFilesAreRecordedNotKept(t *testing.T) {
	f := newFixture(t, map[string]string{"img.bin": "\x00\x01old", "text.txt": "t\n"})
	f.log.limits.MaxFileBytes = 64
	f.begin("binaries")
	writeFile(t, f.path("img.bin"), "\x00\x01new")
	writeFile(t, f.path("made.bin"), "\x00made")
	writeFile(t, f.path("big.txt"), strings.Repeat("x", 100))
	turn := f.end()
	byRel := map[string]Change{}
	for _, c := range turn.Changes {
		byRel[c.Rel] = c
	}
	if c := byRel["img.bin"]; c.Kind != Modified || !c.Before.Binary || c.Before.Kept || c.Undoable() {
		t.Errorf("img.bin: %+v", c)
	}
	if c := byRel["big.txt"]; c.Kind != Added || !c.After.Large {
		t.Errorf("big.txt: %+v", c)
	}
	// The modified binary cannot be restored: the turn is not undone at all.
	_, err := f.rec.Undo(t.Context(), UndoRequest{})
	if ce, ok := errors.AsType[*ConflictError](err); !ok || ce.Conflicts[0].Rel != "img.bin" || !strings.Contains(ce.Conflicts[0].Reason, "binary") {
		t.Fatalf("undo: %v", err)
	}
	// Created files, binary or large, can be undone: they are deleted.
	if _, err := f.rec.Undo(t.Context(), UndoRequest{Paths: []string{f.path("made.bin"), f.path("big.txt")}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"made.bin", "big.txt"} {
		if _, ok := f.read(name); ok {
			t.Errorf("%s survived its undo", name)
		}
	}
}

func TestTheRecordOutlivesTheProcess(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	f.begin("edit")
	f.write("a.txt", "A\n")
	f.end()
	f.rec.Close()

	// Another process: a new log on the same database, from a directory in the workspace.
	os.MkdirAll(f.path("sub"), 0o755)
	later := NewLog(f.st, Limits{})
	rec, err := later.Open(t.Context(), f.path("sub"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	turns, err := rec.Turns(t.Context())
	if err != nil || len(turns) != 1 || !slices.Equal(summary(turns[0]), []string{"M a.txt +1 -1 (written)"}) {
		t.Fatalf("turns %+v, %v", turns, err)
	}
	if _, err := rec.Undo(t.Context(), UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
	if _, err := later.Open(t.Context(), f.path("sub"), "no-such-session"); !errors.Is(err, store.ErrNoChangeSession) {
		t.Errorf("an unknown session: %v", err)
	}
	if _, err := later.Open(t.Context(), t.TempDir(), ""); !errors.Is(err, store.ErrNoChangeSession) {
		t.Errorf("a directory with no record: %v", err)
	}
}

func TestAFailedCheckpointWritesNothing(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	f.begin("edit")
	f.st.Close() // the database is gone
	wrote := false
	err := f.rec.Write(t.Context(), f.path("a.txt"), []byte("A\n"), func() error { wrote = true; return nil })
	if err == nil || wrote || !strings.Contains(err.Error(), "so it was not written") {
		t.Errorf("write: %v (written %v)", err, wrote)
	}
}

func TestPruneByAgeAndExpireBySize(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": strings.Repeat("a\n", 1000)})
	for i := range 3 {
		f.begin("turn")
		writeFile(t, f.path("a.txt"), strings.Repeat(string(rune('b'+i))+"\n", 1000))
		f.end()
	}
	// Over the budget: the oldest turns expire, never the newest.
	f.log.limits.MaxBytes = 4000
	expired, err := f.st.ExpireChanges(t.Context(), f.rec.t.ws, f.log.limits.MaxBytes)
	if err != nil || len(expired) == 0 {
		t.Fatalf("expired %v, %v", expired, err)
	}
	turns, _ := f.rec.Turns(t.Context())
	if last := turns[len(turns)-1]; last.Changes[0].Status != Pending {
		t.Errorf("the newest turn expired: %+v", last)
	}
	if turns[0].Changes[0].Status != Expired {
		t.Errorf("the oldest turn did not expire: %+v", turns[0])
	}
	// Past the age limit everything goes.
	if err := f.st.PruneChanges(context.Background(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if turns, _ := f.rec.Turns(t.Context()); len(turns) != 0 {
		t.Errorf("%d turns survived pruning", len(turns))
	}
}

func readFileOr(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return string(b)
}

func unixSymlink(target, link string) error { return os.Symlink(target, link) }
