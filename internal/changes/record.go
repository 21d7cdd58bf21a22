package changes

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/textdiff"
	"github.com/parley-acp/parley/internal/workspace"
)

// Log is the record of changes kept in one parley database, for one process: it hands out
// the Record of each conversation, and shares one tracker per workspace among them. Its
// methods are safe for concurrent use.
type Log struct {
	st     *store.Store
	limits Limits

	mu       sync.Mutex
	trackers map[string]*tracker // the workspaces followed, by first root
	pruned   bool
}

// NewLog returns the record kept in st, bounded by limits.
func NewLog(st *store.Store, limits Limits) *Log {
	return &Log{st: st, limits: limits.withDefaults(), trackers: map[string]*tracker{}}
}

// Limits are the limits in force.
func (l *Log) Limits() Limits { return l.limits }

// Record is the record of one conversation with an agent in a workspace: its turns, the
// files each created, changed or deleted, and what they held before. A conversation's
// record follows the workspace (snapshots at the start and end of each turn); parley's
// own agent records only what it writes. Its methods are safe for concurrent use; one
// snapshot, write, undo or keep runs at a time in a workspace.
type Record struct {
	log   *Log
	t     *tracker
	files Files
	roots *workspace.Roots
	agent string

	mu           sync.Mutex
	agentSession string
	reuse        bool      // the session was reopened: its earlier record continues
	sess         int64     // the conversation's row; 0 until it changed something
	sessOf       string    // the agent session sess records
	from         *origin   // the conversation whose record this one goes on in (ContinueFrom)
	open         *openTurn // the turn running now
	closed       bool
}

// Conversation returns the record of a conversation with agent (as the user named it) in
// the workspace roots: snapshots at the start and end of each turn find what the agent
// changed on disk, and Write checkpoints what it writes through parley. Close it when the
// conversation ends.
func (l *Log) Conversation(ctx context.Context, roots *workspace.Roots, agent string) (*Record, error) {
	t, err := l.tracker(ctx, roots, true)
	if err != nil {
		return nil, err
	}
	return &Record{log: l, t: t, files: RootsFiles(roots), roots: roots, agent: agent}, nil
}

// Agent returns the record of one session of parley's own agent: only what it writes
// (through Write) is recorded, read and restored through files (the client's fs/* when it
// offers them, so that an editor sees the undo). A session reopened later continues its
// record.
func (l *Log) Agent(ctx context.Context, roots *workspace.Roots, files Files, agent, session string) (*Record, error) {
	t, err := l.tracker(ctx, roots, false)
	if err != nil {
		return nil, err
	}
	return &Record{log: l, t: t, files: files, roots: roots, agent: agent, agentSession: session, reuse: true}, nil
}

// Open returns the record of a conversation already recorded in the workspace holding dir
// (the one whose root is dir or its nearest ancestor): the one updated last, or the one
// whose agent session id (or record number) is session. It is how `parley changes` and
// `parley undo` reach a conversation from the shell. Its undos write through the
// workspace's confined access.
func (l *Log) Open(ctx context.Context, dir, session string) (*Record, error) {
	ws, root, ok, err := l.st.ChangeWorkspaceFor(ctx, dir)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no change by an agent is recorded in %s: %w", dir, store.ErrNoChangeSession)
	}
	all, err := l.st.ChangeSessions(ctx, ws)
	if err != nil {
		return nil, err
	}
	var cs *store.ChangeSession
	for i := range all {
		if session == "" || all[i].AgentSession == session || strconv.FormatInt(all[i].ID, 10) == session {
			cs = &all[i]
			break
		}
	}
	if cs == nil && session == "" {
		return nil, fmt.Errorf("no change by an agent is recorded in %s: %w", root, store.ErrNoChangeSession)
	}
	if cs == nil {
		return nil, fmt.Errorf("no conversation %q is recorded in %s (parley changes --sessions lists them): %w", session, root, store.ErrNoChangeSession)
	}
	roots, err := workspace.NewRoots(root)
	if err != nil {
		return nil, fmt.Errorf("the workspace %s: %w", root, err)
	}
	t, err := l.tracker(ctx, roots, true)
	if err != nil {
		return nil, err
	}
	return &Record{log: l, t: t, files: RootsFiles(roots), roots: roots, agent: cs.Agent,
		agentSession: cs.AgentSession, reuse: true, sess: cs.ID, sessOf: cs.AgentSession}, nil
}

// Sessions lists the conversations recorded in the workspace holding dir, the one updated
// last first.
func (l *Log) Sessions(ctx context.Context, dir string) ([]store.ChangeSession, error) {
	ws, _, ok, err := l.st.ChangeWorkspaceFor(ctx, dir)
	if err != nil || !ok {
		return nil, err
	}
	return l.st.ChangeSessions(ctx, ws)
}

