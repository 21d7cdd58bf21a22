package parleyapi

import "github.com/parley-acp/parley/acp"

// What parley adds to ACP's own messages, in their _meta.parley.

// InitializeMeta is _meta.parley of initialize's response.
type InitializeMeta struct {
	DefaultAgent string `json:"defaultAgent"` // the agent of a session/new that names none
	Workspace    string `json:"workspace"`    // the directory sessions work in (their cwd is inside it)
}

// RequestMeta is what a front-end may say in _meta.parley of session/new, session/load and
// session/prompt.
type RequestMeta struct {
	Agent string `json:"agent,omitempty"` // session/new, session/load: the agent to talk to
	Echo  bool   `json:"echo,omitempty"`  // session/prompt: show the prompt back when its turn starts
}

// SessionMeta is _meta.parley of session/new's and session/load's responses: which agent
// runs behind parley's session, and what it accepts.
type SessionMeta struct {
	Agent              string                 `json:"agent"`
	AgentTitle         string                 `json:"agentTitle,omitempty"`
	AgentVersion       string                 `json:"agentVersion,omitempty"`
	PromptCapabilities acp.PromptCapabilities `json:"promptCapabilities"`
	Cwd                string                 `json:"cwd"`
	Running            *int                   `json:"running,omitempty"` // the prompt whose turn runs (session/load)
	SignIn             bool                   `json:"signIn,omitempty"`  // the agent wants a sign-in first (_parley/sign_in_required follows)
	CanList            bool                   `json:"canList,omitempty"` // the agent lists its own sessions
	AgentSessionID     acp.SessionID          `json:"agentSessionId,omitempty"`
	// RequestedCwd is the cwd a remote client sent (session/new, or session/load of an
	// agent's own session) when it names no directory in the server's workspace (one on
	// the client's machine): the session opened in Cwd, the workspace, instead.
	RequestedCwd string `json:"requestedCwd,omitempty"`
	// DroppedDirectories are the additionalDirectories the client sent that the session
	// does not have (parley confines a session to its cwd).
	DroppedDirectories []string `json:"droppedDirectories,omitempty"`
}

// SessionListMeta is _meta.parley of each session session/list answers: the agent it is
// with, and whether parley holds it open (else the agent keeps it, to load).
type SessionListMeta struct {
	Agent string `json:"agent"`
	Live  bool   `json:"live"`
}

// PromptMeta is _meta.parley of session/prompt's response: the prompt's id (what
// _parley/queue and _parley/changes call it), and why it did not run, if it did not.
type PromptMeta struct {
	PromptID int  `json:"promptId"`
	Unqueued bool `json:"unqueued,omitempty"` // taken back before it ran: nothing was sent
	Closed   bool `json:"closed,omitempty"`   // the session closed first
}

// RiskMeta is _meta.parley of a permission request (session/request_permission): what
// parley made of the call.
type RiskMeta struct {
	Command          string   `json:"command,omitempty"`          // the command that would run
	Tier             string   `json:"tier"`                       // none, medium, high, critical
	Reasons          []string `json:"reasons,omitempty"`          // why it is that risky
	Always           string   `json:"always,omitempty"`           // what an "always" answer would cover
	RunsEditableCode bool     `json:"runsEditableCode,omitempty"` // it runs code the agent can edit
}

// ElicitationMeta is _meta.parley of an elicitation/create: the form's fields in the order
// the agent wrote them (a JSON schema's properties have none).
type ElicitationMeta struct {
	Order []string `json:"order"`
}

// ToolCallMeta is _meta.parley of a tool_call and a tool_call_update as parley relays them:
// what its own views say of the call, from all its updates so far (the agent's title made
// a sentence, a path relative to the workspace), while it runs and once it is done.
type ToolCallMeta struct {
	Invocation string `json:"invocation"` // "Reading `main.go`"
	PastTense  string `json:"pastTense"`  // "Read `main.go`"
	// Started and Ended are when parley saw the call begin and end (RFC 3339, UTC): a
	// replay (session/load) carries them, where the client saw only the replay.
	Started string `json:"started,omitempty"`
	Ended   string `json:"ended,omitempty"`
	// Outcome is how the call ended, once it has (toolstate.Outcome): "done", "failed",
	// "refused_by_you", "refused_by_rule", "refused_by_always", "no_one_to_ask",
	// "refused_by_parley", "cancelled". A refused call never ran, whatever the agent's
	// status says. OutcomeText is the same in the words parley's other views show ("not
	// run: refused by a rule"). A decision made without a question comes as an update
	// with only the call's id and this _meta.
	Outcome     string `json:"outcome,omitempty"`
	OutcomeText string `json:"outcomeText,omitempty"`
}
