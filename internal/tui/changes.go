package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/chatcmd"
	"github.com/parley-acp/parley/internal/toolui"
)

// What the agent changed in the workspace, as the conversation records it: after each
// turn, the files it created, changed or deleted (one line, expandable to the list);
// /changes lists the turns, /diff shows a file's diff, /undo and /rewind take changes
// back, /keep keeps them.

// changesItem is one turn's changes.
type changesItem struct {
	turn     changes.Turn
	expanded bool
}

func (c *changesItem) toggle()        { c.expanded = !c.expanded }
func (c *changesItem) foldable() bool { return len(c.turn.Changes) > 0 }

func (c *changesItem) render(r *renderCtx, width int) []string {
	added, removed := 0, 0
	for _, ch := range c.turn.Changes {
		added, removed = added+ch.Added, removed+ch.Removed
	}
	n := len(c.turn.Changes)
	files := "files"
	if n == 1 {
		files = "file"
	}
	verb := "Changed"
	if c.turn.Undo {
		verb = "The undo changed"
	}
	head := fmt.Sprintf("%s %d %s %s", verb, n, files, r.st.dim.Render(fmt.Sprintf("(+%d −%d)", added, removed)))
	if !c.expanded {
		var names []string
		for i, ch := range c.turn.Changes {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more", n-3))
				break
			}
			names = append(names, toolui.SafeText(ch.Rel))
		}
		head += ": " + strings.Join(names, ", ")
		return []string{r.st.accent.Render("◆ ") + head + r.st.dim.Render(" · /diff /undo /keep · ctrl+o lists")}
	}
	out := []string{r.st.accent.Render("◆ ") + head}
	for _, ch := range c.turn.Changes {
		out = append(out, "    "+changeLine(r, ch))
	}
	return out
}

func changeLine(r *renderCtx, ch changes.Change) string {
	kind := map[changes.Kind]string{changes.Added: "created", changes.Modified: "changed", changes.Deleted: "deleted"}[ch.Kind]
	line := fmt.Sprintf("%-8s %s %s", kind, toolui.SafeText(ch.Rel), r.st.dim.Render(fmt.Sprintf("(+%d −%d)", ch.Added, ch.Removed)))
	if ch.ModeChanged() {
		line += r.st.dim.Render(fmt.Sprintf(" mode %03o → %03o", ch.Before.Mode.Perm(), ch.After.Mode.Perm()))
	}
	if ch.RunsCode != "" {
		line += " " + r.st.warn.Render("makes git run code: "+toolui.SafeText(ch.RunsCode))
	}
	if ch.Status != changes.Pending {
		line += r.st.dim.Render(" " + string(ch.Status))
	}
	return line
}

func undoneText(res changes.UndoResult) string {
	var b strings.Builder
	turns := make([]string, len(res.Turns))
	for i, t := range res.Turns {
		turns[i] = strconv.Itoa(t)
	}
	fmt.Fprintf(&b, "Undone: turn %s", strings.Join(turns, ", "))
	for _, f := range res.Files {
		fmt.Fprintf(&b, "\n  %s %s", f.Did, toolui.SafeText(f.Rel))
	}
	if res.Record.Number > 0 {
		fmt.Fprintf(&b, "\n(/undo %d brings them back)", res.Record.Number)
	}
	return b.String()
}