// tracker returns the tracker of the workspace: shared when it walks, a record's own when
// it does not.
func (l *Log) tracker(ctx context.Context, roots *workspace.Roots, walk bool) (*tracker, error) {
	root := roots.Dirs()[0]
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.trackers[root]; walk && t != nil {
		t.refs++
		return t, nil
	}
	ws, err := l.st.ChangeWorkspace(ctx, root)
	if err != nil {
		return nil, err
	}
	t := &tracker{log: l, ws: ws, root: root, roots: roots, walk: walk && !l.limits.Off, sem: make(chan struct{}, 1), refs: 1}
	if walk {
		l.trackers[root] = t
	}
	return t, nil
}

func (l *Log) release(t *tracker) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t.refs--
	if t.refs == 0 && l.trackers[t.root] == t {
		delete(l.trackers, t.root)
	}
}

// prune forgets, once per process, what is older than the limits allow.
func (l *Log) prune(ctx context.Context) error {
	l.mu.Lock()
	done := l.pruned
	l.pruned = true
	l.mu.Unlock()
	if done {
		return nil
	}
	return l.st.PruneChanges(ctx, time.Now().Add(-l.limits.MaxAge))
}

// Close releases the record; a turn still running is ended first.
func (r *Record) Close() {
	r.mu.Lock()
	closed := r.closed
	r.closed = true
	open := r.open != nil
	r.mu.Unlock()
	if closed {
		return
	}
	if open {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		r.EndTurn(ctx)
		cancel()
	}
	r.log.release(r.t)
}

// closeTimeout bounds the last snapshot of a record closed while its turn runs.
const closeTimeout = 30 * time.Second

// SetAgentSession says which ACP session the conversation is in now; loaded says it was
// reopened (session/load or resume), so its earlier record, if any, continues.
func (r *Record) SetAgentSession(id string, loaded bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.agentSession, r.reuse = id, loaded
}

// origin names an earlier conversation's record: its agent and agent session.
type origin struct{ agent, session string }

// ContinueFrom says the conversation goes on from the one agent had in agentSession (a
// hand-off, or a new session seeded to go on with it): its turns go on in that
// conversation's record, numbered after its turns, when it has one. Call it before the
// first turn.
func (r *Record) ContinueFrom(agent, agentSession string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.from = &origin{agent, agentSession}
}

// session returns the conversation's row, creating it at its first change.
func (r *Record) session(ctx context.Context) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sess != 0 && r.sessOf == r.agentSession {
		return r.sess, nil
	}
	if from := r.from; from != nil && r.sess == 0 {
		r.from = nil
		cs, ok, err := r.log.st.AdoptChangeSession(ctx, r.t.ws, from.agent, from.session, r.agent, r.agentSession)
		if err != nil {
			return 0, err
		}
		if ok {
			r.sess, r.sessOf = cs.ID, r.agentSession
			return r.sess, nil
		}
	}
	cs, err := r.log.st.ChangeSessionFor(ctx, r.t.ws, r.agent, r.agentSession, r.reuse)
	if err != nil {
		return 0, err
	}
	r.sess, r.sessOf = cs.ID, r.agentSession
	return r.sess, nil
}

func (r *Record) sessionRow() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sess
}

// Prepare takes the workspace's first snapshot, if this process has not taken it yet:
// what the conversation does while its agent starts, so its first turn does not wait.
func (r *Record) Prepare(ctx context.Context) error {
	if err := r.t.lock(ctx); err != nil {
		return err
	}
	defer r.t.unlock()
	if !r.t.walk || r.t.files != nil {
		return nil
	}
	return errors.Join(r.log.prune(ctx), r.t.snapshot(ctx, false))
}

// BeginTurn starts the record of a turn: a snapshot of the workspace (what changed since
// the last one is not the agent's: a hand edit, another tool), then every change found
// until EndTurn is the turn's. label is the prompt. An error says the workspace could
// not be looked at; the turn is recorded anyway (what the agent writes through parley).
func (r *Record) BeginTurn(ctx context.Context, label string) error {
	if err := r.t.lock(ctx); err != nil {
		return err
	}
	unlock := true
	defer func() {
		if unlock {
			r.t.unlock()
		}
	}()
	r.mu.Lock()
	prev := r.open
	r.mu.Unlock()
	var errs []error
	if prev != nil { // a turn that was never ended
		_, err := r.endLocked(ctx)
		errs = append(errs, err)
	}
	if r.t.walk {
		errs = append(errs, r.log.prune(ctx))
	}
	ot := &openTurn{rec: r, label: oneLine(label, 200), started: time.Now(), files: map[string]*turnFile{}}
	if late := r.t.startLate(ot); late != nil {
		// The rest of the snapshot is taken while the prompt is on its way (late.go); the
		// lock goes with it.
		r.mu.Lock()
		r.open = ot
		r.mu.Unlock()
		unlock = false
		r.t.takeLate(ctx, late)
		return errors.Join(errs...)
	}
	errs = append(errs, r.t.snapshot(ctx, true))
	r.mu.Lock()
	r.open = ot
	r.mu.Unlock()
	r.t.open = append(r.t.open, ot)
	return errors.Join(errs...)
}

