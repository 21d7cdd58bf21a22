package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// FileStatus is where a checkpointed file stands.
type FileStatus string

const (
	FilePending FileStatus = "pending" // written by the checkpoint; can be kept or undone
	FileKept    FileStatus = "kept"    // the user kept it; its original is dropped
	FileUndone  FileStatus = "undone"  // restored to its original (or deleted, if created)
	FileExpired FileStatus = "expired" // its original was dropped to bound the storage
)

// Checkpoint is the record of one turn's writes (or one undo's), numbered within its
// session.
type Checkpoint struct {
	ID        int64
	SessionID string
	Number    int
	Label     string // the turn's prompt, or the undo it was
	CreatedAt time.Time
	Files     []CheckpointFile // in path order
}

// CheckpointFile is one file a checkpoint wrote.
type CheckpointFile struct {
	Path    string
	Created bool   // the checkpoint created it: undo deletes it
	Size    int64  // bytes of the original
	Written string // SHA-256 (hex) of what the checkpoint left; "" when it left no file
	Status  FileStatus
}

// NewCheckpoint starts the session's next checkpoint.
func (s *Store) NewCheckpoint(ctx context.Context, sessionID, label string) (Checkpoint, error) {
	cp := Checkpoint{SessionID: sessionID, Label: label, CreatedAt: time.Now()}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return cp, fmt.Errorf("starting a checkpoint: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(number), 0) + 1 FROM checkpoints WHERE session_id = ?`, sessionID).Scan(&cp.Number); err != nil {
		return cp, fmt.Errorf("starting a checkpoint: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (session_id, number, label, created_at) VALUES (?, ?, ?, ?)`,
		sessionID, cp.Number, label, cp.CreatedAt.UnixMilli())
	if err != nil {
		return cp, fmt.Errorf("starting a checkpoint: %w", err)
	}
	if cp.ID, err = res.LastInsertId(); err != nil {
		return cp, fmt.Errorf("starting a checkpoint: %w", err)
	}
	return cp, tx.Commit()
}

// RecordOriginal stores what path held before the checkpoint first writes it: original,
// or nil when the file did not exist. A path already recorded in the checkpoint keeps
// its first original; recorded reports whether this call stored it. written starts as
// the original's hash, as if nothing were written yet.
func (s *Store) RecordOriginal(ctx context.Context, checkpointID int64, path string, original []byte, written string) (recorded bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("recording the original of %s: %w", path, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `
		INSERT INTO checkpoint_files (checkpoint_id, path, created, size, written, status)
		VALUES (?, ?, ?, ?, ?, 'pending')
		ON CONFLICT (checkpoint_id, path) DO NOTHING`,
		checkpointID, path, original == nil, len(original), nullable(written))
	if err != nil {
		return false, fmt.Errorf("recording the original of %s: %w", path, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if original != nil {
		id, err := res.LastInsertId()
		if err == nil {
			_, err = tx.ExecContext(ctx, `INSERT INTO checkpoint_originals (file_id, content) VALUES (?, ?)`, id, original)
		}
		if err != nil {
			return false, fmt.Errorf("recording the original of %s: %w", path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("recording the original of %s: %w", path, err)
	}
	return true, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// RecordWritten notes what the checkpoint left in path: content with this SHA-256, or ""
// for no file.
func (s *Store) RecordWritten(ctx context.Context, checkpointID int64, path, written string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE checkpoint_files SET written = ? WHERE checkpoint_id = ? AND path = ?`,
		nullable(written), checkpointID, path); err != nil {
		return fmt.Errorf("recording the write of %s: %w", path, err)
	}
	return nil
}

// Checkpoints returns the session's checkpoints, oldest first, with their files (not
// their originals).
func (s *Store) Checkpoints(ctx context.Context, sessionID string) ([]Checkpoint, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT c.id, c.number, c.label, c.created_at, f.path, f.created, f.size, coalesce(f.written, ''), f.status
		FROM checkpoints c LEFT JOIN checkpoint_files f ON f.checkpoint_id = c.id
		WHERE c.session_id = ? ORDER BY c.number, f.path`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("listing checkpoints: %w", err)
	}
	defer rows.Close()
	var out []Checkpoint
	for rows.Next() {
		var cp Checkpoint
		var created int64
		var path, written, status sql.NullString
		var isCreated sql.NullBool
		var size sql.NullInt64
		if err := rows.Scan(&cp.ID, &cp.Number, &cp.Label, &created, &path, &isCreated, &size, &written, &status); err != nil {
			return nil, fmt.Errorf("listing checkpoints: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].ID != cp.ID {
			cp.SessionID, cp.CreatedAt = sessionID, time.UnixMilli(created)
			out = append(out, cp)
		}
		if path.Valid {
			last := &out[len(out)-1]
			last.Files = append(last.Files, CheckpointFile{Path: path.String, Created: isCreated.Bool, Size: size.Int64,
				Written: written.String, Status: FileStatus(status.String)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing checkpoints: %w", err)
	}
	return out, nil
}

// ErrNoOriginal is Original's answer for a file whose original is not kept: it was
// created by the checkpoint, kept, or expired.
var ErrNoOriginal = errors.New("the original is not kept")

// Original returns the content path had before the checkpoint wrote it.
func (s *Store) Original(ctx context.Context, checkpointID int64, path string) ([]byte, error) {
	var original []byte
	err := s.db.QueryRowContext(ctx, `SELECT o.content FROM checkpoint_files f JOIN checkpoint_originals o ON o.file_id = f.id
		WHERE f.checkpoint_id = ? AND f.path = ?`, checkpointID, path).Scan(&original)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoOriginal
	}
	if err != nil {
		return nil, fmt.Errorf("reading the original of %s: %w", path, err)
	}
	if original == nil {
		original = []byte{} // an empty file, not a missing one
	}
	return original, nil
}

// SetFileStatus moves a file of a checkpoint to status; kept and expired files lose
// their original.
func (s *Store) SetFileStatus(ctx context.Context, checkpointID int64, path string, status FileStatus) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("marking %s %s: %w", path, status, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE checkpoint_files SET status = ? WHERE checkpoint_id = ? AND path = ?`, string(status), checkpointID, path); err != nil {
		return fmt.Errorf("marking %s %s: %w", path, status, err)
	}
	if status == FileKept || status == FileExpired {
		if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoint_originals WHERE file_id IN
			(SELECT id FROM checkpoint_files WHERE checkpoint_id = ? AND path = ?)`, checkpointID, path); err != nil {
			return fmt.Errorf("marking %s %s: %w", path, status, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("marking %s %s: %w", path, status, err)
	}
	return nil
}

// ExpireCheckpoints bounds what the session's checkpoints keep: while the originals of
// its pending files take more than budget bytes, the oldest checkpoint's pending files
// expire (their originals are dropped). The newest checkpoint is never expired: the
// turn that just ended can always be undone. It returns the numbers of the checkpoints
// that expired.
func (s *Store) ExpireCheckpoints(ctx context.Context, sessionID string, budget int64) ([]int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("bounding the checkpoints: %w", err)
	}
	defer tx.Rollback()
	// A pending file that was not created has its original.
	rows, err := tx.QueryContext(ctx, `
		SELECT c.id, c.number, sum(f.size)
		FROM checkpoints c JOIN checkpoint_files f ON f.checkpoint_id = c.id
		WHERE c.session_id = ? AND f.status = 'pending' AND f.created = 0
		GROUP BY c.id ORDER BY c.number`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("bounding the checkpoints: %w", err)
	}
	type usage struct {
		id     int64
		number int
		bytes  int64
	}
	var all []usage
	var total int64
	for rows.Next() {
		var u usage
		if err := rows.Scan(&u.id, &u.number, &u.bytes); err != nil {
			rows.Close()
			return nil, fmt.Errorf("bounding the checkpoints: %w", err)
		}
		all = append(all, u)
		total += u.bytes
	}
	rows.Close()
	var expired []int
	for i, u := range all {
		if total <= budget || i == len(all)-1 {
			break
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoint_originals WHERE file_id IN
			(SELECT id FROM checkpoint_files WHERE checkpoint_id = ? AND status = 'pending')`, u.id); err != nil {
			return nil, fmt.Errorf("bounding the checkpoints: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE checkpoint_files SET status = 'expired'
			WHERE checkpoint_id = ? AND status = 'pending'`, u.id); err != nil {
			return nil, fmt.Errorf("bounding the checkpoints: %w", err)
		}
		total -= u.bytes
		expired = append(expired, u.number)
	}
	return expired, tx.Commit()
}
