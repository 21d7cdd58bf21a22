package parleyapi

import "github.com/parley-acp/parley/acp"

// AgentsParams is the params of _parley/agents (none).
type AgentsParams struct{}

// AgentsResult is the result of _parley/agents.
type AgentsResult struct {
	Agents  []AgentEntry `json:"agents"`
	Default string       `json:"default"` // the agent of a session/new that names none
}

// AgentEntry is one agent parley knows.
type AgentEntry struct {
	Name        string `json:"name"`
	Source      string `json:"source,omitempty"`      // built-in, registry, config, --agent-command
	NotRunnable string `json:"notRunnable,omitempty"` // why it cannot start here, if it cannot
	Default     bool   `json:"default,omitempty"`
	// Availability is whether it can start here, as `parley agents` says it: "yes", "no:
	// why", "needs a download (…)".
	Availability string `json:"availability,omitempty"`
	About        string `json:"about,omitempty"` // what a built-in agent is
	// SignIn is "no sign-in found here: parley login --agent NAME" when parley sees no
	// credentials of the agent here (none of its files, no API key); "" when it is signed
	// in, needs none, or parley cannot tell.
	SignIn string `json:"signIn,omitempty"`
}

// FilesParams is the params of _parley/files: the workspace's files (those git would not
// ignore) that match Query fuzzily, for @ mentions.
type FilesParams struct {
	SessionID acp.SessionID `json:"sessionId"`
	Query     string        `json:"query"`
	Limit     int           `json:"limit,omitempty"` // at most this many (default 50, at most 200)
}

// FilesResult is the result of _parley/files, best match first.
type FilesResult struct {
	Files     []FileMatch `json:"files"`
	Truncated bool        `json:"truncated,omitempty"` // the workspace has more files than were searched
}

// FileMatch is one file found: its path relative to the workspace, and the positions (in
// runes) of the query's letters in it, for highlighting.
type FileMatch struct {
	Path    string `json:"path"`
	Matches []int  `json:"matches,omitempty"`
}

// UnqueueParams is the params of _parley/unqueue: the queued prompt to take back.
type UnqueueParams struct {
	SessionID acp.SessionID `json:"sessionId"`
	PromptID  int           `json:"promptId"`
}

// UnqueueResult is the result of _parley/unqueue: false when the prompt was no longer
// queued (its turn started).
type UnqueueResult struct {
	Unqueued bool `json:"unqueued"`
}

// QueueNotification is the params of _parley/queue, sent when the running prompt or the
// queue behind it changes.
type QueueNotification struct {
	SessionID acp.SessionID  `json:"sessionId"`
	Running   *int           `json:"running"` // the prompt whose turn runs, null between turns
	Queued    []QueuedPrompt `json:"queued"`
}

// QueuedPrompt is a prompt waiting for its turn.
type QueuedPrompt struct {
	PromptID int    `json:"promptId"`
	Text     string `json:"text"`
}

// TerminalOutputNotification is the params of _parley/terminal_output: the output so far of
// a terminal a tool call shows (the agent's terminals run in parley, which the page cannot
// read), sent while its command runs and when it changed.
type TerminalOutputNotification struct {
	SessionID  acp.SessionID           `json:"sessionId"`
	TerminalID acp.TerminalID          `json:"terminalId"`
	Output     string                  `json:"output"`
	Truncated  bool                    `json:"truncated,omitempty"` // the start of the output was dropped
	ExitStatus *acp.TerminalExitStatus `json:"exitStatus,omitempty"`
}

// NoticeNotification is the params of _parley/notice: what parley itself has to say about
// the session (an answer the agent's form refused, the record of changes incomplete).
type NoticeNotification struct {
	SessionID acp.SessionID `json:"sessionId"`
	Text      string        `json:"text"`
}

// StatusNotification is the params of _parley/status: the state of the agent behind the
// session (starting, ready, failed, signing_in) or that the session closed (closed).
type StatusNotification struct {
	SessionID acp.SessionID `json:"sessionId"`
	State     string        `json:"state"`
	Text      string        `json:"text,omitempty"` // what is happening, or why it failed
}
