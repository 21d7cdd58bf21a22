package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/store"
)

// fileOutcome is what an undo or a keep did with one file.
type fileOutcome struct {
	path   string
	done   bool    // restored, deleted or kept
	before *string // the content the undo replaced (nil: no file)
	after  *string // the content it left (nil: deleted)
	note   string  // for the user: what happened, or why not
}

// overwriteAsker asks the user whether an undo may overwrite a file changed since the
// agent wrote it: current is what the file holds now (nil: it is gone), target what the
// undo would leave (nil: no file).
type overwriteAsker func(ctx context.Context, path string, current, target *string) (bool, error)

// errNoCheckpoint is the answer when there is nothing to undo or keep.
var errNoCheckpoint = errors.New("no checkpoint")

// pick returns the checkpoint number (0: the newest one with pending files) and its
// pending files (only path's, when path is not "").
func (c *checkpoints) pick(ctx context.Context, number int, path string) (store.Checkpoint, []store.CheckpointFile, []store.Checkpoint, error) {
	all, err := c.store.Checkpoints(ctx, c.session)
	if err != nil {
		return store.Checkpoint{}, nil, nil, err
	}
	for i := len(all) - 1; i >= 0; i-- {
		cp := all[i]
		if number != 0 && cp.Number != number {
			continue
		}
		var files []store.CheckpointFile
		for _, f := range cp.Files {
			if f.Status == store.FilePending && (path == "" || f.Path == path) {
				files = append(files, f)
			}
		}
		if len(files) > 0 || number != 0 {
			return cp, files, all[i+1:], nil
		}
	}
	return store.Checkpoint{}, nil, nil, errNoCheckpoint
}

// undo restores the pending files of checkpoint number (0: the newest with any), or only
// path. Each restore is recorded in a new checkpoint (label), so that the undo can be
// undone in turn. A file changed since the agent wrote it is only overwritten if ask
// says so.
func (c *checkpoints) undo(ctx context.Context, number int, path, label string, ask overwriteAsker) (store.Checkpoint, []fileOutcome, error) {
	cp, files, later, err := c.pick(ctx, number, path)
	if err != nil {
		return cp, nil, err
	}
	u := c.begin(label)
	var out []fileOutcome
	for _, f := range files {
		o := c.undoFile(ctx, cp, f, later, u, ask)
		out = append(out, o)
		if ctx.Err() != nil {
			break
		}
	}
	u.end(context.WithoutCancel(ctx))
	return cp, out, nil
}

func (c *checkpoints) undoFile(ctx context.Context, cp store.Checkpoint, f store.CheckpointFile, later []store.Checkpoint, u *turnCheckpoint, ask overwriteAsker) fileOutcome {
	o := fileOutcome{path: f.Path}
	content, sum, err := c.current(ctx, f.Path)
	if err != nil {
		o.note = fmt.Sprintf("not undone: it cannot be read (%v)", err)
		return o
	}
	var current *string
	if sum != "" {
		current = &content
	}
	var target *string
	if !f.Created {
		original, err := c.store.Original(ctx, cp.ID, f.Path)
		if err != nil {
			o.note = "not undone: its original is no longer kept (it was kept, or expired to bound the storage)"
			return o
		}
		s := string(original)
		target = &s
	}
	o.before, o.after = current, target
	if sum == hashOf(target) { // already as it was: nothing to overwrite
		o.done, o.note = true, "already as it was"
		return o.marked(ctx, c, cp, f)
	}
	if sum != f.Written {
		why := "it was changed since parley wrote it"
		if n := laterWriter(later, f.Path); n != 0 {
			why = fmt.Sprintf("checkpoint #%d changed it since (undo that one first)", n)
		}
		ok, err := ask(ctx, f.Path, current, target)
		if err != nil || !ok {
			o.note = "not undone: " + why + "; your version is left as it is"
			return o
		}
	}
	do := func(ctx context.Context) error {
		if target == nil {
			return c.env.Remove(ctx, f.Path)
		}
		return c.env.WriteFile(ctx, f.Path, *target)
	}
	if err := u.apply(ctx, f.Path, current, target, do); err != nil {
		o.note = fmt.Sprintf("not undone: %v", err)
		return o
	}
	o.done, o.note = true, "restored"
	if target == nil {
		o.note = "deleted (parley had created it)"
	}
	return o.marked(ctx, c, cp, f)
}

func (o fileOutcome) marked(ctx context.Context, c *checkpoints, cp store.Checkpoint, f store.CheckpointFile) fileOutcome {
	if err := c.store.SetFileStatus(context.WithoutCancel(ctx), cp.ID, f.Path, store.FileUndone); err != nil {
		o.note += fmt.Sprintf(" (but marking it undone failed: %v)", err)
	}
	return o
}

// laterWriter is the number of a later checkpoint with path still pending, 0 if none.
func laterWriter(later []store.Checkpoint, path string) int {
	for i := len(later) - 1; i >= 0; i-- {
		if slices.ContainsFunc(later[i].Files, func(f store.CheckpointFile) bool { return f.Path == path && f.Status == store.FilePending }) {
			return later[i].Number
		}
	}
	return 0
}

// keep accepts the pending files of checkpoint number (0: every checkpoint), or only
// path: they can no longer be undone, and their originals are dropped.
func (c *checkpoints) keep(ctx context.Context, number int, path string) ([]fileOutcome, error) {
	all, err := c.store.Checkpoints(ctx, c.session)
	if err != nil {
		return nil, err
	}
	var out []fileOutcome
	found := false
	for _, cp := range all {
		if number != 0 && cp.Number != number {
			continue
		}
		found = true
		for _, f := range cp.Files {
			if f.Status != store.FilePending || path != "" && f.Path != path {
				continue
			}
			o := fileOutcome{path: f.Path, done: true, note: fmt.Sprintf("kept (checkpoint #%d)", cp.Number)}
			if err := c.store.SetFileStatus(ctx, cp.ID, f.Path, store.FileKept); err != nil {
				o.done, o.note = false, fmt.Sprintf("not kept: %v", err)
			}
			out = append(out, o)
		}
	}
	if !found && number != 0 {
		return nil, errNoCheckpoint
	}
	return out, nil
}

// describe lists the session's checkpoints for /checkpoints.
func (c *checkpoints) describe(ctx context.Context, display func(string) string) (string, error) {
	all, err := c.store.Checkpoints(ctx, c.session)
	if err != nil {
		return "", err
	}
	if len(all) == 0 {
		return "No checkpoints yet: parley makes one for each turn that changes files.", nil
	}
	var b strings.Builder
	b.WriteString("Checkpoints, oldest first (`/undo N` restores checkpoint N, `/keep N` accepts it; add a file to act on it alone):\n")
	for _, cp := range all {
		fmt.Fprintf(&b, "\n#%d  %s  %s\n", cp.Number, cp.CreatedAt.Local().Format("2006-01-02 15:04"), oneLine(cp.Label, 60))
		for _, f := range cp.Files {
			what := "modified"
			if f.Created {
				what = "created"
			}
			fmt.Fprintf(&b, "    %-8s %-8s %s\n", what, f.Status, display(f.Path))
		}
	}
	return b.String(), nil
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
