package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/store"
)

// checkpointBudget bounds the originals one session keeps for undo; past it the oldest
// checkpoints expire (they can no longer be undone).
const checkpointBudget = 256 << 20

// checkpoints keeps, for one session, what each turn's writes replaced, so that a turn,
// or one file of it, can be undone or kept (store/checkpoints.go holds the records).
type checkpoints struct {
	store   *store.Store
	session string
	env     tools.Env
	budget  int64
}

// turnCheckpoint is the checkpoint of one turn (or one undo), made at its first write.
type turnCheckpoint struct {
	c     *checkpoints
	label string

	mu sync.Mutex // writes of one turn run one at a time; this keeps it so for the record
	cp *store.Checkpoint
}

func (c *checkpoints) begin(label string) *turnCheckpoint {
	if c == nil || c.store == nil {
		return nil
	}
	return &turnCheckpoint{c: c, label: label}
}

// write records the file's original (the first time the turn writes it), writes, and
// records what it left. If the original cannot be kept, the file is not written: an
// edit that cannot be undone is not made silently.
func (t *turnCheckpoint) write(ctx context.Context, change tools.Change, write func(context.Context) error) error {
	return t.apply(ctx, change.Path, change.Old, &change.New, write)
}

// apply records path's content before (nil: no file), runs do, and records after (nil:
// do removed the file).
func (t *turnCheckpoint) apply(ctx context.Context, path string, before, after *string, do func(context.Context) error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cp == nil {
		cp, err := t.c.store.NewCheckpoint(ctx, t.c.session, t.label)
		if err != nil {
			return &tools.Refusal{Message: fmt.Sprintf("parley could not start a checkpoint to make this change undoable (%v), so the file was not changed.", err)}
		}
		t.cp = &cp
	}
	var original []byte
	if before != nil {
		original = []byte(*before)
	}
	if _, err := t.c.store.RecordOriginal(ctx, t.cp.ID, path, original, hashOf(before)); err != nil {
		return &tools.Refusal{Message: fmt.Sprintf("parley could not keep a copy of the file to make this change undoable (%v), so the file was not changed.", err)}
	}
	if err := do(ctx); err != nil {
		return err
	}
	return t.c.store.RecordWritten(context.WithoutCancel(ctx), t.cp.ID, path, hashOf(after))
}

// hashOf is the hash of content, "" for no file.
func hashOf(content *string) string {
	if content == nil {
		return ""
	}
	return hash(*content)
}

// end bounds the session's storage once the turn is over. It returns the numbers of
// checkpoints that expired.
func (t *turnCheckpoint) end(ctx context.Context) []int {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	wrote := t.cp != nil
	t.mu.Unlock()
	if !wrote {
		return nil
	}
	expired, _ := t.c.store.ExpireCheckpoints(ctx, t.c.session, t.c.budget)
	return expired
}

// number is the checkpoint's number, 0 when the turn wrote nothing.
func (t *turnCheckpoint) number() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cp == nil {
		return 0
	}
	return t.cp.Number
}

func hash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// current reads what path holds now: its content's hash, or "" when there is no file.
func (c *checkpoints) current(ctx context.Context, path string) (content string, sum string, err error) {
	content, err = c.env.ReadFile(ctx, path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	return content, hash(content), nil
}
