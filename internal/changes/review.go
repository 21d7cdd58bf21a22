package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/textdiff"
)

// Kind says what a turn did to a file.
type Kind string

const (
	Added    Kind = "A" // created
	Modified Kind = "M"
	Deleted  Kind = "D"
)

// Status is where a change stands.
type Status string

const (
	Pending Status = "pending" // can be undone or kept
	Undone  Status = "undone"  // undone (the undo has its own record)
	Kept    Status = "kept"    // kept: what it replaced is no longer kept
	Expired Status = "expired" // too old or over the budget: what it replaced is no longer kept
)

// Version is one side of a change: the file before the turn, or after it.
type Version struct {
	Exists bool
	Binary bool   // recorded by hash: its content is not kept
	Large  bool   // larger than Limits.MaxFileBytes: recorded by size and times only
	Kept   bool   // its content is kept: it can be restored and shown
	Size   int64  // bytes
	Hash   string // SHA-256 (hex) of the content; "" when Large
	// Mode is the file's permission bits (an undo restores them); 0: not known (a change
	// recorded by an older parley, a file read through an editor's fs/*).
	Mode fs.FileMode
	sig  string // size, times and inode: what identifies a Large file
}

// Change is a file a turn created, changed or deleted.
type Change struct {
	Path    string // absolute
	Rel     string // as the user sees it: relative to the workspace's first root
	Kind    Kind
	Added   int // lines, for text
	Removed int
	Before  Version
	After   Version
	Written bool // the agent wrote it through parley (fs/write_text_file); else found on disk
	Status  Status
	// RunsCode, when not "", says how the change makes git run a program later (a hook, a
	// configuration key such as core.fsmonitor or alias.*, a filter attribute): a change to
	// look at before running git in the workspace again.
	RunsCode string
}

// ModeChanged reports whether the turn changed the file's permission bits (`chmod +x`),
// where both sides know them.
func (c Change) ModeChanged() bool {
	return c.Before.Exists && c.After.Exists && c.Before.Mode != 0 && c.After.Mode != 0 && c.Before.Mode != c.After.Mode
}

// Undoable reports whether an undo can bring back what the file was before the turn
// (whether it changed since is only known by looking at it).
func (c Change) Undoable() bool {
	return c.Status == Pending && (!c.Before.Exists || c.Before.Kept)
}

// NotKept says why the content of a side is not kept, "" when it is.
func (v Version) NotKept() string {
	switch {
	case !v.Exists || v.Kept:
		return ""
	case v.Large:
		return "larger than the record reads"
	case v.Binary:
		return "binary: recorded by hash"
	}
	return "not kept (over the budget, or the change was kept or expired)"
}

// Turn is the record of one turn that changed files, or of an undo.
type Turn struct {
	Number  int    // in its conversation: 1, 2, 3…
	Label   string // the prompt, or what the undo undid
	Undo    bool
	Started time.Time
	Ended   time.Time // zero while it runs
	Changes []Change  // in path order
}

// Pending reports whether some change of the turn can still be undone or kept.
func (t Turn) Pending() bool {
	for _, c := range t.Changes {
		if c.Status == Pending {
			return true
		}
	}
	return false
}

// Change returns the turn's change of path.
func (t Turn) Change(path string) (Change, bool) {
	for _, c := range t.Changes {
		if c.Path == path {
			return c, true
		}
	}
	return Change{}, false
}

// Turns returns the conversation's turns that changed files, and its undos, oldest first.
func (r *Record) Turns(ctx context.Context) ([]Turn, error) {
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
	out := make([]Turn, 0, len(rows))
	for _, t := range rows {
		turn := r.turnOf(t)
		r.flagRunsCode(ctx, &turn)
		out = append(out, turn)
	}
	return out, nil
}

func (r *Record) turnByID(ctx context.Context, sess, id int64) (Turn, error) {
	rows, err := r.log.st.ChangeTurns(ctx, sess)
	if err != nil {
		return Turn{}, err
	}
	for _, t := range rows {
		if t.ID == id {
			turn := r.turnOf(t)
			r.flagRunsCode(ctx, &turn)
			return turn, nil
		}
	}
	return Turn{}, nil
}

func (r *Record) turnOf(t store.ChangeTurn) Turn {
	out := Turn{Number: t.Number, Label: t.Label, Undo: t.Undo, Started: t.StartedAt, Ended: t.EndedAt}
	for _, f := range t.Files {
		c := Change{Path: f.Path, Rel: r.display(f.Path), Added: f.Added, Removed: f.Removed,
			Before: versionView(f.Before), After: versionView(f.After), Written: f.Written, Status: Status(f.Status)}
		switch {
		case !c.Before.Exists:
			c.Kind = Added
		case !c.After.Exists:
			c.Kind = Deleted
		default:
			c.Kind = Modified
		}
		out.Changes = append(out.Changes, c)
	}
	return out
}

