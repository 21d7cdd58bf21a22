package changesrpc

import (
	"io/fs"
	"testing"

	"github.com/parley-acp/parley/internal/changes"
)

// Turn carries what the record says a text diff cannot show: a mode the turn
// changed (also when the content stayed) and a change that makes git run code; a mode not
// known on a side (an older record) is no change.
func TestChangedTurnCarriesModeAndRunsCode(t *testing.T) {
	kept := func(mode uint32) changes.Version {
		return changes.Version{Exists: true, Kept: true, Mode: fs.FileMode(mode)}
	}
	turn := changes.Turn{Number: 3, Label: "chmod", Changes: []changes.Change{
		{Path: "/w/run.sh", Rel: "run.sh", Kind: changes.Modified, Before: kept(0o644), After: kept(0o755), Status: changes.Pending},
		{Path: "/w/.git/hooks/pre-commit", Rel: ".git/hooks/pre-commit", Kind: changes.Added, Added: 2, After: kept(0o755), Status: changes.Pending, RunsCode: "a git hook: git runs it"},
		{Path: "/w/old.sh", Rel: "old.sh", Kind: changes.Modified, Added: 1, Removed: 1, Before: kept(0), After: kept(0o755), Status: changes.Pending},
	}}
	got := Turn(turn).Files
	want := []struct{ mode, runsCode string }{{"644 → 755", ""}, {"", "a git hook: git runs it"}, {"", ""}}
	if len(got) != len(want) {
		t.Fatalf("files %+v, want %d", got, len(want))
	}
	for i, w := range want {
		if got[i].Mode != w.mode || got[i].RunsCode != w.runsCode {
			t.Errorf("%s: mode %q runsCode %q, want %q %q", got[i].Rel, got[i].Mode, got[i].RunsCode, w.mode, w.runsCode)
		}
	}
}
