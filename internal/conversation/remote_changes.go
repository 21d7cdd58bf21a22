package conversation

// The record of changes of a conversation on a parley server (AgentOptions.Dial): the
// server keeps it, so /changes, /diff and /undo ask the server (_parley/changes,
// _parley/diff, _parley/undo) and read its answers back into the record's types, which
// every front-end draws. Paths are the server's.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// ErrKeepRemote: _parley/keep says how many files it kept, not which.
var ErrKeepRemote = errors.New("over --connect, keep changes with the server's page (parley web's address)")

// serverCall makes the extension request method of the server about the session.
func (c *Conversation) serverCall(ctx context.Context, method string, params func(acp.SessionID) any, result any) error {
	return c.callSession(ctx, method, func(ctx context.Context, conn *acp.ClientConn, s Session) (func(*Conversation), error) {
		return nil, conn.CallExtension(ctx, method, params(s.ID), result)
	})
}

func (c *Conversation) remoteChanges(ctx context.Context) ([]changes.Turn, error) {
	var res parleyapi.ChangesResult
	err := c.serverCall(ctx, parleyapi.MethodChanges, func(id acp.SessionID) any { return parleyapi.ChangesParams{SessionID: id} }, &res)
	if err != nil {
		return nil, err
	}
	out := make([]changes.Turn, 0, len(res.Turns))
	for _, t := range res.Turns {
		out = append(out, turnFromWire(t))
	}
	return out, nil
}

func (c *Conversation) remoteDiff(ctx context.Context, req changes.DiffRequest) (changes.FileDiff, error) {
	var d parleyapi.DiffResult
	err := c.serverCall(ctx, parleyapi.MethodDiff, func(id acp.SessionID) any {
		return parleyapi.DiffParams{SessionID: id, Path: c.serverPath(req.Path), Turn: req.Turn, Since: req.Since}
	}, &d)
	if err != nil {
		return changes.FileDiff{}, err
	}
	change := changes.Change{Path: d.Path, Rel: d.Rel, Kind: changes.Kind(d.Kind), Status: changes.Pending}
	// The diff names the change; the turn's record says the rest of it (status, counts).
	if turns, err := c.remoteChanges(ctx); err == nil {
		for _, t := range turns {
			for _, ch := range t.Changes {
				if t.Number == d.Turn && ch.Path == d.Path {
					change = ch
				}
			}
		}
	}
	return changes.FileDiff{
		Turn: d.Turn, Change: change,
		Unified: d.Unified, Note: d.Note, ChangedSince: d.ChangedSince, Old: d.Before, New: d.After,
	}, nil
}

func (c *Conversation) remoteUndo(ctx context.Context, req changes.UndoRequest) (changes.UndoResult, error) {
	var res parleyapi.UndoResult
	err := c.serverCall(ctx, parleyapi.MethodUndo, func(id acp.SessionID) any {
		paths := make([]string, 0, len(req.Paths))
		for _, p := range req.Paths {
			paths = append(paths, c.serverPath(p))
		}
		return parleyapi.UndoParams{SessionID: id, Turn: req.Turn, Paths: paths, Rewind: req.Rewind}
	}, &res)
	if rpcErr, ok := errors.AsType[*acp.Error](err); ok && rpcErr.Code == parleyapi.CodeUndoConflict {
		var data parleyapi.ConflictData
		if json.Unmarshal(rpcErr.Data, &data) == nil {
			ce := &changes.ConflictError{}
			for _, x := range data.Conflicts {
				ce.Conflicts = append(ce.Conflicts, changes.Conflict{Path: x.Path, Rel: x.Rel, Turn: x.Turn, Reason: x.Reason, Since: x.Since})
			}
			if data.Partial != nil {
				partial := undoFromWire(*data.Partial)
				ce.Partial = &partial
			}
			return changes.UndoResult{}, ce
		}
	}
	if err != nil {
		return changes.UndoResult{}, err
	}
	return undoFromWire(res), nil
}

// serverPath is a path a view named for the server: one in the directory here (the
// terminal UI reads a FILE argument against it) is sent relative, which the server
// reads in its workspace; any other (the server's own, as the line chat makes them) as
// it is.
func (c *Conversation) serverPath(p string) string {
	if rel, err := filepath.Rel(c.opts.Roots.Dirs()[0], p); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return p
}

func undoFromWire(res parleyapi.UndoResult) changes.UndoResult {
	out := changes.UndoResult{Turns: res.Turns}
	for _, f := range res.Files {
		out.Files = append(out.Files, changes.Outcome{Path: f.Path, Rel: f.Rel, Did: f.Did})
	}
	if res.Record != nil {
		out.Record = turnFromWire(*res.Record)
	}
	return out
}

// turnFromWire is a turn as the server described it (changesrpc.Turn), in the record's
// terms: what the front-ends draw of a change (its kind, counts, status, whether its
// content is kept, a mode change) holds; what the wire does not carry (hashes, sizes)
// stays zero.
func turnFromWire(t parleyapi.ChangedTurn) changes.Turn {
	out := changes.Turn{Number: t.Number, Label: t.Label, Undo: t.Undo}
	out.Started, _ = time.Parse(time.RFC3339, t.Started)
	out.Ended, _ = time.Parse(time.RFC3339, t.Ended)
	for _, f := range t.Files {
		ch := changes.Change{Path: f.Path, Rel: f.Rel, Kind: changes.Kind(f.Kind), Added: f.Added, Removed: f.Removed,
			Status: changes.Status(f.Status), RunsCode: f.RunsCode}
		ch.Before.Exists, ch.After.Exists = ch.Kind != changes.Added, ch.Kind != changes.Deleted
		kept := f.Note == ""
		ch.Before.Kept, ch.After.Kept = kept && ch.Before.Exists, kept && ch.After.Exists
		if !kept {
			large, binary := f.Note == (changes.Version{Exists: true, Large: true}).NotKept(), f.Note == (changes.Version{Exists: true, Binary: true}).NotKept()
			ch.Before.Large, ch.After.Large = large, large
			ch.Before.Binary, ch.After.Binary = binary, binary
		}
		var before, after uint32
		if f.Mode != "" {
			if _, err := fmt.Sscanf(f.Mode, "%o → %o", &before, &after); err == nil {
				ch.Before.Mode, ch.After.Mode = fs.FileMode(before), fs.FileMode(after)
			}
		}
		out.Changes = append(out.Changes, ch)
	}
	return out
}