// EndTurn ends the record of the turn: a snapshot finds what changed on disk since the
// last one, and the turn's record is complete. It returns the turn (no Changes when it
// changed nothing).
func (r *Record) EndTurn(ctx context.Context) (Turn, error) {
	if err := r.t.lock(ctx); err != nil {
		return Turn{}, err
	}
	defer r.t.unlock()
	return r.endLocked(ctx)
}

func (r *Record) endLocked(ctx context.Context) (Turn, error) {
	r.mu.Lock()
	ot := r.open
	r.mu.Unlock()
	if ot == nil {
		return Turn{}, nil
	}
	snapErr := r.t.snapshot(ctx, false)
	r.mu.Lock()
	r.open = nil
	r.mu.Unlock()
	for i, o := range r.t.open {
		if o == ot {
			r.t.open = append(r.t.open[:i], r.t.open[i+1:]...)
			break
		}
	}
	if len(r.t.open) == 0 {
		r.t.view = nil // the next turn takes its own
	}
	turn, err := r.finish(ctx, ot)
	return turn, errors.Join(ot.beginErr, snapErr, err)
}

// finish completes a turn's record: files it left as it found them are forgotten, the
// others get their line counts; past the workspace's budget the oldest turns expire.
func (r *Record) finish(ctx context.Context, ot *openTurn) (Turn, error) {
	if ot.turn.ID == 0 {
		return Turn{}, nil // it changed nothing
	}
	type lines struct{ added, removed int }
	counts := map[string]lines{}
	for path, f := range ot.files {
		if f.before.same(f.after) || f.before.kind != kindText && f.after.kind != kindText {
			continue
		}
		before, ok1 := r.content(ctx, f.before)
		after, ok2 := r.content(ctx, f.after)
		if ok1 && ok2 {
			a, d := textdiff.Counts(string(before), string(after))
			counts[path] = lines{a, d}
		}
	}
	err := r.log.st.UpdateChanges(ctx, func(tx *store.ChangesTx) error {
		for path, f := range ot.files {
			if f.before.same(f.after) {
				if err := tx.DeleteTurnFile(ot.turn.ID, path); err != nil {
					return err
				}
				continue
			}
			if c, ok := counts[path]; ok {
				if err := tx.SetTurnFileLines(ot.turn.ID, path, c.added, c.removed); err != nil {
					return err
				}
			}
		}
		return tx.EndTurn(ot.turn.ID, time.Now())
	})
	if err != nil {
		return Turn{}, fmt.Errorf("recording the end of the turn: %w", err)
	}
	if r.t.kept > r.log.limits.MaxBytes {
		if _, err := r.log.st.ExpireChanges(ctx, r.t.ws, r.log.limits.MaxBytes); err != nil {
			return Turn{}, err
		}
		if r.t.kept, err = r.log.st.ChangeBytes(ctx, r.t.ws); err != nil {
			return Turn{}, err
		}
	}
	return r.turnByID(ctx, ot.turn.Session, ot.turn.ID)
}

// content returns a version's kept content. An empty file is always known.
func (r *Record) content(ctx context.Context, v version) ([]byte, bool) {
	if !v.exists() {
		return nil, true
	}
	if v.hash == "" {
		return nil, false
	}
	if v.size == 0 && v.hash == hashOf(nil) {
		return []byte{}, true
	}
	b, err := r.log.st.ChangeBlob(ctx, r.t.ws, v.hash)
	return b, err == nil
}

// writeKeepLimit is how much of a file written through parley the record keeps: all
// that an agent could have read of it.
const writeKeepLimit = workspace.MaxReadBytes

