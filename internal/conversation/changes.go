package conversation

import (
	"context"
	"errors"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// The record of what the agent changes (internal/changes), when Options.Changes is set.
// The hooks are small and run where the conversation already works off its actor: the
// snapshot that begins a turn and the one that ends it run on the helper goroutine that
// sends the prompt (so the turn's prompt leaves only once the workspace is recorded), the
// checkpoint of a write on the agent's request goroutine. The record has its own lock
// (one snapshot, write, undo or keep at a time in a workspace) and refuses an undo or a
// keep while a turn runs there, so nothing of it is actor state. Views read the record
// directly (Changes, Diff) and act on it (Undo, Keep); the actor only tells every view
// what changed (TurnChanges, ChangesUndone, ChangesKept).

// TurnChanges is what a turn changed in the workspace. When the conversation records
// changes (Recorded), every TurnEnded but a replay's is followed by its TurnChanges;
// Record's Changes are empty when the turn changed nothing (or never started). Err says the record is incomplete (the
// workspace could not be looked at, the database failed); what it has is still right.
type TurnChanges struct {
	Turn   int // the Prompt.ID of the turn
	Record changes.Turn
	Err    error
}

// ChangesUndone: an undo was made (by this view or another).
type ChangesUndone struct {
	Result changes.UndoResult
}

// ChangesKept: changes were kept.
type ChangesKept struct {
	Kept []changes.KeptChange
}

func (TurnChanges) event()   {}
func (ChangesUndone) event() {}
func (ChangesKept) event()   {}

// ErrNotRecorded is the answer of Changes, Diff, Undo and Keep when the conversation
// does not record changes (parley's database could not be opened, or recording is off).
var ErrNotRecorded = errors.New("parley is not recording changes in this conversation (its database could not be opened, or changes.off is set in config.json)")

// endTurnTimeout bounds the snapshot that ends a turn: it runs even when the turn was
// cancelled or the conversation is closing (parley run leaves right after), since what
// the agent did must be recorded.
const endTurnTimeout = time.Minute

// prepareChanges takes the workspace's first snapshot while the agent starts, so the
// first turn does not wait for it. It runs on a helper goroutine.
func (c *Conversation) prepareChanges() {
	rec := c.opts.Changes
	if rec == nil {
		return
	}
	ctx := c.ctx
	c.goHelper(func() {
		err := rec.Prepare(ctx)
		c.post(changesNoticeMsg{err: err})
	})
}

// beginChanges starts the turn's record; it runs on the turn's helper goroutine, before
// the prompt is sent.
func (c *Conversation) beginChanges(ctx context.Context, p Prompt) error {
	if c.opts.Changes == nil {
		return nil
	}
	return c.opts.Changes.BeginTurn(ctx, p.Text())
}

// endChanges ends the turn's record; it runs on the turn's helper goroutine, once the
// prompt has been answered.
func (c *Conversation) endChanges() (changes.Turn, error) {
	if c.opts.Changes == nil {
		return changes.Turn{}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), endTurnTimeout)
	defer cancel()
	return c.opts.Changes.EndTurn(ctx)
}

// emitChanges tells the views what the turn changed.
func (c *Conversation) emitChanges(turn int, rec changes.Turn, err error) {
	if c.opts.Changes == nil {
		return
	}
	c.emit(TurnChanges{Turn: turn, Record: rec, Err: err})
}

// recordSession tells the record which agent session the conversation is in.
func (c *Conversation) recordSession(id acp.SessionID, loaded bool) {
	if c.opts.Changes != nil {
		c.opts.Changes.SetAgentSession(string(id), loaded)
	}
}

type changesNoticeMsg struct{ err error }

func (m changesNoticeMsg) handle(c *Conversation) {
	c.helperDone()
	if m.err != nil && !errors.Is(m.err, context.Canceled) {
		c.emit(Notice{Text: "changes: " + m.err.Error()})
	}
}

// writeTextFile serves fs/write_text_file through the record: what the file holds is
// recorded first, and the write is not made when that fails.
func (a *Agent) writeTextFile(ctx context.Context, req *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	c, err := a.owner(req.SessionID)
	if err != nil || c.opts.Changes == nil {
		return a.fs.WriteTextFile(ctx, req)
	}
	var resp *acp.WriteTextFileResponse
	err = c.opts.Changes.Write(ctx, req.Path, []byte(req.Content), func() error {
		var err error
		resp, err = a.fs.WriteTextFile(ctx, req)
		return err
	})
	if nr, ok := errors.AsType[*changes.NotRecordedError](err); ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInternalError, "%v", nr)
	}
	return resp, err
}

// Recorded reports whether the conversation's changes are recorded: here (then every
// turn's TurnEnded is followed by its TurnChanges), or by the parley server it is on
// (Remote: Changes, Diff and Undo ask it; remote_changes.go).
func (c *Conversation) Recorded() bool { return c.opts.Changes != nil || c.Remote() }

// Remote reports that the agent is reached over AgentOptions.Dial (a parley server):
// it runs there, and the server confines it and records its changes.
func (c *Conversation) Remote() bool { return c.agent.opts.Dial != nil }

// Changes returns the conversation's turns that changed files, and its undos, oldest
// first.
func (c *Conversation) Changes(ctx context.Context) ([]changes.Turn, error) {
	if c.Remote() {
		return c.remoteChanges(ctx)
	}
	if c.opts.Changes == nil {
		return nil, ErrNotRecorded
	}
	return c.opts.Changes.Turns(ctx)
}

// Diff returns the diff of a file a turn changed (see changes.DiffRequest).
func (c *Conversation) Diff(ctx context.Context, req changes.DiffRequest) (changes.FileDiff, error) {
	if c.Remote() {
		return c.remoteDiff(ctx, req)
	}
	if c.opts.Changes == nil {
		return changes.FileDiff{}, ErrNotRecorded
	}
	return c.opts.Changes.Diff(ctx, req)
}

// Undo undoes a turn, some of its files, or every turn back to one (see
// changes.UndoRequest and Record.Undo: a file changed since is never overwritten, and a
// *changes.ConflictError names it). It is refused while a turn runs. Every view is told
// (ChangesUndone).
func (c *Conversation) Undo(ctx context.Context, req changes.UndoRequest) (changes.UndoResult, error) {
	var res changes.UndoResult
	var err error
	switch {
	case c.Remote():
		res, err = c.remoteUndo(ctx, req)
	case c.opts.Changes == nil:
		return changes.UndoResult{}, ErrNotRecorded
	default:
		res, err = c.opts.Changes.Undo(ctx, req)
	}
	if err == nil || res.Record.Number != 0 {
		c.post(emitMsg{ChangesUndone{Result: res}})
	}
	return res, err
}

// Keep keeps changes (see changes.KeepRequest): they can no longer be undone. Every view
// is told (ChangesKept).
func (c *Conversation) Keep(ctx context.Context, req changes.KeepRequest) ([]changes.KeptChange, error) {
	if c.Remote() {
		return nil, ErrKeepRemote
	}
	if c.opts.Changes == nil {
		return nil, ErrNotRecorded
	}
	kept, err := c.opts.Changes.Keep(ctx, req)
	if len(kept) > 0 {
		c.post(emitMsg{ChangesKept{Kept: kept}})
	}
	return kept, err
}

// emitMsg tells every view something that happened off the actor.
type emitMsg struct{ ev Event }

func (m emitMsg) handle(c *Conversation) { c.emit(m.ev) }

type prepareChangesMsg struct{}

func (prepareChangesMsg) handle(c *Conversation) {
	if !c.st.closed {
		c.prepareChanges()
	}
}
