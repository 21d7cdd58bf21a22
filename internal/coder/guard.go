package coder

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/coder/tools"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/workspace"
)

// callGuard is the tools.Guard of one tool call: commands and edits are judged, asked
// about when they must be, and every write goes into the turn's checkpoint.
type callGuard struct {
	call     pendingCall
	approver *approver
	judge    judge
	roots    *workspace.Roots
	turn     *turnCheckpoint // nil: nothing is kept (no database)
	cancel   func()          // ends the turn when the user cancels it from a question
	started  func()          // reports the call in progress, once it may go ahead
}

func (g *callGuard) Command(ctx context.Context, c tools.Command) error {
	line := c.Line
	if line == "" {
		line = safety.JoinArgv(c.Argv)
	}
	v := g.judge.command(c, g.roots.Dirs())
	auto := g.approver.auto
	q := question{
		call:     g.call,
		title:    "Run `" + line + "`",
		key:      v.key,
		covers:   v.covers,
		what:     "command",
		critical: v.tier == safety.Critical,
		noAlways: v.noAlways != "",
		// Harmless commands run unasked only when the settings say so (the default);
		// with --auto-approve none every command asks.
		auto:     auto.Commands || v.tier == safety.None && auto.Harmless,
		content:  commandContent(line, v),
		rawInput: map[string]string{"command": line, "cwd": c.Dir},
	}
	return g.proceed(g.approver.decide(ctx, q))
}

func (g *callGuard) Write(ctx context.Context, change tools.Change, write func(context.Context) error) error {
	if err := g.approveWrite(ctx, change); err != nil {
		return err
	}
	if g.turn == nil {
		return write(ctx)
	}
	return g.turn.write(ctx, change, write)
}

func (g *callGuard) approveWrite(ctx context.Context, change tools.Change) error {
	rel := g.display(change.Path)
	sensitive := g.judge.sensitive(change.Path, g.roots.Dirs())
	q := question{
		call:     g.call,
		title:    "Edit " + rel,
		key:      permission.EditKey(rel),
		covers:   permission.EditCovers(rel),
		what:     "edit of " + rel,
		auto:     g.approver.auto.Edits,
		content:  []acp.ToolCallContent{{Diff: &acp.Diff{Path: change.Path, OldText: change.Old, NewText: change.New}}},
		rawInput: json.RawMessage(g.call.Args),
	}
	if sensitive {
		q.title = "Edit " + rel + " (a sensitive file)"
		q.auto = g.approver.auto.SensitiveEdits
	}
	return g.proceed(g.approver.decide(ctx, q))
}

// proceed reports the call in progress when it may go ahead, and ends the turn when the user
// cancelled it.
func (g *callGuard) proceed(err error) error {
	err = g.outcome(err)
	if err == nil && g.started != nil {
		g.started()
	}
	return err
}

// outcome turns a cancelled question into the end of the turn.
func (g *callGuard) outcome(err error) error {
	if err == errTurnCancelled && g.cancel != nil {
		g.cancel()
		return context.Canceled
	}
	return err
}

func (g *callGuard) display(path string) string { return displayPath(g.roots, path) }

// displayPath is path relative to the first root, with slashes, or absolute outside it.
func displayPath(roots *workspace.Roots, path string) string {
	root := roots.Dirs()[0]
	if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return path
}

// approveMCP asks before a tool of an MCP server runs, unless the settings allow them.
func (a *approver) approveMCP(ctx context.Context, call pendingCall) error {
	return a.decide(ctx, question{
		call:     call,
		title:    "MCP " + call.Name,
		key:      permission.MCPKey(call.Name),
		covers:   call.Name,
		what:     "call of " + call.Name,
		auto:     a.auto.MCP,
		rawInput: json.RawMessage(call.Args),
	})
}

func rawJSON(v any) json.RawMessage {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(fmt.Sprintf("%q", fmt.Sprint(v)))
	}
	return raw
}
