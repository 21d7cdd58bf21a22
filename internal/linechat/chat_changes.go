package linechat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/chatcmd"
)

// The chat's /changes, /diff, /undo, /rewind and /keep (chatcmd does them), between
// turns, said as lines.

// listChanges shows every turn of the conversation that changed files, and its undos.
func (c *chat) listChanges(ctx context.Context) error {
	turns, err := chatcmd.Changes(ctx, c.conv)
	if err != nil {
		return err
	}
	if len(turns) == 0 {
		c.con.Say("No turn of this conversation has changed a file yet.")
		return nil
	}
	var lines []string
	for _, t := range turns {
		lines = append(lines, TurnHeading(t))
		for _, ch := range t.Changes {
			lines = append(lines, "  "+ChangeLine(ch, ch.Rel))
		}
	}
	c.con.Say("%s", strings.Join(lines, "\n"))
	return nil
}

// showDiff shows the diffs of the last turn that changed files, of turn TURN, or FILE's
// from the last turn that changed it (and how it changed since, if it did).
func (c *chat) showDiff(ctx context.Context, arg string) error {
	diffs, err := chatcmd.Diffs(ctx, c.conv, chatcmd.ReadTarget(c.session.Cwd, strings.Fields(arg)))
	if err != nil {
		return err
	}
	var out []string
	for _, d := range diffs {
		out = append(out, fmt.Sprintf("turn %d, %s:", d.Turn, ChangeLine(d.Change, d.Change.Rel)), DiffText(d.FileDiff))
		if d.Since != nil {
			out = append(out, fmt.Sprintf("%s changed since turn %d (an undo would not overwrite it):", d.Change.Rel, d.Turn), DiffText(*d.Since))
		}
	}
	c.con.Say("%s", strings.Join(out, "\n"))
	return nil
}

// undo runs /undo [FILE|TURN] (the last turn with changes to undo by default), or
// /rewind TURN.
func (c *chat) undo(ctx context.Context, arg string, rewind bool) error {
	res, err := chatcmd.Undo(ctx, c.conv, chatcmd.ReadTarget(c.session.Cwd, strings.Fields(arg)), rewind)
	if ce, ok := errors.AsType[*changes.ConflictError](err); ok {
		if ce.Partial != nil {
			c.con.Say("%s", undoneText(*ce.Partial))
		}
		c.con.Say("%s", ConflictText(ce, "/diff FILE shows how a file changed since its turn."))
		return nil
	}
	if err != nil {
		return err
	}
	c.con.Say("%s", undoneText(res))
	return nil
}

func undoneText(res changes.UndoResult) string {
	turns := make([]string, len(res.Turns))
	for i, n := range res.Turns {
		turns[i] = strconv.Itoa(n)
	}
	head := fmt.Sprintf("Undid turn %s (recorded as turn %d: /undo brings the changes back):", strings.Join(turns, ", "), res.Record.Number)
	if res.Record.Number == 0 {
		head = fmt.Sprintf("Undid turn %s (its files were already as they were):", strings.Join(turns, ", "))
	}
	lines := []string{head}
	for _, o := range res.Files {
		lines = append(lines, "  "+o.Rel+": "+o.Did)
	}
	return strings.Join(lines, "\n")
}

// keep runs /keep [TURN|FILE]: every pending change, turn TURN's, or FILE's.
func (c *chat) keep(ctx context.Context, arg string) error {
	kept, err := chatcmd.Keep(ctx, c.conv, chatcmd.ReadTarget(c.session.Cwd, strings.Fields(arg)))
	if err != nil {
		return err
	}
	if len(kept) == 0 {
		c.con.Say("Nothing to keep: no change is waiting to be kept or undone.")
		return nil
	}
	lines := []string{"Kept (these can no longer be undone):"}
	for _, k := range kept {
		lines = append(lines, fmt.Sprintf("  turn %d: %s", k.Turn, ChangeLine(k.Change, k.Change.Rel)))
	}
	c.con.Say("%s", strings.Join(lines, "\n"))
	return nil
}
