package linechat

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/conversation"
)

// How the record of changes reads in a terminal: the chat's /changes, /diff and /undo,
// and parley changes and parley undo.

// turnHeading names a turn: its number, when, and its prompt (or what it undid).
func TurnHeading(t changes.Turn) string {
	what := "turn " + strconv.Itoa(t.Number)
	if t.Undo {
		what += " (an undo)"
	}
	when := t.Started.Local().Format("2006-01-02 15:04")
	if t.Ended.IsZero() {
		when += ", still running (or parley stopped during it)"
	}
	return fmt.Sprintf("%s, %s: %s", what, when, OneLineSafe(t.Label))
}

// changeLine is a file of a turn: A, M or D, its path, the lines added and removed, and
// what the record says about it.
func ChangeLine(c changes.Change, path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", c.Kind, path)
	if c.Added+c.Removed > 0 || c.Kind != changes.Deleted && (c.Before.Kept || !c.Before.Exists) && c.After.Kept {
		fmt.Fprintf(&b, " +%d −%d", c.Added, c.Removed)
	}
	var notes []string
	if c.RunsCode != "" {
		notes = append(notes, "makes git run code: "+OneLineSafe(c.RunsCode))
	}
	if c.ModeChanged() {
		notes = append(notes, fmt.Sprintf("mode %03o → %03o", c.Before.Mode.Perm(), c.After.Mode.Perm()))
	}
	for _, v := range []changes.Version{c.Before, c.After} {
		if n := v.NotKept(); n != "" && (v.Binary || v.Large) {
			notes = append(notes, n)
			break
		}
	}
	if c.Status != changes.Pending {
		notes = append(notes, string(c.Status))
	} else if c.Before.Exists && !c.Before.Kept {
		notes = append(notes, "cannot be undone")
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
	}
	return b.String()
}

// conflictText says why an undo changed nothing, naming each file.
func ConflictText(ce *changes.ConflictError, diffHint string) string {
	var b strings.Builder
	if ce.Partial != nil {
		b.WriteString("The undo stopped (what it did is listed above, and can be undone in turn):\n")
	} else {
		b.WriteString("Nothing was undone:\n")
	}
	for _, c := range ce.Conflicts {
		fmt.Fprintf(&b, "  %s: %s\n", c.Rel, c.Reason)
	}
	if HasSince(ce) && diffHint != "" {
		fmt.Fprintf(&b, "Nothing you wrote was touched. %s", diffHint)
	}
	return strings.TrimRight(b.String(), "\n")
}

func HasSince(ce *changes.ConflictError) bool {
	for _, c := range ce.Conflicts {
		if c.Since {
			return true
		}
	}
	return false
}

// diffText is a file's diff as printed: the unified diff, or why there is none.
func DiffText(d changes.FileDiff) string {
	switch {
	case d.Unified != "":
		return strings.TrimRight(d.Unified, "\n")
	case d.Note != "":
		return d.Change.Rel + ": " + d.Note
	}
	return d.Change.Rel + ": no difference in its text"
}

// showTurnChanges says what a turn changed, a line per file, and how to review and undo
// it.
func (c *Console) showTurnChanges(e conversation.TurnChanges) {
	if e.Err != nil {
		c.Say("parley: the record of this turn's changes may be incomplete: %v", e.Err)
	}
	n := len(e.Record.Changes)
	if n == 0 {
		return
	}
	files := "files"
	if n == 1 {
		files = "file"
	}
	lines := []string{fmt.Sprintf("parley: turn %d changed %d %s (%s):", e.Record.Number, n, files, c.changesHint)}
	for _, ch := range e.Record.Changes {
		lines = append(lines, "  "+ChangeLine(ch, ch.Rel))
	}
	c.Say("%s", strings.Join(lines, "\n"))
}
