package conversation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
)

// TestATurnsChangesAreRecordedAndUndone: what changes in the workspace while a turn runs
// is the turn's: its TurnChanges follows its TurnEnded; an undo through the conversation
// restores it, and every view hears of it.
func TestATurnsChangesAreRecordedAndUndone(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	path := filepath.Join(ws, "a.txt")
	os.WriteFile(path, []byte("before\n"), 0o644)
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rec, err := changes.NewLog(st, changes.Limits{}).Conversation(t.Context(), roots, "eliza")
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Agent: testAgent(t), Roots: roots, Policy: &permission.Policy{}, Interactive: true, Changes: rec})
	t.Cleanup(c.Close)
	if !c.Recorded() {
		t.Fatal("Recorded is false with a record")
	}
	v, other := watch(t, c), watch(t, c)
	v.until(isA[Ready])

	// The turn waits on a question: the change made meanwhile happens during the turn.
	p := c.Send([]acp.ContentBlock{acp.TextBlock("request permission deploy")})
	asked := v.until(isA[QuestionAsked])
	os.WriteFile(path, []byte("after\n"), 0o644)
	c.Answer(asked[len(asked)-1].(QuestionAsked).ID, permission.AllowOnce)
	evs := v.until(isA[TurnChanges])
	tc := evs[len(evs)-1].(TurnChanges)
	if !isA[TurnEnded](evs[len(evs)-2]) || tc.Turn != p.ID || tc.Err != nil {
		t.Fatalf("TurnChanges %+v does not follow its TurnEnded:\n%s", tc, describe(evs))
	}
	if len(tc.Record.Changes) != 1 || tc.Record.Changes[0].Rel != "a.txt" || tc.Record.Changes[0].Kind != changes.Modified {
		t.Fatalf("the turn's changes: %+v", tc.Record)
	}
	turns, err := c.Changes(t.Context())
	if err != nil || len(turns) != 1 {
		t.Fatalf("Changes: %+v, %v", turns, err)
	}
	d, err := c.Diff(t.Context(), changes.DiffRequest{Path: path})
	if err != nil || d.Old == nil || *d.Old != "before\n" || d.New == nil || *d.New != "after\n" {
		t.Fatalf("Diff: %+v, %v", d, err)
	}

	res, err := c.Undo(t.Context(), changes.UndoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "before\n" {
		t.Errorf("a.txt = %q after the undo", b)
	}
	undone := other.until(isA[ChangesUndone])
	if got := undone[len(undone)-1].(ChangesUndone); got.Result.Record.Number != res.Record.Number {
		t.Errorf("the other view heard of undo %d, not %d", got.Result.Record.Number, res.Record.Number)
	}
	if kept, err := c.Keep(t.Context(), changes.KeepRequest{}); err != nil || len(kept) != 1 {
		t.Errorf("Keep: %+v, %v", kept, err)
	}
	other.until(isA[ChangesKept])
}
