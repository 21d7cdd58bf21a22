// Package changesrpc answers the front-ends' requests about what a conversation's agent
// changed (the record of its turns, a file's diff, undo, keep) over a
// *conversation.Conversation, in parleyapi's types and error codes. acpserver's
// _parley/changes, _parley/diff, _parley/undo and _parley/keep and vscodelm's lm/changes,
// lm/diff and lm/undo are thin adapters over it: each finds the conversation its params
// name, then calls here.
package changesrpc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/toolui"
)

// Changes answers every turn's changes, oldest first.
func Changes(ctx context.Context, c *conversation.Conversation) (parleyapi.ChangesResult, error) {
	turns, err := c.Changes(ctx)
	if err != nil {
		return parleyapi.ChangesResult{}, Error(err)
	}
	out := parleyapi.ChangesResult{Turns: []parleyapi.ChangedTurn{}}
	for _, t := range turns {
		out.Turns = append(out.Turns, Turn(t))
	}
	return out, nil
}

// Diff answers a changed file's diff; a relative path is in dir (the workspace; "" leaves
// it as it is).
func Diff(ctx context.Context, c *conversation.Conversation, dir string, req changes.DiffRequest) (parleyapi.DiffResult, error) {
	req.Path = in(dir, req.Path)
	d, err := c.Diff(ctx, req)
	if err != nil {
		return parleyapi.DiffResult{}, Error(err)
	}
	return parleyapi.DiffResult{
		Path: d.Change.Path, Rel: d.Change.Rel, Turn: d.Turn, Kind: string(d.Change.Kind), Unified: d.Unified, Note: d.Note,
		ChangedSince: d.ChangedSince, Before: d.Old, After: d.New,
	}, nil
}

// Undo undoes what req names; relative paths are in dir. A conflict is CodeUndoConflict.
func Undo(ctx context.Context, c *conversation.Conversation, dir string, req changes.UndoRequest) (parleyapi.UndoResult, error) {
	req.Paths = allIn(dir, req.Paths)
	res, err := c.Undo(ctx, req)
	if err != nil {
		return parleyapi.UndoResult{}, Error(err)
	}
	return undoResult(res), nil
}

// Keep keeps what req names (it can no longer be undone); relative paths are in dir.
func Keep(ctx context.Context, c *conversation.Conversation, dir string, req changes.KeepRequest) (parleyapi.KeepResult, error) {
	req.Paths = allIn(dir, req.Paths)
	kept, err := c.Keep(ctx, req)
	if err != nil {
		return parleyapi.KeepResult{}, Error(err)
	}
	return parleyapi.KeepResult{Kept: len(kept)}, nil
}

// Turn is a turn of the record as the wire carries it.
func Turn(t changes.Turn) parleyapi.ChangedTurn {
	out := parleyapi.ChangedTurn{Number: t.Number, Label: t.Label, Undo: t.Undo, Started: wireTime(t.Started), Ended: wireTime(t.Ended),
		Files: []parleyapi.ChangedFile{}}
	for _, c := range t.Changes {
		f := parleyapi.ChangedFile{Path: c.Path, Rel: c.Rel, Kind: string(c.Kind), Added: c.Added, Removed: c.Removed, Status: string(c.Status),
			Undoable: c.Undoable(), RunsCode: c.RunsCode}
		if c.ModeChanged() {
			f.Mode = fmt.Sprintf("%03o → %03o", c.Before.Mode.Perm(), c.After.Mode.Perm())
		}
		f.Note = c.Before.NotKept()
		if f.Note == "" {
			f.Note = c.After.NotKept()
		}
		out.Files = append(out.Files, f)
	}
	return out
}

func undoResult(res changes.UndoResult) parleyapi.UndoResult {
	out := parleyapi.UndoResult{Turns: res.Turns, Files: []parleyapi.UndoneFile{}}
	if out.Turns == nil {
		out.Turns = []int{}
	}
	for _, f := range res.Files {
		out.Files = append(out.Files, parleyapi.UndoneFile{Path: f.Path, Rel: f.Rel, Did: f.Did})
	}
	if res.Record.Number != 0 {
		record := Turn(res.Record)
		out.Record = &record
	}
	return out
}

// Error is the answer to a request the record of changes refused: an undo's conflict is
// CodeUndoConflict with a ConflictData, no such change CodeInvalidParams, anything else
// CodeInternal. Messages are made visible (toolui.SafeText): they quote paths the agent chose.
func Error(err error) error {
	msg := toolui.SafeText(err.Error())
	if ce, ok := errors.AsType[*changes.ConflictError](err); ok {
		data := parleyapi.ConflictData{Conflicts: []parleyapi.Conflict{}}
		for _, c := range ce.Conflicts {
			data.Conflicts = append(data.Conflicts, parleyapi.Conflict{Path: c.Path, Rel: c.Rel, Turn: c.Turn, Reason: c.Reason, Since: c.Since})
		}
		if ce.Partial != nil {
			partial := undoResult(*ce.Partial)
			data.Partial = &partial
		}
		e := jsonrpc2.Errorf(parleyapi.CodeUndoConflict, "%s", msg)
		e.Data, _ = json.Marshal(data)
		return e
	}
	if invalid(err) {
		return jsonrpc2.Errorf(parleyapi.CodeInvalidParams, "%s", msg)
	}
	return jsonrpc2.Errorf(parleyapi.CodeInternal, "%s", msg)
}

// invalid reports whether err is about what the request asked (no such turn or file,
// nothing to undo, a turn still running, no record kept), not a failure of the record.
func invalid(err error) bool {
	return errors.Is(err, changes.ErrNoChange) || errors.Is(err, changes.ErrNothingToUndo) ||
		errors.Is(err, changes.ErrTurnRunning) || errors.Is(err, conversation.ErrNotRecorded)
}

func wireTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func in(dir, p string) string {
	if dir == "" || p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func allIn(dir string, paths []string) []string {
	if paths == nil {
		return nil
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = in(dir, p)
	}
	return out
}
