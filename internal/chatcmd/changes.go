package chatcmd

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/conversation"
)

// What /changes, /diff, /undo, /rewind and /keep do to the conversation's record of
// changes; each front-end draws the answer.

// ErrNotRecorded: parley keeps no record of this conversation's changes.
var ErrNotRecorded = errors.New("parley does not record this conversation's changes (see the changes section of the configuration)")

// ErrNoChanges: no turn of the conversation has changed a file yet.
var ErrNoChanges = errors.New("no turn of this conversation has changed a file yet")

// Target is what a FILE|TURN argument names: a turn (Turn > 0), files (absolute), or
// neither (the default of the command).
type Target struct {
	Turn  int
	Paths []string
}

// ReadTarget reads FILE|TURN arguments: a number is a turn ("#3" too), anything else a
// file, relative to cwd.
func ReadTarget(cwd string, words []string) Target {
	var t Target
	for _, w := range words {
		if n, ok := TurnNumber(w); ok && len(words) == 1 {
			t.Turn = n
			continue
		}
		t.Paths = append(t.Paths, AbsPath(cwd, w))
	}
	return t
}

// AbsPath is a FILE argument as the record names files: absolute, symlinks resolved.
func AbsPath(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	if parent, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(parent, filepath.Base(p))
	}
	return p
}

// Changes is /changes: every turn that changed files, oldest first.
func Changes(ctx context.Context, conv *conversation.Conversation) ([]changes.Turn, error) {
	if !conv.Recorded() {
		return nil, ErrNotRecorded
	}
	return conv.Changes(ctx)
}

// Diff is a file's diff, and how it changed since its turn when it did (nil otherwise).
type Diff struct {
	changes.FileDiff
	Since *changes.FileDiff
}

// Diffs is /diff: the last turn's diffs, turn TURN's, or FILE's from the last turn that
// changed it.
func Diffs(ctx context.Context, conv *conversation.Conversation, t Target) ([]Diff, error) {
	turns, err := Changes(ctx, conv)
	if err != nil {
		return nil, err
	}
	if len(turns) == 0 {
		return nil, ErrNoChanges
	}
	var reqs []changes.DiffRequest
	for _, p := range t.Paths {
		reqs = append(reqs, changes.DiffRequest{Path: p})
	}
	if len(reqs) == 0 {
		turn, found := turns[len(turns)-1], t.Turn == 0
		for _, x := range turns {
			if x.Number == t.Turn {
				turn, found = x, true
			}
		}
		if !found {
			return nil, errors.New("that turn changed no file (/changes lists the turns)")
		}
		for _, ch := range turn.Changes {
			reqs = append(reqs, changes.DiffRequest{Turn: turn.Number, Path: ch.Path})
		}
	}
	var out []Diff
	for _, req := range reqs {
		d, err := conv.Diff(ctx, req)
		if err != nil {
			return nil, err
		}
		diff := Diff{FileDiff: d}
		if d.ChangedSince {
			if since, err := conv.Diff(ctx, changes.DiffRequest{Turn: d.Turn, Path: req.Path, Since: true}); err == nil {
				diff.Since = &since
			}
		}
		out = append(out, diff)
	}
	return out, nil
}

// Undo is /undo (the last turn with changes to undo, a turn, files) and, with rewind,
// /rewind TURN. A *changes.ConflictError says why nothing (or only part) was undone.
func Undo(ctx context.Context, conv *conversation.Conversation, t Target, rewind bool) (changes.UndoResult, error) {
	if !conv.Recorded() {
		return changes.UndoResult{}, ErrNotRecorded
	}
	if rewind && t.Turn == 0 {
		return changes.UndoResult{}, errors.New("/rewind needs the number of a turn (see /changes)")
	}
	return conv.Undo(ctx, changes.UndoRequest{Turn: t.Turn, Paths: t.Paths, Rewind: rewind})
}

// Keep is /keep: every pending change, turn TURN's, or some files'.
func Keep(ctx context.Context, conv *conversation.Conversation, t Target) ([]changes.KeptChange, error) {
	if !conv.Recorded() {
		return nil, ErrNotRecorded
	}
	return conv.Keep(ctx, changes.KeepRequest{Turn: t.Turn, Paths: t.Paths})
}
