package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// AgentSession is one session of parley's coding agent, as kept between its runs.
type AgentSession struct {
	ID         string
	Cwd        string
	ExtraRoots []string // the workspace roots after Cwd
	Title      string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// EntryKind says what a session entry holds.
type EntryKind string

const (
	EntryMessage EntryKind = "message" // one message of the model's history
	EntryUpdate  EntryKind = "update"  // one session/update shown again on session/load
)

// Entry is one JSON entry of a session's conversation.
type Entry struct {
	Kind EntryKind
	Body json.RawMessage
}

// SaveSession creates the session or updates its workspace and title; times that are
// zero mean now. Entries are kept.
func (s *Store) SaveSession(ctx context.Context, a AgentSession) error {
	if a.ID == "" || a.Cwd == "" {
		return errors.New("saving a session: id and cwd are required")
	}
	now := time.Now()
	if a.CreatedAt.IsZero() {
		a.CreatedAt = now
	}
	if a.UpdatedAt.IsZero() {
		a.UpdatedAt = now
	}
	roots, err := json.Marshal(nonNil(a.ExtraRoots))
	if err != nil {
		return fmt.Errorf("saving session %s: %w", a.ID, err)
	}
	_, err = s.db.ExecContext(ctx, `
		INSERT INTO agent_sessions (id, cwd, extra_roots, title, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET cwd = excluded.cwd, extra_roots = excluded.extra_roots,
			title = CASE WHEN excluded.title = '' THEN title ELSE excluded.title END,
			updated_at = excluded.updated_at`,
		a.ID, a.Cwd, string(roots), a.Title, a.CreatedAt.UnixMilli(), a.UpdatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("saving session %s: %w", a.ID, err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// AppendEntries adds entries at the end of the session's conversation and marks the
// session updated, in one transaction.
func (s *Store) AppendEntries(ctx context.Context, id string, entries []Entry) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("saving the conversation of %s: %w", id, err)
	}
	defer tx.Rollback()
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM agent_session_entries WHERE session_id = ?`, id).Scan(&next); err != nil {
		return fmt.Errorf("saving the conversation of %s: %w", id, err)
	}
	for i, e := range entries {
		if e.Kind != EntryMessage && e.Kind != EntryUpdate {
			return fmt.Errorf("saving the conversation of %s: unknown entry kind %q", id, e.Kind)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO agent_session_entries (session_id, seq, kind, body) VALUES (?, ?, ?, ?)`,
			id, next+int64(i), string(e.Kind), string(e.Body)); err != nil {
			return fmt.Errorf("saving the conversation of %s: %w", id, err)
		}
	}
	res, err := tx.ExecContext(ctx, `UPDATE agent_sessions SET updated_at = ? WHERE id = ?`, time.Now().UnixMilli(), id)
	if err != nil {
		return fmt.Errorf("saving the conversation of %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("saving the conversation of %s: no such session", id)
	}
	return tx.Commit()
}

// Session returns the session with id, and whether there is one.
func (s *Store) Session(ctx context.Context, id string) (AgentSession, bool, error) {
	row := s.db.QueryRowContext(ctx, `SELECT id, cwd, extra_roots, title, created_at, updated_at FROM agent_sessions WHERE id = ?`, id)
	a, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return AgentSession{}, false, nil
	}
	if err != nil {
		return AgentSession{}, false, fmt.Errorf("reading session %s: %w", id, err)
	}
	return a, true, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanSession(row scanner) (AgentSession, error) {
	var a AgentSession
	var roots string
	var created, updated int64
	if err := row.Scan(&a.ID, &a.Cwd, &roots, &a.Title, &created, &updated); err != nil {
		return a, err
	}
	if err := json.Unmarshal([]byte(roots), &a.ExtraRoots); err != nil {
		return a, fmt.Errorf("the roots of session %s: %w", a.ID, err)
	}
	a.CreatedAt, a.UpdatedAt = time.UnixMilli(created), time.UnixMilli(updated)
	return a, nil
}

// Entries returns the session's entries of kind, in order.
func (s *Store) Entries(ctx context.Context, id string, kind EntryKind) ([]Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT body FROM agent_session_entries WHERE session_id = ? AND kind = ? ORDER BY seq`, id, string(kind))
	if err != nil {
		return nil, fmt.Errorf("reading the conversation of %s: %w", id, err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("reading the conversation of %s: %w", id, err)
		}
		out = append(out, Entry{Kind: kind, Body: json.RawMessage(body)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the conversation of %s: %w", id, err)
	}
	return out, nil
}

// SessionPage asks ListSessions for one page.
type SessionPage struct {
	Cwd    string // only sessions in this directory; "" for all
	Cursor string // NextCursor of the previous page; "" for the first
	Limit  int    // sessions per page; 0 means 50
}

// ListSessions returns sessions, the most recently updated first, and the cursor of the
// next page ("" after the last).
func (s *Store) ListSessions(ctx context.Context, p SessionPage) ([]AgentSession, string, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = 50
	}
	conds, args := []string{"1"}, []any{}
	if p.Cwd != "" {
		conds = append(conds, "cwd = ?")
		args = append(args, p.Cwd)
	}
	if p.Cursor != "" {
		updated, id, err := decodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		conds = append(conds, "(updated_at < ? OR (updated_at = ? AND id > ?))")
		args = append(args, updated, updated, id)
	}
	args = append(args, limit+1)
	rows, err := s.db.QueryContext(ctx, `SELECT id, cwd, extra_roots, title, created_at, updated_at FROM agent_sessions
		WHERE `+strings.Join(conds, " AND ")+` ORDER BY updated_at DESC, id LIMIT ?`, args...)
	if err != nil {
		return nil, "", fmt.Errorf("listing sessions: %w", err)
	}
	defer rows.Close()
	var out []AgentSession
	for rows.Next() {
		a, err := scanSession(rows)
		if err != nil {
			return nil, "", fmt.Errorf("listing sessions: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("listing sessions: %w", err)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		next = encodeCursor(last.UpdatedAt.UnixMilli(), last.ID)
	}
	return out, next, nil
}

// ErrBadCursor is ListSessions' answer to a cursor it did not make.
var ErrBadCursor = errors.New("not a session list cursor")

func encodeCursor(updated int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(updated, 10) + "/" + id))
}

func decodeCursor(c string) (int64, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", ErrBadCursor
	}
	n, id, ok := strings.Cut(string(raw), "/")
	updated, err := strconv.ParseInt(n, 10, 64)
	if !ok || err != nil {
		return 0, "", ErrBadCursor
	}
	return updated, id, nil
}

// DeleteSession forgets a session, its conversation and its checkpoints.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM agent_sessions WHERE id = ?`, id); err != nil {
		return fmt.Errorf("deleting session %s: %w", id, err)
	}
	return nil
}
