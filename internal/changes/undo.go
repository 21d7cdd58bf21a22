package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/store"
)

// UndoRequest says what to undo.
type UndoRequest struct {
	// Turn is the turn's number; 0: the last turn with a change that can be undone (with
	// Paths: for each file, the last turn that changed it).
	Turn int
	// Paths, when given, are the only files undone (absolute paths).
	Paths []string
	// Rewind undoes every turn from Turn to the last, newest first: the files go back to
	// what they were before Turn.
	Rewind bool
}

// UndoResult is what an undo did.
type UndoResult struct {
	Turns []int     // the turns undone, newest first
	Files []Outcome // in path order
	// Record is the undo's own record: undoing it brings the changes back.
	Record Turn
}

// Outcome is what an undo did with one file.
type Outcome struct {
	Path, Rel string
	Did       string // "restored", "deleted", "recreated", or "already as it was"
}

// Conflict is a file an undo would not touch, and why.
type Conflict struct {
	Path, Rel string
	Turn      int    // the turn whose change it is
	Reason    string // for the user
	// Since: the file changed after the turn (a hand edit, another tool): Diff with Since
	// shows how.
	Since bool
}

// ConflictError is an undo's answer when a file it would restore changed since the turn,
// or cannot be restored: nothing was changed (or, when a file changed during the undo
// itself, nothing after it).
type ConflictError struct {
	Conflicts []Conflict
	Partial   *UndoResult // what was undone before the undo stopped; nil when nothing was
	// Undoable are the other files the undo would have restored (nothing stopped them),
	// as Conflict.Rel names them: an undo of them alone can go ahead.
	Undoable []string
}

func (e *ConflictError) Error() string {
	var parts []string
	for _, c := range e.Conflicts {
		parts = append(parts, c.Rel+": "+c.Reason)
	}
	head := "nothing was undone"
	if e.Partial != nil {
		head = "the undo stopped"
	}
	return head + ": " + strings.Join(parts, "; ")
}

// ErrNothingToUndo is the answer when no change can be undone.
var ErrNothingToUndo = errors.New("nothing to undo: no change is waiting to be kept or undone")

// ErrTurnRunning is the answer to an undo or keep while a turn runs in the workspace.
var ErrTurnRunning = errors.New("a turn is running in this workspace: wait for it to end, or cancel it")

// step is one turn's change of a file, as an undo goes back through it.
type step struct {
	turn store.ChangeTurn
	file store.ChangeTurnFile
}

// planned is what an undo does with one file: from expect (what the newest turn left) to
// target (what it was before the oldest).
type planned struct {
	path           string
	steps          []step // newest first
	expect, target version
	content        []byte // the target's content
}

// Undo undoes one turn, some files of it, or every turn back to one (Rewind), through
// Files (the workspace's confined access, for a conversation). It never overwrites a
// change made after the turn by someone else: when a file is no longer what the turn
// left (or what it was before cannot be restored), nothing is changed and a
// *ConflictError names the files. The undo is recorded as a turn of its own, so it can
// be undone in turn.
func (r *Record) Undo(ctx context.Context, req UndoRequest) (UndoResult, error) {
	if err := r.t.lock(ctx); err != nil {
		return UndoResult{}, err
	}
	defer r.t.unlock()
	if len(r.t.open) > 0 {
		return UndoResult{}, ErrTurnRunning
	}
	r.mu.Lock()
	sess := r.sess
	r.mu.Unlock()
	if sess == 0 {
		return UndoResult{}, ErrNothingToUndo
	}
	rows, err := r.log.st.ChangeTurns(ctx, sess)
	if err != nil {
		return UndoResult{}, err
	}
	plans, undid, err := r.plan(rows, req)
	if err != nil {
		return UndoResult{}, err
	}
	var conflicts []Conflict
	var undoable []string
	for _, p := range plans {
		if c, ok := r.check(ctx, rows, p); !ok {
			conflicts = append(conflicts, c)
		} else {
			undoable = append(undoable, r.display(p.path))
		}
	}
	if len(conflicts) > 0 {
		return UndoResult{}, &ConflictError{Conflicts: conflicts, Undoable: undoable}
	}
	return r.apply(ctx, plans, undid, undoLabel(req, plans, undid, r))
}

