package parleyapi

import "github.com/parley-acp/parley/acp"

// CarryParams is the params of _parley/fork, _parley/handoff and _parley/rewind: the
// conversation SessionID goes on in a new session, which the result names (the client
// then attaches to it with session/load, as to any session parley holds).
//
//   - _parley/fork: a new session with the same agent, from the end of the conversation
//     (or from before Turn when Turn > 0), with its own record of changes from there.
//   - _parley/handoff: the conversation goes on with Agent (required), in the same
//     workspace, the record of changes going on.
//   - _parley/rewind: the files are brought back to before Turn (required; as
//     _parley/undo with rewind) and the conversation too: the new session goes on from
//     before Turn; the old one stays reachable (session/list).
type CarryParams struct {
	SessionID acp.SessionID `json:"sessionId"`
	Turn      int           `json:"turn,omitempty"`
	Agent     string        `json:"agent,omitempty"`
}

// CarryResult is the session a fork, hand-off or rewind opened, and how.
type CarryResult struct {
	SessionID acp.SessionID `json:"sessionId"`
	Agent     string        `json:"agent"`
	// How the agent got the conversation: "fork" (the agent's own session/fork),
	// "load" or "resume" (the agent's session), "seeded" (a new session whose first
	// prompt carries the transcript), "summarised" (seeded with a summary: the
	// transcript did not fit; Summary is what was sent).
	How     string `json:"how"`
	Summary string `json:"summary,omitempty"`
	// Undo is what the rewind undid (only for _parley/rewind).
	Undo *UndoResult `json:"undo,omitempty"`
}
