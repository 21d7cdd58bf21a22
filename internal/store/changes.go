package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The record of changes (internal/changes keeps the logic; this is its storage). Kinds of
// a file's version, and statuses of a file a turn changed, are the strings the schema's
// CHECK constraints allow.

// ChangeFile is a file as a workspace's last snapshot saw it.
type ChangeFile struct {
	Path         string
	Size         int64
	Mtime, Ctime int64 // Unix nanoseconds
	Inode        uint64
	Mode         uint32
	Kind         string // "text", "binary" or "large"
	Hash         string // SHA-256 (hex); "" when the file was too large to read
}

// Blob is content kept, by its SHA-256 (hex).
type Blob struct {
	Hash    string
	Content []byte
}

// ChangeVersion is one side of a file's change: what it was before the turn, or after.
type ChangeVersion struct {
	Kind string // "none" (no file), "text", "binary" or "large"
	Hash string // "" for none and for a file too large to read
	Size int64
	Sig  string // size, times and inode: identifies a file too large to read
	Mode uint32 // permission bits (0o777); 0: not known
	Kept bool   // (read only) its content is in the store
}

// ChangeTurnFile is a file a turn created, changed or deleted.
type ChangeTurnFile struct {
	Path           string
	Before, After  ChangeVersion
	Added, Removed int
	Written        bool   // the agent wrote it through parley (fs/write_text_file)
	Status         string // "pending", "undone", "kept" or "expired"
}

// ChangeTurn is a turn that changed files, or an undo, with its files in path order.
type ChangeTurn struct {
	ID        int64
	Session   int64
	Number    int
	Label     string
	Undo      bool
	StartedAt time.Time
	EndedAt   time.Time // zero while it runs
	Files     []ChangeTurnFile
}

// ChangeSession is a conversation with an agent in a workspace.
type ChangeSession struct {
	ID           int64
	Workspace    int64
	Root         string // the workspace's first root
	Agent        string
	AgentSession string // the ACP session id
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// ErrNoBlob is ChangeBlob's answer for content that is not kept.
var ErrNoBlob = errors.New("the content is not kept")

// ErrNoChangeSession is the answer when no conversation was recorded.
var ErrNoChangeSession = errors.New("no conversation recorded")

// ChangeWorkspace returns the id of the workspace whose first root is root, creating it,
// and marks it used now.
func (s *Store) ChangeWorkspace(ctx context.Context, root string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `
		INSERT INTO change_workspaces (root, used_at) VALUES (?, ?)
		ON CONFLICT (root) DO UPDATE SET used_at = excluded.used_at
		RETURNING id`, root, time.Now().UnixMilli()).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("recording the workspace %s: %w", root, err)
	}
	return id, nil
}

// ChangeWorkspaceFor returns the recorded workspace that holds dir: the one whose root is
// dir or its nearest ancestor. ok is false when there is none.
func (s *Store) ChangeWorkspaceFor(ctx context.Context, dir string) (id int64, root string, ok bool, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, root FROM change_workspaces`)
	if err != nil {
		return 0, "", false, fmt.Errorf("finding the workspace of %s: %w", dir, err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int64
		var r string
		if err := rows.Scan(&i, &r); err != nil {
			return 0, "", false, fmt.Errorf("finding the workspace of %s: %w", dir, err)
		}
		if within(r, dir) && len(r) > len(root) {
			id, root, ok = i, r, true
		}
	}
	return id, root, ok, rows.Err()
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ChangeFiles returns the workspace's files as its last snapshot saw them.
func (s *Store) ChangeFiles(ctx context.Context, workspace int64) ([]ChangeFile, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, size, mtime, ctime, inode, mode, kind, coalesce(hash, '')
		FROM change_files WHERE workspace_id = ?`, workspace)
	if err != nil {
		return nil, fmt.Errorf("reading the workspace's files: %w", err)
	}
	defer rows.Close()
	var out []ChangeFile
	for rows.Next() {
		var f ChangeFile
		var inode int64
		if err := rows.Scan(&f.Path, &f.Size, &f.Mtime, &f.Ctime, &inode, &f.Mode, &f.Kind, &f.Hash); err != nil {
			return nil, fmt.Errorf("reading the workspace's files: %w", err)
		}
		f.Inode = uint64(inode)
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the workspace's files: %w", err)
	}
	return out, nil
}

// ChangeBlob returns kept content, or ErrNoBlob.
func (s *Store) ChangeBlob(ctx context.Context, workspace int64, hash string) ([]byte, error) {
	var content []byte
	err := s.db.QueryRowContext(ctx, `SELECT content FROM change_blobs WHERE workspace_id = ? AND hash = ?`, workspace, hash).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoBlob
	}
	if err != nil {
		return nil, fmt.Errorf("reading kept content: %w", err)
	}
	if content == nil {
		content = []byte{} // an empty file, not a missing one
	}
	return content, nil
}