// plan works out, per file, what the undo goes back through.
func (r *Record) plan(rows []store.ChangeTurn, req UndoRequest) ([]*planned, []int, error) {
	wanted := func(path string) bool { return len(req.Paths) == 0 || slices.Contains(req.Paths, path) }
	pending := func(t store.ChangeTurn) []store.ChangeTurnFile {
		var out []store.ChangeTurnFile
		for _, f := range t.Files {
			if f.Status == string(Pending) && wanted(f.Path) {
				out = append(out, f)
			}
		}
		return out
	}
	var chosen []store.ChangeTurn // newest first
	switch {
	case req.Rewind:
		if req.Turn == 0 {
			return nil, nil, errors.New("rewind to which turn?")
		}
		if !slices.ContainsFunc(rows, func(t store.ChangeTurn) bool { return t.Number == req.Turn }) {
			return nil, nil, fmt.Errorf("there is no turn %d: %w", req.Turn, ErrNoChange)
		}
		for i := len(rows) - 1; i >= 0; i-- {
			if rows[i].Number >= req.Turn && len(pending(rows[i])) > 0 {
				chosen = append(chosen, rows[i])
			}
		}
	case req.Turn != 0:
		i := slices.IndexFunc(rows, func(t store.ChangeTurn) bool { return t.Number == req.Turn })
		if i < 0 {
			return nil, nil, fmt.Errorf("there is no turn %d: %w", req.Turn, ErrNoChange)
		}
		chosen = []store.ChangeTurn{rows[i]}
	case len(req.Paths) > 0:
		for _, path := range req.Paths { // each file: the last turn that changed it
			for i := len(rows) - 1; i >= 0; i-- {
				if slices.ContainsFunc(pending(rows[i]), func(f store.ChangeTurnFile) bool { return f.Path == path }) {
					if !slices.ContainsFunc(chosen, func(t store.ChangeTurn) bool { return t.ID == rows[i].ID }) {
						chosen = append(chosen, rows[i])
					}
					break
				}
			}
		}
		slices.SortFunc(chosen, func(a, b store.ChangeTurn) int { return b.Number - a.Number })
	default:
		for i := len(rows) - 1; i >= 0 && chosen == nil; i-- {
			if len(pending(rows[i])) > 0 {
				chosen = []store.ChangeTurn{rows[i]}
			}
		}
	}
	byPath := map[string]*planned{}
	var undid []int
	for _, t := range chosen {
		files := pending(t)
		if len(files) > 0 {
			undid = append(undid, t.Number)
		}
		for _, f := range files {
			p := byPath[f.Path]
			if p == nil {
				p = &planned{path: f.Path}
				byPath[f.Path] = p
			}
			p.steps = append(p.steps, step{turn: t, file: f})
		}
	}
	for _, path := range req.Paths {
		if byPath[path] == nil {
			if req.Turn != 0 {
				return nil, nil, fmt.Errorf("turn %d has no change of %s to undo: %w", req.Turn, r.display(path), ErrNoChange)
			}
			return nil, nil, fmt.Errorf("no change of %s is waiting to be undone: %w", r.display(path), ErrNoChange)
		}
	}
	if len(byPath) == 0 {
		if req.Turn != 0 {
			return nil, nil, fmt.Errorf("nothing to undo in turn %d: its changes were undone or kept already: %w", req.Turn, ErrNothingToUndo)
		}
		return nil, nil, ErrNothingToUndo
	}
	var plans []*planned
	for _, p := range byPath {
		p.expect = versionOf(p.steps[0].file.After)
		p.target = versionOf(p.steps[len(p.steps)-1].file.Before)
		plans = append(plans, p)
	}
	slices.SortFunc(plans, func(a, b *planned) int { return cmpString(a.path, b.path) })
	return plans, undid, nil
}

// check reports whether the file can be undone: what it holds now is what the newest
// turn left (or already what the undo would leave), nobody changed it between the turns
// gone back through, no later turn changed it, and what it was is kept.
func (r *Record) check(ctx context.Context, rows []store.ChangeTurn, p *planned) (Conflict, bool) {
	first := p.steps[0]
	c := Conflict{Path: p.path, Rel: r.display(p.path), Turn: first.turn.Number}
	if n := laterChange(rows, p); n != 0 {
		c.Reason = fmt.Sprintf("turn %d changed it since: undo that turn first, or rewind to turn %d", n, first.turn.Number)
		return c, false
	}
	for i := 0; i+1 < len(p.steps); i++ {
		newer, older := p.steps[i], p.steps[i+1]
		if !versionOf(newer.file.Before).same(versionOf(older.file.After)) {
			c.Turn = older.turn.Number
			c.Reason = fmt.Sprintf("it was changed between turn %d and turn %d (by you or another tool)", older.turn.Number, newer.turn.Number)
			return c, false
		}
	}
	if p.target.exists() {
		content, ok := r.content(ctx, p.target)
		if !ok {
			last := p.steps[len(p.steps)-1]
			c.Turn = last.turn.Number
			c.Reason = fmt.Sprintf("what it was before turn %d is %s, so it cannot be restored", last.turn.Number, versionView(last.file.Before).NotKept())
			return c, false
		}
		p.content = content
	}
	now, err := r.files.Read(ctx, p.path, r.log.limits.MaxFileBytes)
	if err != nil {
		c.Reason = fmt.Sprintf("it cannot be read (%v)", err)
		return c, false
	}
	nowV, _ := versionOfState(now)
	if nowV.same(p.target) || nowV.same(p.expect) {
		return c, true
	}
	c.Since = true
	c.Reason = fmt.Sprintf("it changed since turn %d (by you or another tool), and the undo would overwrite that", first.turn.Number)
	if !now.Exists {
		c.Reason = fmt.Sprintf("it was deleted since turn %d (by you or another tool)", first.turn.Number)
	}
	return c, false
}

