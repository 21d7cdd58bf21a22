package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// Transcript is one conversation parley held with an agent as its client, as kept
// between runs (see internal/conversation/carry.go).
type Transcript struct {
	ID           string // parley's: eight hex digits
	Workspace    string
	Agent        string
	AgentSession string // the agent's session id
	Title        string
	FromID       string // the conversation it carries on ("" for none)
	FromTurn     int    // how many turns of FromID it started with
	How          string // new, resume, load, fork, seeded, summarised
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Turns        int // how many turns it has (those it started with included)
}

// TranscriptTurn is one turn of a transcript.
type TranscriptTurn struct {
	Prompt     string
	Reply      string
	Tools      []TranscriptTool
	Stop       string // the stop reason, or "error"
	ChangeTurn int    // its number in the record of changes, 0 for none
	EndedAt    time.Time
}

// TranscriptTool is a tool call of a turn, with its outcome.
type TranscriptTool struct {
	Title  string `json:"title"`
	Kind   string `json:"kind,omitempty"`
	Status string `json:"status"` // completed, failed, rejected, cancelled…
}

// ErrAmbiguous is the answer to an id prefix that more than one transcript starts with.
var ErrAmbiguous = errors.New("more than one conversation starts with that id: give more of it")

// NewTranscriptID makes a new id for a transcript.
func NewTranscriptID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// CreateTranscript adds a transcript (t.ID made if empty) with the turns it starts
// with, in one transaction, and returns its id.
func (s *Store) CreateTranscript(ctx context.Context, t Transcript, turns []TranscriptTurn) (string, error) {
	if t.Workspace == "" || t.Agent == "" {
		return "", errors.New("saving a conversation: its workspace and agent are required")
	}
	if t.ID == "" {
		t.ID = NewTranscriptID()
	}
	if t.How == "" {
		t.How = "new"
	}
	now := time.Now().UnixMilli()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("saving conversation %s: %w", t.ID, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO transcripts (id, workspace, agent, agent_session, title, from_id, from_turn, how, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Workspace, t.Agent, t.AgentSession, t.Title, t.FromID, t.FromTurn, t.How, now, now); err != nil {
		return "", fmt.Errorf("saving conversation %s: %w", t.ID, err)
	}
	for i, turn := range turns {
		if err := insertTurn(ctx, tx, t.ID, i+1, turn); err != nil {
			return "", err
		}
	}
	if err := tx.Commit(); err != nil {
		return "", fmt.Errorf("saving conversation %s: %w", t.ID, err)
	}
	return t.ID, nil
}

func insertTurn(ctx context.Context, tx *sql.Tx, id string, seq int, t TranscriptTurn) error {
	tools, err := json.Marshal(nonNilTools(t.Tools))
	if err != nil {
		return fmt.Errorf("saving a turn of %s: %w", id, err)
	}
	ended := t.EndedAt
	if ended.IsZero() {
		ended = time.Now()
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_turns (transcript_id, seq, prompt, reply, tools, stop, change_turn, ended_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, seq, t.Prompt, t.Reply, string(tools), t.Stop, t.ChangeTurn, ended.UnixMilli()); err != nil {
		return fmt.Errorf("saving a turn of %s: %w", id, err)
	}
	return nil
}

func nonNilTools(t []TranscriptTool) []TranscriptTool {
	if t == nil {
		return []TranscriptTool{}
	}
	return t
}

// AppendTranscriptTurn adds a turn at the end of the transcript, and gives it title
// when it has none yet.
func (s *Store) AppendTranscriptTurn(ctx context.Context, id, title string, t TranscriptTurn) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("saving a turn of %s: %w", id, err)
	}
	defer tx.Rollback()
	var next int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM transcript_turns WHERE transcript_id = ?`, id).Scan(&next); err != nil {
		return fmt.Errorf("saving a turn of %s: %w", id, err)
	}
	if err := insertTurn(ctx, tx, id, next, t); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE transcripts SET updated_at = ?, title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?`,
		time.Now().UnixMilli(), title, id)
	if err != nil {
		return fmt.Errorf("saving a turn of %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("saving a turn of %s: no such conversation", id)
	}
	return tx.Commit()
}

// SetTranscriptTitle sets the title (the agent's, which wins over the first prompt's).
func (s *Store) SetTranscriptTitle(ctx context.Context, id, title string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE transcripts SET title = ? WHERE id = ?`, title, id); err != nil {
		return fmt.Errorf("naming conversation %s: %w", id, err)
	}
	return nil
}

// TouchTranscript marks the transcript used now (a run that reopened it).
func (s *Store) TouchTranscript(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE transcripts SET updated_at = ? WHERE id = ?`, time.Now().UnixMilli(), id); err != nil {
		return fmt.Errorf("marking conversation %s used: %w", id, err)
	}
	return nil
}

