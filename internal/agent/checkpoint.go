package agent

import (
	"context"
	"errors"
	"io/fs"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/workspace"
)

// checkpoints is a session's record of changes (internal/changes, the mechanism every
// front-end's record uses): what each turn wrote, and what the files held before, so a
// turn, or one file of it, can be undone or kept. The agent records only what its tools
// write (through the guard, so every edit is recorded before it is made), read and
// restored through the tools' own access: the client's fs/* when it offers them, so an
// editor sees an undo as it sees an edit.
type checkpoints struct {
	rec   *changes.Record
	roots *workspace.Roots
}

// newCheckpoints returns the session's record; nil when the agent keeps nothing (no
// database) or it cannot be opened (the agent's log says why).
func (a *agent) newCheckpoints(ctx context.Context, id acp.SessionID, roots *workspace.Roots, env tools.Env) *checkpoints {
	if a.changes == nil {
		return nil
	}
	rec, err := a.changes.Agent(ctx, roots, envFiles{env}, "parley-agent", string(id))
	if err != nil {
		a.opts.Logger.Warn("checkpoints are off for this session", "session", id, "error", err)
		return nil
	}
	return &checkpoints{rec: rec, roots: roots}
}

func (c *checkpoints) close() {
	if c != nil {
		c.rec.Close()
	}
}

// turnCheckpoint is the record of one turn's writes.
type turnCheckpoint struct {
	c *checkpoints
}

func (c *checkpoints) begin(ctx context.Context, label string) *turnCheckpoint {
	if c == nil {
		return nil
	}
	c.rec.BeginTurn(ctx, label) // only writes are recorded: there is no snapshot to fail
	return &turnCheckpoint{c: c}
}

// write records the file's content (the first time the turn writes it), writes, and
// records what it left. If the content cannot be recorded, the file is not written: an
// edit that cannot be undone is not made silently.
func (t *turnCheckpoint) write(ctx context.Context, change tools.Change, write func(context.Context) error) error {
	err := t.c.rec.Write(ctx, change.Path, []byte(change.New), func() error { return write(ctx) })
	if nr, ok := errors.AsType[*changes.NotRecordedError](err); ok && ctx.Err() == nil {
		return &tools.Refusal{Message: nr.Error()}
	}
	return err
}

// end completes the turn's record.
func (t *turnCheckpoint) end(ctx context.Context) {
	if t != nil {
		t.c.rec.EndTurn(ctx)
	}
}

// envFiles reads, writes and removes through the tools' access.
type envFiles struct{ env tools.Env }

func (e envFiles) Read(ctx context.Context, path string, limit int64) (changes.State, error) {
	content, err := e.env.ReadFile(ctx, path)
	if errors.Is(err, fs.ErrNotExist) {
		return changes.State{}, nil
	}
	if err != nil {
		return changes.State{}, err
	}
	// The whole file came anyway (the client's fs/read_text_file has no size limit to
	// ask for): keep it, whatever the limit.
	return changes.State{Exists: true, Content: []byte(content), Size: int64(len(content))}, nil
}

func (e envFiles) Write(ctx context.Context, path string, content []byte) error {
	return e.env.WriteFile(ctx, path, string(content))
}

func (e envFiles) Remove(ctx context.Context, path string) error { return e.env.Remove(ctx, path) }