// ChangeBytes is how much content the workspace keeps.
func (s *Store) ChangeBytes(ctx context.Context, workspace int64) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(sum(size), 0) FROM change_blobs WHERE workspace_id = ?`, workspace).Scan(&n); err != nil {
		return 0, fmt.Errorf("measuring the kept content: %w", err)
	}
	return n, nil
}

// ChangeSessionFor returns a conversation with agent in its session agentSession: with
// reuse, the one recorded last (a session reopened continues its record), else a new one.
// It is marked updated now.
func (s *Store) ChangeSessionFor(ctx context.Context, workspace int64, agent, agentSession string, reuse bool) (ChangeSession, error) {
	now := time.Now()
	cs := ChangeSession{Workspace: workspace, Agent: agent, AgentSession: agentSession, UpdatedAt: now}
	var created int64
	err := sql.ErrNoRows
	if reuse {
		err = s.db.QueryRowContext(ctx, `SELECT id, created_at FROM change_sessions
			WHERE workspace_id = ? AND agent = ? AND agent_session = ? ORDER BY id DESC LIMIT 1`,
			workspace, agent, agentSession).Scan(&cs.ID, &created)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		cs.CreatedAt = now
		err = s.db.QueryRowContext(ctx, `INSERT INTO change_sessions (workspace_id, agent, agent_session, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id`, workspace, agent, agentSession, now.UnixMilli(), now.UnixMilli()).Scan(&cs.ID)
	case err == nil:
		cs.CreatedAt = time.UnixMilli(created)
		_, err = s.db.ExecContext(ctx, `UPDATE change_sessions SET updated_at = ? WHERE id = ?`, now.UnixMilli(), cs.ID)
	}
	if err != nil {
		return cs, fmt.Errorf("recording the conversation: %w", err)
	}
	return cs, nil
}

// ChangeSessions returns the workspace's conversations, the most recently updated first.
func (s *Store) ChangeSessions(ctx context.Context, workspace int64) ([]ChangeSession, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT s.id, w.root, s.agent, s.agent_session, s.created_at, s.updated_at
		FROM change_sessions s JOIN change_workspaces w ON w.id = s.workspace_id
		WHERE s.workspace_id = ? ORDER BY s.updated_at DESC, s.id DESC`, workspace)
	if err != nil {
		return nil, fmt.Errorf("listing the conversations: %w", err)
	}
	defer rows.Close()
	var out []ChangeSession
	for rows.Next() {
		cs := ChangeSession{Workspace: workspace}
		var created, updated int64
		if err := rows.Scan(&cs.ID, &cs.Root, &cs.Agent, &cs.AgentSession, &created, &updated); err != nil {
			return nil, fmt.Errorf("listing the conversations: %w", err)
		}
		cs.CreatedAt, cs.UpdatedAt = time.UnixMilli(created), time.UnixMilli(updated)
		out = append(out, cs)
	}
	return out, rows.Err()
}