const transcriptColumns = `id, workspace, agent, agent_session, title, from_id, from_turn, how, created_at, updated_at,
	(SELECT count(*) FROM transcript_turns WHERE transcript_id = transcripts.id)`

func scanTranscript(row scanner) (Transcript, error) {
	var t Transcript
	var created, updated int64
	err := row.Scan(&t.ID, &t.Workspace, &t.Agent, &t.AgentSession, &t.Title, &t.FromID, &t.FromTurn, &t.How, &created, &updated, &t.Turns)
	t.CreatedAt, t.UpdatedAt = time.UnixMilli(created), time.UnixMilli(updated)
	return t, err
}

// FindTranscript returns the transcript whose id is id or starts with it (ErrAmbiguous
// when several do), and whether there is one.
func (s *Store) FindTranscript(ctx context.Context, id string) (Transcript, bool, error) {
	id = strings.TrimSpace(id)
	if id == "" || strings.ContainsAny(id, "%_") {
		return Transcript{}, false, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+transcriptColumns+` FROM transcripts WHERE id = ? OR id LIKE ? ORDER BY id = ? DESC LIMIT 2`, id, id+"%", id)
	if err != nil {
		return Transcript{}, false, fmt.Errorf("reading conversation %s: %w", id, err)
	}
	list, err := scanTranscripts(rows)
	switch {
	case err != nil:
		return Transcript{}, false, fmt.Errorf("reading conversation %s: %w", id, err)
	case len(list) == 0:
		return Transcript{}, false, nil
	case list[0].ID == id || len(list) == 1:
		return list[0], true, nil
	}
	return Transcript{}, false, ErrAmbiguous
}

// TranscriptOfSession returns the transcript of the agent's session in the workspace,
// the most recently used if several, and whether there is one.
func (s *Store) TranscriptOfSession(ctx context.Context, workspace, agent, session string) (Transcript, bool, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+transcriptColumns+` FROM transcripts WHERE workspace = ? AND agent = ? AND agent_session = ?
		ORDER BY updated_at DESC LIMIT 1`, workspace, agent, session)
	return oneTranscript(row)
}

// LastTranscript returns the workspace's most recently used transcript with the agent
// (any agent when agent is ""), and whether there is one.
func (s *Store) LastTranscript(ctx context.Context, workspace, agent string) (Transcript, bool, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+transcriptColumns+` FROM transcripts WHERE workspace = ? AND (? = '' OR agent = ?)
		ORDER BY updated_at DESC, created_at DESC LIMIT 1`, workspace, agent, agent)
	return oneTranscript(row)
}

func oneTranscript(row *sql.Row) (Transcript, bool, error) {
	t, err := scanTranscript(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Transcript{}, false, nil
	}
	if err != nil {
		return Transcript{}, false, fmt.Errorf("reading a conversation: %w", err)
	}
	return t, true, nil
}

// ListTranscripts returns the workspace's transcripts, the most recently used first.
func (s *Store) ListTranscripts(ctx context.Context, workspace string) ([]Transcript, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+transcriptColumns+` FROM transcripts WHERE workspace = ? ORDER BY updated_at DESC, created_at DESC`, workspace)
	if err != nil {
		return nil, fmt.Errorf("listing conversations: %w", err)
	}
	list, err := scanTranscripts(rows)
	if err != nil {
		return nil, fmt.Errorf("listing conversations: %w", err)
	}
	return list, nil
}

func scanTranscripts(rows *sql.Rows) ([]Transcript, error) {
	defer rows.Close()
	var out []Transcript
	for rows.Next() {
		t, err := scanTranscript(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TranscriptTurns returns the transcript's turns, in order.
func (s *Store) TranscriptTurns(ctx context.Context, id string) ([]TranscriptTurn, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT prompt, reply, tools, stop, change_turn, ended_at FROM transcript_turns WHERE transcript_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("reading conversation %s: %w", id, err)
	}
	defer rows.Close()
	var out []TranscriptTurn
	for rows.Next() {
		var t TranscriptTurn
		var tools string
		var ended int64
		if err := rows.Scan(&t.Prompt, &t.Reply, &tools, &t.Stop, &t.ChangeTurn, &ended); err != nil {
			return nil, fmt.Errorf("reading conversation %s: %w", id, err)
		}
		if err := json.Unmarshal([]byte(tools), &t.Tools); err != nil {
			return nil, fmt.Errorf("reading the tool calls of conversation %s: %w", id, err)
		}
		t.EndedAt = time.UnixMilli(ended)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading conversation %s: %w", id, err)
	}
	return out, nil
}