// laterChange is the number of a turn after the ones undone that changed the file and
// can still be undone (0: none).
func laterChange(rows []store.ChangeTurn, p *planned) int {
	for i := len(rows) - 1; i >= 0; i-- {
		t := rows[i]
		if t.Number <= p.steps[0].turn.Number {
			break
		}
		for _, f := range t.Files {
			if f.Path == p.path && f.Status == string(Pending) {
				return t.Number
			}
		}
	}
	return 0
}

// apply does the undo, recording it as a turn of its own. Each file is looked at again
// just before it is written: one changed in the meantime stops the undo there.
func (r *Record) apply(ctx context.Context, plans []*planned, undid []int, label string) (UndoResult, error) {
	if _, err := r.session(ctx); err != nil {
		return UndoResult{}, err
	}
	ot := &openTurn{rec: r, label: label, undo: true, started: time.Now(), files: map[string]*turnFile{}}
	res := UndoResult{Turns: undid}
	var stopErr error
	for _, p := range plans {
		o, err := r.applyOne(ctx, ot, p)
		if err != nil {
			stopErr = err
			break
		}
		res.Files = append(res.Files, o)
	}
	rec, err := r.finish(context.WithoutCancel(ctx), ot)
	res.Record = rec
	if stopErr != nil {
		var partial *UndoResult
		if len(res.Files) > 0 {
			partial = &res
		}
		if ce, ok := errors.AsType[*ConflictError](stopErr); ok {
			ce.Partial = partial
			return res, ce
		}
		return res, fmt.Errorf("the undo stopped at a file (%w); what it did before is listed, and can be undone", stopErr)
	}
	return res, err
}

func (r *Record) applyOne(ctx context.Context, ot *openTurn, p *planned) (Outcome, error) {
	o := Outcome{Path: p.path, Rel: r.display(p.path)}
	now, err := r.files.Read(ctx, p.path, writeKeepLimit)
	if err != nil {
		return o, err
	}
	nowV, nowContent := versionOfState(now)
	if nowV.same(p.target) {
		o.Did = "already as it was"
		return o, r.markUndone(ctx, p, nil, nil, nil)
	}
	if !nowV.same(p.expect) {
		return o, &ConflictError{Conflicts: []Conflict{{Path: p.path, Rel: o.Rel, Turn: p.steps[0].turn.Number, Since: true,
			Reason: "it changed while the undo ran (by you or another tool); it was left as it is"}}}
	}
	if p.target.exists() {
		if !nowV.sameContent(p.target) {
			err = r.files.Write(ctx, p.path, p.content)
		}
		if err == nil {
			err = r.restoreMode(ctx, p.path, p.target.mode)
		}
		o.Did = "restored"
		if !nowV.exists() {
			o.Did = "recreated"
		}
	} else {
		err = r.files.Remove(ctx, p.path)
		o.Did = "deleted"
	}
	if err != nil {
		return o, err
	}
	after := p.target
	after.sig = ""
	st, err := r.files.Read(context.WithoutCancel(ctx), p.path, 0)
	if err == nil && st.Exists && st.stat != (fileStat{}) {
		after.sig = st.stat.sig()
		after.mode = permOf(st.stat.mode)
	}
	var blobs []store.Blob
	if nowContent != nil && !now.Linked {
		blobs = append(blobs, store.Blob{Hash: nowV.hash, Content: nowContent}) // for undoing the undo
	}
	var e *entry
	if r.t.walk && st.Exists && st.stat != (fileStat{}) {
		e = &entry{stat: st.stat, kind: after.kind, hash: after.hash, racy: true}
	}
	err = r.markUndone(context.WithoutCancel(ctx), p, ot, blobs, func(tx *store.ChangesTx, created map[*openTurn]store.ChangeTurn) error {
		if err := ot.record(tx, created, p.path, nowV, after, false); err != nil {
			return err
		}
		if !r.t.walk {
			return nil
		}
		if e != nil {
			return tx.PutFiles(r.t.ws, []store.ChangeFile{e.stored(p.path)})
		}
		return tx.DeleteFiles(r.t.ws, []string{p.path})
	})
	if err != nil {
		return o, fmt.Errorf("%s was undone, but parley could not record it: %w", o.Rel, err)
	}
	ot.apply(p.path, nowV, after, false)
	if r.t.files != nil {
		if e != nil {
			r.t.files[p.path] = e
		} else {
			delete(r.t.files, p.path)
		}
	}
	return o, nil
}