// ChangeTurns returns the session's turns and undos, oldest first, with their files.
func (s *Store) ChangeTurns(ctx context.Context, session int64) ([]ChangeTurn, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT t.id, t.number, t.label, t.undo, t.started_at, coalesce(t.ended_at, 0),
			f.path, f.before_kind, coalesce(f.before_hash, ''), f.before_size, f.before_sig,
			f.after_kind, coalesce(f.after_hash, ''), f.after_size, f.after_sig,
			f.added, f.removed, f.written, f.status, bb.hash IS NOT NULL, ab.hash IS NOT NULL,
			f.before_mode, f.after_mode
		FROM change_turns t JOIN change_sessions s ON s.id = t.session_id
		LEFT JOIN change_turn_files f ON f.turn_id = t.id
		LEFT JOIN change_blobs bb ON bb.workspace_id = s.workspace_id AND bb.hash = f.before_hash
		LEFT JOIN change_blobs ab ON ab.workspace_id = s.workspace_id AND ab.hash = f.after_hash
		WHERE t.session_id = ? ORDER BY t.number, f.path`, session)
	if err != nil {
		return nil, fmt.Errorf("listing the turns: %w", err)
	}
	defer rows.Close()
	var out []ChangeTurn
	for rows.Next() {
		var t ChangeTurn
		var started, ended int64
		var path, bk, bh, bs, ak, ah, as, status sql.NullString
		var bsize, asize, added, removed sql.NullInt64
		var written, bkept, akept sql.NullBool
		var bmode, amode sql.NullInt64
		if err := rows.Scan(&t.ID, &t.Number, &t.Label, &t.Undo, &started, &ended,
			&path, &bk, &bh, &bsize, &bs, &ak, &ah, &asize, &as, &added, &removed, &written, &status, &bkept, &akept,
			&bmode, &amode); err != nil {
			return nil, fmt.Errorf("listing the turns: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].ID != t.ID {
			t.Session, t.StartedAt = session, time.UnixMilli(started)
			if ended != 0 {
				t.EndedAt = time.UnixMilli(ended)
			}
			out = append(out, t)
		}
		if path.Valid {
			last := &out[len(out)-1]
			last.Files = append(last.Files, ChangeTurnFile{
				Path:    path.String,
				Before:  ChangeVersion{Kind: bk.String, Hash: bh.String, Size: bsize.Int64, Sig: bs.String, Mode: uint32(bmode.Int64), Kept: bkept.Bool},
				After:   ChangeVersion{Kind: ak.String, Hash: ah.String, Size: asize.Int64, Sig: as.String, Mode: uint32(amode.Int64), Kept: akept.Bool},
				Added:   int(added.Int64),
				Removed: int(removed.Int64),
				Written: written.Bool,
				Status:  status.String,
			})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing the turns: %w", err)
	}
	return out, nil
}

// UpdateChanges runs f in one transaction: what a snapshot, a checkpoint or an undo
// records is all there or not at all.
func (s *Store) UpdateChanges(ctx context.Context, f func(tx *ChangesTx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("recording changes: %w", err)
	}
	defer tx.Rollback()
	if err := f(&ChangesTx{ctx: ctx, tx: tx}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("recording changes: %w", err)
	}
	return nil
}

// ChangesTx is a transaction of UpdateChanges.
type ChangesTx struct {
	ctx context.Context
	tx  *sql.Tx
}

// rowsPerInsert is how many rows one INSERT carries: one statement per row costs more
// than the rows themselves.
const rowsPerInsert = 200

// insertRows runs prefix followed by n rows of cols placeholders, in batches.
func (t *ChangesTx) insertRows(prefix string, suffix string, cols, n int, args func(i int) []any) error {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	for start := 0; start < n; start += rowsPerInsert {
		end := min(n, start+rowsPerInsert)
		var b strings.Builder
		b.WriteString(prefix)
		vals := make([]any, 0, (end-start)*cols)
		for i := start; i < end; i++ {
			if i > start {
				b.WriteString(", ")
			}
			b.WriteString(row)
			vals = append(vals, args(i)...)
		}
		b.WriteString(suffix)
		if _, err := t.tx.ExecContext(t.ctx, b.String(), vals...); err != nil {
			return err
		}
	}
	return nil
}

// PutBlobs keeps content (content already kept is left as it is).
func (t *ChangesTx) PutBlobs(workspace int64, blobs []Blob) error {
	err := t.insertRows(`INSERT OR IGNORE INTO change_blobs (workspace_id, hash, size, content) VALUES `, "", 4, len(blobs), func(i int) []any {
		content := blobs[i].Content
		if content == nil {
			content = []byte{}
		}
		return []any{workspace, blobs[i].Hash, len(content), content}
	})
	if err != nil {
		return fmt.Errorf("keeping content: %w", err)
	}
	return nil
}

// PutFiles records files as the snapshot saw them.
func (t *ChangesTx) PutFiles(workspace int64, files []ChangeFile) error {
	err := t.insertRows(`INSERT OR REPLACE INTO change_files (workspace_id, path, size, mtime, ctime, inode, mode, kind, hash) VALUES `, "", 9, len(files), func(i int) []any {
		f := files[i]
		return []any{workspace, f.Path, f.Size, f.Mtime, f.Ctime, int64(f.Inode), f.Mode, f.Kind, nullable(f.Hash)}
	})
	if err != nil {
		return fmt.Errorf("recording the workspace's files: %w", err)
	}
	return nil
}

// DeleteFiles forgets files the snapshot no longer saw.
func (t *ChangesTx) DeleteFiles(workspace int64, paths []string) error {
	for _, p := range paths {
		if _, err := t.tx.ExecContext(t.ctx, `DELETE FROM change_files WHERE workspace_id = ? AND path = ?`, workspace, p); err != nil {
			return fmt.Errorf("recording the workspace's files: %w", err)
		}
	}
	return nil
}

// NewTurn starts the session's next turn (or undo).
func (t *ChangesTx) NewTurn(session int64, label string, undo bool, started time.Time) (ChangeTurn, error) {
	ct := ChangeTurn{Session: session, Label: label, Undo: undo, StartedAt: started}
	if err := t.tx.QueryRowContext(t.ctx, `SELECT coalesce(max(number), 0) + 1 FROM change_turns WHERE session_id = ?`, session).Scan(&ct.Number); err != nil {
		return ct, fmt.Errorf("recording a turn: %w", err)
	}
	if err := t.tx.QueryRowContext(t.ctx, `INSERT INTO change_turns (session_id, number, label, undo, started_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		session, ct.Number, label, undo, started.UnixMilli()).Scan(&ct.ID); err != nil {
		return ct, fmt.Errorf("recording a turn: %w", err)
	}
	if _, err := t.tx.ExecContext(t.ctx, `UPDATE change_sessions SET updated_at = ? WHERE id = ?`, started.UnixMilli(), session); err != nil {
		return ct, fmt.Errorf("recording a turn: %w", err)
	}
	return ct, nil
}

