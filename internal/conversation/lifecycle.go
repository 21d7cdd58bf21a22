package conversation

import (
	"context"
	"errors"

	"github.com/parley-acp/parley/acp"
)

// The agent's other sessions: closing one (session/close: its work is cancelled and it is
// freed) and deleting one (session/delete: it leaves the agent's list). Both act on a
// session the conversation is not showing; the one it shows ends with the conversation
// (Close) or is left for another (NewSession, LoadSession).

var errCurrentSession = errors.New("that is the session this conversation shows: start another (/new) or load one first")

// CloseSession closes one of the agent's sessions (where the agent can).
func (c *Conversation) CloseSession(ctx context.Context, id acp.SessionID) error {
	return c.callSession(ctx, acp.MethodCloseSession, func(ctx context.Context, conn *acp.ClientConn, s Session) (func(*Conversation), error) {
		switch {
		case s.Agent.Capabilities.SessionCapabilities.Close == nil:
			return nil, errors.New("this agent cannot close sessions")
		case id == s.ID:
			return nil, errCurrentSession
		}
		_, err := conn.CloseSession(ctx, &acp.CloseSessionRequest{SessionID: id})
		return nil, err
	})
}

// DeleteSession deletes one of the agent's sessions from its list (where the agent can).
func (c *Conversation) DeleteSession(ctx context.Context, id acp.SessionID) error {
	return c.callSession(ctx, acp.MethodDeleteSession, func(ctx context.Context, conn *acp.ClientConn, s Session) (func(*Conversation), error) {
		switch {
		case s.Agent.Capabilities.SessionCapabilities.Delete == nil:
			return nil, errors.New("this agent cannot delete sessions")
		case id == s.ID:
			return nil, errCurrentSession
		}
		_, err := conn.DeleteSession(ctx, &acp.DeleteSessionRequest{SessionID: id})
		return nil, err
	})
}
