package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
)

// The session's /checkpoints, /undo and /keep, on its record of changes. A checkpoint is
// a turn that wrote files, or an undo; its number is the record's turn number.

// describe lists the session's checkpoints for /checkpoints.
func (c *checkpoints) describe(ctx context.Context) (string, error) {
	turns, err := c.rec.Turns(ctx)
	if err != nil {
		return "", err
	}
	if len(turns) == 0 {
		return "No checkpoints yet: parley makes one for each turn that changes files.", nil
	}
	var b strings.Builder
	b.WriteString("Checkpoints, oldest first (`/undo N` restores checkpoint N, `/keep N` accepts it; add a file to act on it alone):\n")
	for _, t := range turns {
		fmt.Fprintf(&b, "\n#%d  %s  %s\n", t.Number, t.Started.Local().Format("2006-01-02 15:04"), oneLine(t.Label, 60))
		for _, ch := range t.Changes {
			what := map[changes.Kind]string{changes.Added: "created", changes.Modified: "modified", changes.Deleted: "deleted"}[ch.Kind]
			lines := ""
			if ch.Added+ch.Removed > 0 {
				lines = fmt.Sprintf(" (+%d −%d)", ch.Added, ch.Removed)
			}
			fmt.Fprintf(&b, "    %-8s %-8s %s%s\n", what, ch.Status, ch.Rel, lines)
		}
	}
	return b.String(), nil
}

// undo runs /undo: checkpoint number (0: the newest with changes to undo), or only path.
// It never overwrites a change made since the agent wrote the file: then nothing is
// undone, the reply names the file, and how it changed is shown.
func (a *agent) undo(ctx context.Context, s *session, c command, path string, send func(acp.SessionUpdate)) {
	say := func(text string) { send(acp.AgentMessageChunk(acp.TextBlock(text))) }
	req := changes.UndoRequest{Turn: c.number}
	if path != "" {
		req.Paths = []string{path}
	}
	res, err := s.ckpts.rec.Undo(ctx, req)
	if ce, ok := errors.AsType[*changes.ConflictError](err); ok {
		for _, cf := range ce.Conflicts {
			if cf.Since {
				a.showChangedSince(ctx, s, cf, send)
			}
		}
		var b strings.Builder
		if ce.Partial != nil {
			b.WriteString(report(fmt.Sprintf("The undo stopped (what it did is checkpoint #%d, itself undoable with /undo)", ce.Partial.Record.Number), ce.Partial.Files))
		} else {
			b.WriteString("Nothing was undone:\n")
		}
		for _, cf := range ce.Conflicts {
			fmt.Fprintf(&b, "- %s: %s (checkpoint #%d); your version is left as it is\n", cf.Rel, cf.Reason, cf.Turn)
		}
		say(b.String())
		return
	}
	switch {
	case errors.Is(err, changes.ErrNoChange) && c.number != 0 && path == "":
		say(fmt.Sprintf("There is no checkpoint #%d. /checkpoints lists them.", c.number))
		return
	case errors.Is(err, changes.ErrNothingToUndo) && c.number != 0:
		say(fmt.Sprintf("Nothing to undo in checkpoint #%d: its files were kept or undone already.", c.number))
		return
	case errors.Is(err, changes.ErrNothingToUndo):
		say("Nothing to undo: no change is waiting to be kept or undone.")
		return
	case err != nil:
		say("Nothing was undone: " + err.Error())
		return
	}
	for _, o := range res.Files {
		a.reportRestore(ctx, s, res.Record.Number, o, send)
	}
	undid := make([]string, len(res.Turns))
	for i, n := range res.Turns {
		undid[i] = fmt.Sprintf("#%d", n)
	}
	say(report(fmt.Sprintf("Undo of checkpoint %s (itself undoable with /undo: checkpoint #%d)", strings.Join(undid, ", "), res.Record.Number), res.Files))
}

// reportRestore shows one restored file as an edit, with its diff, so an editor can
// follow it.
func (a *agent) reportRestore(ctx context.Context, s *session, undo int, o changes.Outcome, send func(acp.SessionUpdate)) {
	if o.Did == "already as it was" {
		return
	}
	content := []acp.ToolCallContent{}
	if d, err := s.ckpts.rec.Diff(ctx, changes.DiffRequest{Turn: undo, Path: o.Path}); err == nil && d.New != nil {
		content = append(content, acp.ToolCallContent{Diff: &acp.Diff{Path: o.Path, OldText: d.Old, NewText: *d.New}})
	}
	a.sendCompleted(s, "Undo "+o.Rel, o.Path, content, send)
}

// showChangedSince shows how a file changed since the checkpoint wrote it: what an undo
// would have overwritten.
func (a *agent) showChangedSince(ctx context.Context, s *session, cf changes.Conflict, send func(acp.SessionUpdate)) {
	d, err := s.ckpts.rec.Diff(ctx, changes.DiffRequest{Turn: cf.Turn, Path: cf.Path, Since: true})
	if err != nil {
		return
	}
	var content []acp.ToolCallContent
	switch {
	case d.New != nil:
		content = append(content, acp.ToolCallContent{Diff: &acp.Diff{Path: cf.Path, OldText: d.Old, NewText: *d.New}})
	case d.Unified != "":
		content = append(content, acp.ToolContent(acp.TextBlock(d.Unified)))
	default:
		content = append(content, acp.ToolContent(acp.TextBlock(cf.Rel+" is gone.")))
	}
	a.sendCompleted(s, cf.Rel+" changed since checkpoint #"+fmt.Sprint(cf.Turn), cf.Path, content, send)
}

func (a *agent) sendCompleted(s *session, title, path string, content []acp.ToolCallContent, send func(acp.SessionUpdate)) {
	id := acp.ToolCallID(fmt.Sprintf("call_%d", a.callIDs.Add(1)))
	send(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: title, Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusCompleted,
		Content: content, Locations: []acp.ToolCallLocation{{Path: path}}}})
}

// keep runs /keep: checkpoint number (0: every one), or only path.
func (c *checkpoints) keep(ctx context.Context, number int, path string) (string, error) {
	req := changes.KeepRequest{Turn: number}
	if path != "" {
		req.Paths = []string{path}
	}
	kept, err := c.rec.Keep(ctx, req)
	switch {
	case errors.Is(err, changes.ErrNoChange):
		return fmt.Sprintf("There is no checkpoint #%d. /checkpoints lists them.", number), nil
	case err != nil:
		return "", err
	case len(kept) == 0:
		return "Nothing to keep: no change is waiting to be kept or undone.", nil
	}
	var b strings.Builder
	b.WriteString("Kept:\n")
	for _, k := range kept {
		fmt.Fprintf(&b, "- %s: kept (checkpoint #%d)\n", k.Change.Rel, k.Turn)
	}
	return b.String(), nil
}

func report(head string, out []changes.Outcome) string {
	var b strings.Builder
	b.WriteString(head + ":\n")
	for _, o := range out {
		did := o.Did
		if did == "deleted" {
			did = "deleted (parley had created it)"
		}
		fmt.Fprintf(&b, "- %s: %s\n", o.Rel, did)
	}
	return b.String()
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
