package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Decision is a remembered answer to a permission request.
type Decision string

const (
	Allow  Decision = "allow"
	Reject Decision = "reject"
)

// Rule is a permission decision the user chose to remember ("always"), for one agent,
// one workspace and one key (see permission.Subject: a command's shape, or kind:tool).
type Rule struct {
	Agent     string
	Workspace string
	ToolKey   string
	// Description says in words what the decision covers, as the question showed it.
	Description string
	Decision    Decision
	CreatedAt   time.Time
}

// RuleFilter narrows ListRules and ResetRules. An empty field matches every value.
type RuleFilter struct {
	Agent     string
	Workspace string
}

// where returns the SQL condition and arguments for f ("" when f matches every rule).
func (f RuleFilter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Agent != "" {
		conds = append(conds, "agent = ?")
		args = append(args, f.Agent)
	}
	if f.Workspace != "" {
		conds = append(conds, "workspace = ?")
		args = append(args, f.Workspace)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Remember saves r, replacing an earlier decision for the same agent, workspace and tool
// key. A zero CreatedAt means now.
func (s *Store) Remember(ctx context.Context, r Rule) error {
	if r.Agent == "" || r.Workspace == "" || r.ToolKey == "" {
		return errors.New("remembering a permission decision: agent, workspace and tool key are required")
	}
	if r.Decision != Allow && r.Decision != Reject {
		return fmt.Errorf("remembering a permission decision: %q is not allow or reject", r.Decision)
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now()
	}
	_, err := s.db.ExecContext(ctx, `
		INSERT INTO permission_rules (agent, workspace, tool_key, description, decision, created_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (agent, workspace, tool_key)
		DO UPDATE SET decision = excluded.decision, description = excluded.description, created_at = excluded.created_at`,
		r.Agent, r.Workspace, r.ToolKey, r.Description, string(r.Decision), r.CreatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("remembering the decision for %s in %s: %w", r.ToolKey, r.Workspace, err)
	}
	return nil
}

// Lookup returns the remembered decision for the agent, workspace and tool key, and
// whether there is one.
func (s *Store) Lookup(ctx context.Context, agent, workspace, toolKey string) (Rule, bool, error) {
	r := Rule{Agent: agent, Workspace: workspace, ToolKey: toolKey}
	var created int64
	err := s.db.QueryRowContext(ctx, `
		SELECT description, decision, created_at FROM permission_rules
		WHERE agent = ? AND workspace = ? AND tool_key = ?`,
		agent, workspace, toolKey).Scan(&r.Description, &r.Decision, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Rule{}, false, nil
	}
	if err != nil {
		return Rule{}, false, fmt.Errorf("looking up the decision for %s in %s: %w", toolKey, workspace, err)
	}
	r.CreatedAt = time.UnixMilli(created)
	return r, true, nil
}

// ListRules returns the remembered decisions that match f, by agent, workspace and tool key.
func (s *Store) ListRules(ctx context.Context, f RuleFilter) ([]Rule, error) {
	where, args := f.where()
	rows, err := s.db.QueryContext(ctx, `
		SELECT agent, workspace, tool_key, description, decision, created_at FROM permission_rules`+where+`
		ORDER BY agent, workspace, tool_key`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing permission decisions: %w", err)
	}
	defer rows.Close()
	var rules []Rule
	for rows.Next() {
		var r Rule
		var created int64
		if err := rows.Scan(&r.Agent, &r.Workspace, &r.ToolKey, &r.Description, &r.Decision, &created); err != nil {
			return nil, fmt.Errorf("listing permission decisions: %w", err)
		}
		r.CreatedAt = time.UnixMilli(created)
		rules = append(rules, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing permission decisions: %w", err)
	}
	return rules, nil
}

// ResetRules forgets the remembered decisions that match f and returns how many there
// were. An empty filter forgets every decision: callers that take a filter from the user
// should insist on an explicit "all".
func (s *Store) ResetRules(ctx context.Context, f RuleFilter) (int, error) {
	where, args := f.where()
	res, err := s.db.ExecContext(ctx, "DELETE FROM permission_rules"+where, args...)
	if err != nil {
		return 0, fmt.Errorf("forgetting permission decisions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("forgetting permission decisions: %w", err)
	}
	return int(n), nil
}
