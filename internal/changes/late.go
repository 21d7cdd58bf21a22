package changes

import (
	"context"
	"time"
)

// A turn's start taken late. The snapshot that begins a turn used to be taken before
// the prompt could leave: a fresh lstat of every file the record follows (reuse.go) is
// most of what the record added to the time to a reply's first part (BenchmarkQuietTurn:
// about 0.8 ms for 300 files on this machine, loaded; the bridge's next turn in a git
// work tree 10.7x direct). When every root's kept listing is current (the stamps of its
// directories, .gitignore files and git's inputs are as they were, a few dozen lstats),
// BeginTurn now checks just that, takes the turn's view from those listings, and leaves
// the rest of the snapshot (the lstat of each file, the reading of what changed, the
// database) to a goroutine that holds the tracker's lock until it is done, while the
// prompt is on its way. What the record promises still holds:
//   - What is ignored is decided when the turn begins: the listings and their rules were
//     proven current then, before the agent had the prompt.
//   - Nothing was created, deleted or renamed since the listing (that changes a stamped
//     directory): a file gone when the goroutine looks was deleted after the turn began,
//     and is the turn's; a file created meanwhile is not in the listing, and the end of
//     the turn finds it (new to the record and changed within racyWindow: the turn's).
//   - A file changed in place is told by its change time, which no program can set back:
//     from lateSlack before the turn began on, the change is the turn's (with, as its
//     before, what the last snapshot saw); older, it was made between the turns and only
//     updates the snapshot, as a start taken first would have. lateSlack is racyWindow:
//     change times come from the kernel's coarse clock, which lags the one BeginTurn
//     reads by a tick, and by far more in a loaded virtual machine (70 ms measured here:
//     TestALateStartMissesNothing failed a quarter of its runs with 50 ms).
//   - A file is stat'ed again once read (readAll's recheck): a read torn by the agent's
//     write takes the later state, so it is the turn's and is read again at its end.
//   - Writes through parley (Write), EndTurn, undos and keeps wait for the goroutine (the
//     lock), so a checkpoint never sees a half-taken snapshot.
//
// What it gives up: a change made in place by hand (or by a tool: an editor saving as the
// prompt is sent) within lateSlack before the prompt left is shown as the turn's, as a
// file made within racyWindow of a turn's start already is (more is shown, never less;
// undoing it restores what the last snapshot saw); and, in a race a person cannot run, a
// file edited by hand between the turns and overwritten by the agent before the goroutine
// reached it (within a millisecond or two of the prompt's arrival) is shown as the turn's
// change from what the last snapshot saw, the hand edit being part of it (it is gone
// from the disk either way). Outside Linux change times are not read, no listing is kept, and every
// start is taken before the prompt leaves.

// lateSlack: a change time from this long before a turn began on may be the turn's.
const lateSlack = racyWindow

// lateStart is what the start of a turn taken late knows when the turn begins.
type lateStart struct {
	began    time.Time
	turn     *openTurn
	listings map[string]*reusable // each root's kept listing, current at began
	views    map[string]*rootView // the turn's view, from those listings
}

// startLate returns the start of turn ot to be taken late, or nil when it must be taken
// now: this process has not looked at the workspace yet, another turn runs there (its
// view is kept), or a root's kept listing is not current. Called with the lock held.
func (t *tracker) startLate(ot *openTurn) *lateStart {
	if !t.walk || t.walkErr != nil || t.files == nil || t.lastScan.IsZero() || len(t.open) > 0 || len(t.roots.Dirs()) == 0 {
		return nil
	}
	late := &lateStart{turn: ot, listings: map[string]*reusable{}, views: map[string]*rootView{}}
	for _, dir := range t.roots.Dirs() {
		k := t.listings[dir]
		if k == nil || !k.current() {
			return nil
		}
		late.listings[dir] = k
		late.views[dir] = viewOf(k.listing)
	}
	late.began = ot.started
	return late
}

// lateDelay is how long a start taken late lets the prompt go first: on a machine with
// few cores, a snapshot running beside the prompt's way out and an agent's instant reply
// takes the CPU from them (BenchmarkFirstPart/bridge-next-git, parley's Eliza answering
// at once: the first part came 1.1 to 2.0 ms after the request, 0.85 ms with the delay,
// 0.4 to 0.6 ms with the record off, in one run). An agent's model takes far longer
// than this to answer; a change made meanwhile is the turn's all the same.
const lateDelay = 3 * time.Millisecond

// lateTimeout bounds a start taken late; it does not end with the context of the
// BeginTurn that started it (the turn's), since the turn's record needs it.
const lateTimeout = time.Minute

// takeLate takes the start of a turn in the background, holding the lock (taken by the
// caller) until it is done: then the turn runs in the workspace (t.open).
func (t *tracker) takeLate(ctx context.Context, late *lateStart) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lateTimeout)
	go func() {
		defer t.unlock()
		defer cancel()
		timer := time.NewTimer(lateDelay)
		select {
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
		late.turn.beginErr = t.snapshotLate(ctx, true, late)
		t.open = append(t.open, late.turn)
		t.late++
	}()
}