// AddTurnFile records a change of a file in a turn. When the turn already changed the
// file, what it was before the turn stays, and what it is after is replaced.
func (t *ChangesTx) AddTurnFile(turn int64, f ChangeTurnFile) error {
	_, err := t.tx.ExecContext(t.ctx, `
		INSERT INTO change_turn_files (turn_id, path, before_kind, before_hash, before_size, before_sig, before_mode,
			after_kind, after_hash, after_size, after_sig, after_mode, added, removed, written, status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')
		ON CONFLICT (turn_id, path) DO UPDATE SET after_kind = excluded.after_kind, after_hash = excluded.after_hash,
			after_size = excluded.after_size, after_sig = excluded.after_sig, after_mode = excluded.after_mode,
			written = written OR excluded.written`,
		turn, f.Path, f.Before.Kind, nullable(f.Before.Hash), f.Before.Size, f.Before.Sig, f.Before.Mode,
		f.After.Kind, nullable(f.After.Hash), f.After.Size, f.After.Sig, f.After.Mode, f.Added, f.Removed, f.Written)
	if err != nil {
		return fmt.Errorf("recording the change of %s: %w", f.Path, err)
	}
	return nil
}

// DeleteTurnFile forgets a file the turn left as it found it.
func (t *ChangesTx) DeleteTurnFile(turn int64, path string) error {
	if _, err := t.tx.ExecContext(t.ctx, `DELETE FROM change_turn_files WHERE turn_id = ? AND path = ?`, turn, path); err != nil {
		return fmt.Errorf("recording the change of %s: %w", path, err)
	}
	return nil
}

// SetTurnFileLines records the lines the turn added to and removed from the file.
func (t *ChangesTx) SetTurnFileLines(turn int64, path string, added, removed int) error {
	if _, err := t.tx.ExecContext(t.ctx, `UPDATE change_turn_files SET added = ?, removed = ? WHERE turn_id = ? AND path = ?`,
		added, removed, turn, path); err != nil {
		return fmt.Errorf("recording the change of %s: %w", path, err)
	}
	return nil
}

// SetTurnFileStatus moves a file of a turn to status ("pending", "undone", "kept",
// "expired"). Content only kept files refer to is dropped by CollectChangeBlobs.
func (t *ChangesTx) SetTurnFileStatus(turn int64, path, status string) error {
	if _, err := t.tx.ExecContext(t.ctx, `UPDATE change_turn_files SET status = ? WHERE turn_id = ? AND path = ?`,
		status, turn, path); err != nil {
		return fmt.Errorf("marking %s %s: %w", path, status, err)
	}
	return nil
}

// EndTurn records that the turn is over; a turn that changed nothing is forgotten.
func (t *ChangesTx) EndTurn(turn int64, ended time.Time) error {
	var n int
	if err := t.tx.QueryRowContext(t.ctx, `SELECT count(*) FROM change_turn_files WHERE turn_id = ?`, turn).Scan(&n); err != nil {
		return fmt.Errorf("ending the turn: %w", err)
	}
	var err error
	if n == 0 {
		_, err = t.tx.ExecContext(t.ctx, `DELETE FROM change_turns WHERE id = ?`, turn)
	} else {
		_, err = t.tx.ExecContext(t.ctx, `UPDATE change_turns SET ended_at = ? WHERE id = ?`, ended.UnixMilli(), turn)
	}
	if err != nil {
		return fmt.Errorf("ending the turn: %w", err)
	}
	return nil
}