// changesCommand runs /changes, /diff, /undo, /rewind and /keep.
func (m *model) changesCommand(name, arg string) tea.Cmd {
	cv := m.cur()
	conv := cv.conv.Conversation
	if !conv.Recorded() {
		cv.notice("parley does not record this conversation's changes (see the changes section of the configuration).", true)
		return nil
	}
	target := chatcmd.ReadTarget(m.opts.Workspace, strings.Fields(arg))
	id := cv.id
	run := func(f func(ctx context.Context) (item, string, error)) tea.Cmd {
		ctx := m.ctx
		return func() tea.Msg {
			it, text, err := f(ctx)
			return changesMsg{conv: id, item: it, text: text, err: err}
		}
	}
	switch name {
	case "changes":
		return run(func(ctx context.Context) (item, string, error) {
			turns, err := chatcmd.Changes(ctx, conv)
			if err != nil {
				return nil, "", err
			}
			if len(turns) == 0 {
				return nil, "Nothing changed in this conversation yet.", nil
			}
			return &changesListItem{turns: turns}, "", nil
		})
	case "diff":
		return run(func(ctx context.Context) (item, string, error) {
			found, err := chatcmd.Diffs(ctx, conv, target)
			if errors.Is(err, chatcmd.ErrNoChanges) {
				return nil, "Nothing changed to show.", nil
			}
			if err != nil {
				return nil, "", err
			}
			var diffs []changes.FileDiff
			for _, d := range found {
				diffs = append(diffs, d.FileDiff)
			}
			return &diffItem{diffs: diffs}, "", nil
		})
	case "undo", "rewind":
		if name == "rewind" && target.Turn == 0 {
			cv.notice("/rewind needs the turn to go back to before (/changes lists them).", true)
			return nil
		}
		return run(func(ctx context.Context) (item, string, error) {
			_, err := chatcmd.Undo(ctx, conv, target, name == "rewind")
			if ce, ok := errors.AsType[*changes.ConflictError](err); ok {
				return nil, "", fmt.Errorf("%v (/diff shows the file; parley never overwrites what changed since)", ce)
			}
			return nil, "", err // the conversation reports the undo (ChangesUndone)
		})
	case "keep":
		return run(func(ctx context.Context) (item, string, error) {
			_, err := chatcmd.Keep(ctx, conv, target)
			return nil, "", err
		})
	}
	return nil
}

// changesListItem is /changes' answer: every turn's changes, a line each, styled as it
// is drawn (what the agent named is made safe first, then styled: a notice would make
// the styling itself safe, and show its escape sequences as text).
type changesListItem struct {
	turns []changes.Turn
}

func (c *changesListItem) render(r *renderCtx, width int) []string {
	var out []string
	for _, t := range c.turns {
		label := t.Label
		if t.Undo {
			label = "undo: " + label
		}
		out = append(out, plainLines(fmt.Sprintf("Turn %d: %s", t.Number, toolui.SafeText(oneLine(label))), width)...)
		for _, ch := range t.Changes {
			out = append(out, hanging("    ", changeLine(r, ch), width)...)
		}
	}
	return out
}

// hanging wraps a styled line at width, its continuation lines indented under its start.
func hanging(indent, line string, width int) []string {
	ls := plainLines(line, width-len(indent))
	for i := range ls {
		ls[i] = indent + ls[i]
	}
	return ls
}

type changesMsg struct {
	conv int
	item item
	text string
	err  error
}

// diffItem is /diff's answer: files' unified diffs, coloured.
type diffItem struct {
	diffs []changes.FileDiff
}

func (d *diffItem) render(r *renderCtx, width int) []string {
	var out []string
	for _, fd := range d.diffs {
		out = append(out, r.st.bold.Render(fmt.Sprintf("Diff of %s (turn %d)", toolui.SafeText(fd.Change.Rel), fd.Turn)))
		if fd.Note != "" {
			out = append(out, r.st.dim.Render("  "+toolui.SafeText(fd.Note)))
		}
		if fd.ChangedSince {
			out = append(out, r.st.warn.Render("  the file has changed since that turn"))
		}
		for _, l := range strings.Split(strings.TrimRight(fd.Unified, "\n"), "\n") {
			if l == "" {
				continue
			}
			l = toolui.SafeText(expandTabs(l))
			switch {
			case strings.HasPrefix(l, "@@"):
				l = r.st.hunk.Render(l)
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
				l = r.st.dim.Render(l)
			case strings.HasPrefix(l, "+"):
				l = r.st.added.Render(l)
			case strings.HasPrefix(l, "-"):
				l = r.st.removed.Render(l)
			}
			out = append(out, "  "+l)
		}
	}
	return out
}
