package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// AdoptChangeSession gives the record of changes of the conversation fromAgent had in
// fromSession (the last such in workspace) to agent's agentSession: a conversation handed
// to another agent, or seeded to go on with one, goes on in the same record, its turns
// numbered after the earlier ones. ok is false when there is no such record.
func (s *Store) AdoptChangeSession(ctx context.Context, workspace int64, fromAgent, fromSession, agent, agentSession string) (cs ChangeSession, ok bool, err error) {
	now := time.Now()
	var created int64
	err = s.db.QueryRowContext(ctx, `UPDATE change_sessions SET agent = ?, agent_session = ?, updated_at = ?
		WHERE id = (SELECT id FROM change_sessions WHERE workspace_id = ? AND agent = ? AND agent_session = ? ORDER BY id DESC LIMIT 1)
		RETURNING id, created_at`,
		agent, agentSession, now.UnixMilli(), workspace, fromAgent, fromSession).Scan(&cs.ID, &created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return cs, false, nil
	case err != nil:
		return cs, false, fmt.Errorf("recording the conversation where %s's left off: %w", fromAgent, err)
	}
	cs.Workspace, cs.Agent, cs.AgentSession, cs.CreatedAt, cs.UpdatedAt = workspace, agent, agentSession, time.UnixMilli(created), now
	return cs, true, nil
}