// CollectChangeBlobs drops the workspace's content that nothing refers to any more: no
// file of its last snapshot, no file of a turn that can still be undone or reviewed
// (pending or undone). (NOT IN builds the set of what is referred to once: no index on
// the hashes is kept up to date on every snapshot for this.)
func (s *Store) CollectChangeBlobs(ctx context.Context, workspace int64) error {
	_, err := s.db.ExecContext(ctx, `
		DELETE FROM change_blobs WHERE workspace_id = ?1 AND hash NOT IN (
			SELECT hash FROM change_files WHERE workspace_id = ?1 AND hash IS NOT NULL
			UNION SELECT tf.before_hash FROM change_turn_files tf JOIN change_turns t ON t.id = tf.turn_id
				JOIN change_sessions s ON s.id = t.session_id
				WHERE s.workspace_id = ?1 AND tf.status IN ('pending', 'undone') AND tf.before_hash IS NOT NULL
			UNION SELECT tf.after_hash FROM change_turn_files tf JOIN change_turns t ON t.id = tf.turn_id
				JOIN change_sessions s ON s.id = t.session_id
				WHERE s.workspace_id = ?1 AND tf.status IN ('pending', 'undone') AND tf.after_hash IS NOT NULL)`, workspace)
	if err != nil {
		return fmt.Errorf("dropping content no longer needed: %w", err)
	}
	return nil
}

// ExpireChanges bounds what the workspace keeps: while its content takes more than
// maxBytes, the oldest turn that can still be undone expires (its files can no longer be
// undone, and the content only they needed is dropped). The workspace's newest turn never
// expires: the turn that just ended can always be undone. It returns the turns expired.
func (s *Store) ExpireChanges(ctx context.Context, workspace int64, maxBytes int64) ([]ChangeTurn, error) {
	var expired []ChangeTurn
	for {
		n, err := s.ChangeBytes(ctx, workspace)
		if err != nil || n <= maxBytes {
			return expired, err
		}
		var t ChangeTurn
		var started int64
		err = s.db.QueryRowContext(ctx, `
			SELECT t.id, t.session_id, t.number, t.label, t.started_at FROM change_turns t JOIN change_sessions s ON s.id = t.session_id
			WHERE s.workspace_id = ?1 AND EXISTS (SELECT 1 FROM change_turn_files f WHERE f.turn_id = t.id AND f.status IN ('pending', 'undone'))
			AND t.id <> (SELECT max(t2.id) FROM change_turns t2 JOIN change_sessions s2 ON s2.id = t2.session_id WHERE s2.workspace_id = ?1)
			ORDER BY t.id LIMIT 1`, workspace).Scan(&t.ID, &t.Session, &t.Number, &t.Label, &started)
		if errors.Is(err, sql.ErrNoRows) {
			return expired, nil // only the newest turn, or the files of the last snapshot, are left
		}
		if err != nil {
			return expired, fmt.Errorf("bounding the record of changes: %w", err)
		}
		t.StartedAt = time.UnixMilli(started)
		if _, err := s.db.ExecContext(ctx, `UPDATE change_turn_files SET status = 'expired' WHERE turn_id = ? AND status IN ('pending', 'undone')`, t.ID); err != nil {
			return expired, fmt.Errorf("bounding the record of changes: %w", err)
		}
		if err := s.CollectChangeBlobs(ctx, workspace); err != nil {
			return expired, err
		}
		expired = append(expired, t)
	}
}

// PruneChanges forgets what is older than cutoff: turns that ended before it,
// conversations with no turn left and not updated since, and workspaces not used since
// (with their files and content). Then it drops the content nothing refers to.
func (s *Store) PruneChanges(ctx context.Context, cutoff time.Time) error {
	c := cutoff.UnixMilli()
	for _, q := range []string{
		`DELETE FROM change_turns WHERE coalesce(ended_at, started_at) < ?`,
		`DELETE FROM change_sessions WHERE updated_at < ? AND NOT EXISTS (SELECT 1 FROM change_turns t WHERE t.session_id = change_sessions.id)`,
		`DELETE FROM change_workspaces WHERE used_at < ?`,
	} {
		if _, err := s.db.ExecContext(ctx, q, c); err != nil {
			return fmt.Errorf("pruning the record of changes: %w", err)
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM change_workspaces`)
	if err != nil {
		return fmt.Errorf("pruning the record of changes: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("pruning the record of changes: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		if err := s.CollectChangeBlobs(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// FormatSig is how a file too large to read is identified: its size, times and inode.
func FormatSig(size, mtime, ctime int64, inode uint64) string {
	return strconv.FormatInt(size, 10) + ":" + strconv.FormatInt(mtime, 10) + ":" + strconv.FormatInt(ctime, 10) + ":" + strconv.FormatUint(inode, 10)
}

// nullable is s, or NULL for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