// Write checkpoints a write the agent asked of parley (fs/write_text_file): what the file
// holds is recorded first, then write runs, then what it left. If the file cannot be
// recorded, write does not run and the error says why: an edit that cannot be undone is
// not made silently. A path the workspace refuses is left to write, which refuses it.
func (r *Record) Write(ctx context.Context, path string, content []byte, write func() error) error {
	abs, err := r.roots.ResolveForWrite(path)
	if err != nil {
		return write()
	}
	if err := r.t.lock(ctx); err != nil {
		return err
	}
	defer r.t.unlock()
	cur, err := r.files.Read(ctx, abs, writeKeepLimit)
	if err != nil {
		return &NotRecordedError{Path: path, Err: fmt.Errorf("reading it: %w", err)}
	}
	curV, curContent := versionOfState(cur)
	r.mu.Lock()
	ot := r.open
	r.mu.Unlock()
	adhoc := ot == nil
	if adhoc { // between turns: a record of its own
		ot = &openTurn{rec: r, label: "written by the agent between turns", started: time.Now(), files: map[string]*turnFile{}}
	}
	if _, err := r.session(ctx); err != nil {
		return &NotRecordedError{Path: path, Err: err}
	}
	// What changed on disk since the last snapshot is the running turns' (or nobody's).
	var prior *delta
	var blobs []store.Blob
	if r.t.files != nil {
		e := r.t.files[abs]
		ev := e.version()
		if e != nil && e.blob != "" { // vouched for by git: what it held is git's
			if curContent != nil && !cur.Linked && cur.stat.same(e.stat) && gitBlobID(curContent) == e.blob {
				ev = curV
			} else {
				res := r.t.resolve(ctx, []*entry{e})
				ev, blobs = res[e].v, keepResolved(blobs, res)
			}
		}
		if !ev.same(curV) {
			prior = &delta{path: abs, before: ev, after: curV}
		}
	}
	if curContent != nil && !cur.Linked {
		blobs = append(blobs, store.Blob{Hash: curV.hash, Content: curContent})
	}
	created := map[*openTurn]store.ChangeTurn{}
	err = r.log.st.UpdateChanges(ctx, func(tx *store.ChangesTx) error {
		if err := tx.PutBlobs(r.t.ws, blobs); err != nil {
			return err
		}
		if prior != nil {
			for _, o := range r.t.open {
				if err := o.record(tx, created, abs, prior.before, prior.after, false); err != nil {
					return err
				}
			}
		}
		return ot.record(tx, created, abs, curV, curV, true)
	})
	if err != nil {
		return &NotRecordedError{Path: path, Err: err}
	}
	for o, ct := range created {
		o.turn = ct
	}
	if prior != nil {
		for _, o := range r.t.open {
			o.apply(abs, prior.before, prior.after, false)
		}
	}
	ot.apply(abs, curV, curV, true)

	writeErr := write()
	if writeErr == nil {
		writeErr = r.recordWritten(ctx, ot, abs, content)
	}
	if adhoc {
		if _, err := r.finish(context.WithoutCancel(ctx), ot); err != nil && writeErr == nil {
			writeErr = err
		}
	}
	return writeErr
}

// NotRecordedError is Write's answer when what the file holds could not be recorded: the
// write was not made.
type NotRecordedError struct {
	Path string
	Err  error
}

func (e *NotRecordedError) Error() string {
	return fmt.Sprintf("parley could not record what %s holds before the write (%v), so it was not written", e.Path, e.Err)
}

func (e *NotRecordedError) Unwrap() error { return e.Err }

// recordWritten records what a write left; a failure here leaves the file written and
// the record saying it was not (an undo then finds it changed, and stops).
func (r *Record) recordWritten(ctx context.Context, ot *openTurn, abs string, content []byte) error {
	ctx = context.WithoutCancel(ctx) // the write happened: record it
	after := version{kind: kindText, hash: hashOf(content), size: int64(len(content))}
	if isBinary(content) {
		after.kind = kindBinary
	}
	st, err := r.files.Read(ctx, abs, 0)
	if err == nil && st.stat != (fileStat{}) {
		after.sig = st.stat.sig()
		after.mode = permOf(st.stat.mode)
	}
	var put []store.ChangeFile
	var e *entry
	if r.t.files != nil && st.stat != (fileStat{}) {
		e = &entry{stat: st.stat, kind: after.kind, hash: after.hash, racy: true}
		put = append(put, e.stored(abs))
	}
	created := map[*openTurn]store.ChangeTurn{}
	err = r.log.st.UpdateChanges(ctx, func(tx *store.ChangesTx) error {
		if err := tx.PutBlobs(r.t.ws, []store.Blob{{Hash: after.hash, Content: content}}); err != nil {
			return err
		}
		if err := tx.PutFiles(r.t.ws, put); err != nil {
			return err
		}
		return ot.record(tx, created, abs, ot.files[abs].before, after, true)
	})
	if err != nil {
		return fmt.Errorf("%s was written, but parley could not record it (%w): an undo of this turn will leave it as it is", abs, err)
	}
	ot.apply(abs, none, after, true)
	if e != nil {
		r.t.files[abs] = e
	}
	r.t.kept += int64(len(content))
	return nil
}

// oneLine is s on one line, at most n bytes (cut at a rune boundary).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// display is path as the user sees it: relative to the first root when inside it.
func (r *Record) display(path string) string {
	root := r.roots.Dirs()[0]
	if rel, err := filepath.Rel(root, path); err == nil && within(root, path) {
		return filepath.ToSlash(rel)
	}
	return path
}