// restoreMode gives the file the permission bits it had (0: not known, left as they
// are), where Files can set them.
func (r *Record) restoreMode(ctx context.Context, path string, mode uint32) error {
	mf, ok := r.files.(modeFiles)
	if mode == 0 || !ok {
		return nil
	}
	return mf.Chmod(ctx, path, fs.FileMode(mode))
}

// markUndone marks the file's changes in the turns gone back through undone, with more
// to record in the same transaction.
func (r *Record) markUndone(ctx context.Context, p *planned, ot *openTurn, blobs []store.Blob, more func(*store.ChangesTx, map[*openTurn]store.ChangeTurn) error) error {
	created := map[*openTurn]store.ChangeTurn{}
	err := r.log.st.UpdateChanges(ctx, func(tx *store.ChangesTx) error {
		if err := tx.PutBlobs(r.t.ws, blobs); err != nil {
			return err
		}
		for _, s := range p.steps {
			if err := tx.SetTurnFileStatus(s.turn.ID, p.path, string(Undone)); err != nil {
				return err
			}
		}
		if more != nil {
			return more(tx, created)
		}
		return nil
	})
	if err == nil && ot != nil {
		if c, ok := created[ot]; ok {
			ot.turn = c
		}
	}
	return err
}

func undoLabel(req UndoRequest, plans []*planned, undid []int, r *Record) string {
	turns := make([]string, len(undid))
	for i, n := range undid {
		turns[i] = fmt.Sprint(n)
	}
	switch {
	case req.Rewind:
		return fmt.Sprintf("rewind to before turn %d (undid turns %s)", req.Turn, strings.Join(turns, ", "))
	case len(req.Paths) > 0:
		var names []string
		for _, p := range plans {
			names = append(names, r.display(p.path))
		}
		return fmt.Sprintf("undo of %s (turn %s)", strings.Join(names, ", "), strings.Join(turns, ", "))
	}
	return "undo of turn " + strings.Join(turns, ", ")
}

// KeepRequest says which changes to keep.
type KeepRequest struct {
	Turn  int      // the turn's number; 0: every turn
	Paths []string // only these files (absolute); none: all of them
}

// KeptChange is a change that was kept.
type KeptChange struct {
	Turn   int
	Change Change
}

// Keep keeps changes: they can no longer be undone, and what they replaced is no longer
// kept (the record of the turn stays, for the list).
func (r *Record) Keep(ctx context.Context, req KeepRequest) ([]KeptChange, error) {
	if err := r.t.lock(ctx); err != nil {
		return nil, err
	}
	defer r.t.unlock()
	if len(r.t.open) > 0 {
		return nil, ErrTurnRunning
	}
	r.mu.Lock()
	sess := r.sess
	r.mu.Unlock()
	if sess == 0 {
		return nil, nil
	}
	rows, err := r.log.st.ChangeTurns(ctx, sess)
	if err != nil {
		return nil, err
	}
	if req.Turn != 0 && !slices.ContainsFunc(rows, func(t store.ChangeTurn) bool { return t.Number == req.Turn }) {
		return nil, fmt.Errorf("there is no turn %d: %w", req.Turn, ErrNoChange)
	}
	var kept []KeptChange
	err = r.log.st.UpdateChanges(ctx, func(tx *store.ChangesTx) error {
		for _, row := range rows {
			t := r.turnOf(row)
			if req.Turn != 0 && t.Number != req.Turn {
				continue
			}
			for _, c := range t.Changes {
				if c.Status != Pending || len(req.Paths) > 0 && !slices.Contains(req.Paths, c.Path) {
					continue
				}
				if err := tx.SetTurnFileStatus(row.ID, c.Path, string(Kept)); err != nil {
					return err
				}
				c.Status = Kept
				kept = append(kept, KeptChange{Turn: t.Number, Change: c})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := r.log.st.CollectChangeBlobs(ctx, r.t.ws); err != nil {
		return kept, err
	}
	if r.t.kept, err = r.log.st.ChangeBytes(ctx, r.t.ws); err != nil {
		return kept, err
	}
	return kept, nil
}
