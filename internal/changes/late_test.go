package changes

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func (f *fixture) lateStarts() int {
	f.rec.t.lock(f.t.Context())
	defer f.rec.t.unlock()
	return f.rec.t.late
}

// quietTurn runs a turn that changes nothing, so that the next start has a kept listing.
func (f *fixture) quietTurn() {
	f.t.Helper()
	f.begin("quiet")
	if got := f.end(); len(got.Changes) != 0 {
		f.t.Fatalf("a quiet turn changed %v", summary(got))
	}
}

// TestALateStartMissesNothing: a start taken while the prompt is on its way (late.go)
// gives the turn what the agent does right away, before the start is complete or after:
// a file changed in place, a file deleted, a file created; each from what it was before.
// Run it with -race and a high -count: both orders happen.
func TestALateStartMissesNothing(t *testing.T) {
	inWalkAndGit(t, func(t *testing.T, f *fixture) {
		f.quietTurn()
		f.begin("at once")
		writeFile(t, f.path("dir/b.txt"), "b\nchanged at once\n")
		if err := os.Remove(f.path("a.txt")); err != nil {
			t.Fatal(err)
		}
		writeFile(t, f.path("dir/new.txt"), "new\n")
		got := f.end()
		if diff := cmp.Diff([]string{"D a.txt +0 -1", "M dir/b.txt +1 -0", "A dir/new.txt +1 -0"}, summary(got)); diff != "" {
			t.Errorf("the turn (-want +got):\n%s", diff)
		}
		if n := f.lateStarts(); n != 2 {
			t.Errorf("%d starts were taken late, want 2 (both turns': the first reuses what Prepare listed)", n)
		}
	})
}

// TestALateStartKeepsAnOlderHandEditOut: a hand edit in place made before the turn (more
// than lateSlack before: change times cannot be set back, so the test lets it age) is
// not the turn's, and the turn's change of that file starts from it.
func TestALateStartKeepsAnOlderHandEditOut(t *testing.T) {
	isolateGit(t)
	f := newFixture(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})
	gitInit(t, f.dir)
	settle(t)
	if err := f.rec.Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.quietTurn()
	writeFile(t, f.path("dir/b.txt"), "b by hand\nmore\n")
	time.Sleep(2 * lateSlack) // ageing the edit, not a synchronisation
	f.begin("after a hand edit")
	if got := f.end(); len(got.Changes) != 0 {
		t.Fatalf("the hand edit is in the turn: %v", summary(got))
	}
	if n := f.lateStarts(); n != 2 {
		t.Fatalf("%d starts were taken late, want 2 (the quiet turn's reuses what Prepare listed)", n)
	}
	f.begin("the agent's")
	appendFile(t, f.path("dir/b.txt"), "the agent's\n")
	got := f.end()
	if diff := cmp.Diff([]string{"M dir/b.txt +1 -0"}, summary(got)); diff != "" {
		t.Errorf("the turn (-want +got):\n%s", diff)
	}
}