func versionView(v store.ChangeVersion) Version {
	if v.Kind == kindNone {
		return Version{}
	}
	out := Version{Exists: true, Binary: v.Kind == kindBinary, Large: v.Kind == kindLarge, Kept: v.Kept, Size: v.Size, Hash: v.Hash,
		Mode: fs.FileMode(v.Mode), sig: v.Sig}
	if v.Size == 0 && v.Hash != "" {
		out.Kept = true // an empty file needs nothing kept
	}
	return out
}

// DiffRequest asks for the diff of one file of a turn.
type DiffRequest struct {
	Path string // absolute
	// Turn is the turn's number; 0: the last turn that changed Path.
	Turn int
	// Since asks instead how the file changed after the turn: from what the turn left to
	// what it holds now (what an undo would overwrite).
	Since bool
}

// FileDiff is the diff of a file.
type FileDiff struct {
	Turn   int
	Change Change
	// Unified is the unified diff ("--- a/path", "+++ b/path", hunks); "" when the text
	// is the same or cannot be shown (then Note says why).
	Unified string
	Note    string
	// ChangedSince: the file is no longer what the turn left (with Since, the diff is
	// that change).
	ChangedSince bool
	// Old and New are the two texts compared (nil: no file, or its content is not kept
	// or not text), for a view that shows them side by side (an editor's diff view).
	Old, New *string
}

// ErrNoChange is the answer when the record has no such change.
var ErrNoChange = errors.New("no such change")

// Diff returns the diff of a file of a turn.
func (r *Record) Diff(ctx context.Context, req DiffRequest) (FileDiff, error) {
	turns, err := r.Turns(ctx)
	if err != nil {
		return FileDiff{}, err
	}
	var turn *Turn
	var change Change
	for i := len(turns) - 1; i >= 0 && turn == nil; i-- {
		if req.Turn != 0 && turns[i].Number != req.Turn {
			continue
		}
		if c, ok := turns[i].Change(req.Path); ok {
			turn, change = &turns[i], c
		}
	}
	if turn == nil {
		if req.Turn != 0 {
			return FileDiff{}, fmt.Errorf("turn %d did not change %s: %w", req.Turn, r.display(req.Path), ErrNoChange)
		}
		return FileDiff{}, fmt.Errorf("no turn recorded a change of %s: %w", r.display(req.Path), ErrNoChange)
	}
	d := FileDiff{Turn: turn.Number, Change: change}
	now, err := r.files.Read(ctx, req.Path, r.log.limits.MaxFileBytes)
	if err == nil {
		nowV, _ := versionOfState(now)
		d.ChangedSince = !nowV.same(versionOf(storedOf(change.After)))
	}
	from, to := change.Before, change.After
	fromLabel, toLabel := "a/"+change.Rel, "b/"+change.Rel
	var fromText, toText []byte
	var ok bool
	if req.Since {
		if err != nil {
			return d, fmt.Errorf("reading %s: %w", change.Rel, err)
		}
		from = change.After
		nowV, nowContent := versionOfState(now)
		to = versionView(nowV.stored())
		if nowContent != nil {
			to.Kept = true
		}
		fromLabel, toLabel = change.Rel+" (after turn "+fmt.Sprint(turn.Number)+")", change.Rel+" (now)"
		toText = nowContent
		if fromText, ok = r.content(ctx, versionOf(storedOf(from))); !ok {
			d.Note = "what the turn left is " + from.NotKept()
			return d, nil
		}
	} else {
		if fromText, ok = r.content(ctx, versionOf(storedOf(from))); !ok {
			d.Note = "before the turn it was " + from.NotKept()
			return d, nil
		}
		if toText, ok = r.content(ctx, versionOf(storedOf(to))); !ok {
			d.Note = "after the turn it was " + to.NotKept()
			return d, nil
		}
	}
	switch {
	case from.Binary || to.Binary:
		d.Note = "binary content differs"
		return d, nil
	case to.Exists && toText == nil:
		d.Note = "it is " + to.NotKept()
		return d, nil
	}
	if from.Exists {
		d.Old = new(string(fromText))
	} else {
		fromLabel = "/dev/null"
	}
	if to.Exists {
		d.New = new(string(toText))
	}
	if !to.Exists {
		toLabel = "/dev/null"
	}
	d.Unified = textdiff.Unified(fromLabel, toLabel, string(fromText), string(toText), 3)
	return d, nil
}

// storedOf turns a Version back into what the store calls it.
func storedOf(v Version) store.ChangeVersion {
	mode := uint32(v.Mode)
	switch {
	case !v.Exists:
		return store.ChangeVersion{Kind: kindNone}
	case v.Large:
		return store.ChangeVersion{Kind: kindLarge, Size: v.Size, Sig: v.sig, Mode: mode}
	case v.Binary:
		return store.ChangeVersion{Kind: kindBinary, Hash: v.Hash, Size: v.Size, Sig: v.sig, Mode: mode}
	}
	return store.ChangeVersion{Kind: kindText, Hash: v.Hash, Size: v.Size, Sig: v.sig, Mode: mode}
}
