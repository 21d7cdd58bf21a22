package parleyapi

// The names of parley's extension methods and notifications.
const (
	MethodCommands       = "_parley/commands"         // request: parley's own chat commands the page offers
	MethodAgents         = "_parley/agents"           // request: the agents parley knows
	MethodFiles          = "_parley/files"            // request: files of a session's workspace matching a query
	MethodUnqueue        = "_parley/unqueue"          // request: take a queued prompt back
	MethodQueue          = "_parley/queue"            // notification: the running prompt and the queue
	MethodTerminalOutput = "_parley/terminal_output"  // notification: a terminal's output so far
	MethodNotice         = "_parley/notice"           // notification: what parley has to say
	MethodStatus         = "_parley/status"           // notification: the agent starting, ready, failed; the session closed
	MethodSignIn         = "_parley/sign_in"          // request: sign in with one of the agent's methods
	MethodCancelSignIn   = "_parley/cancel_sign_in"   // request: give up the sign-in under way
	MethodSignInRequired = "_parley/sign_in_required" // notification: the agent wants a sign-in, with its methods
	MethodSignInEnded    = "_parley/sign_in_ended"    // notification: a sign-in is over
	MethodSignedIn       = "_parley/signed_in"        // request: the user signed in to an agent outside parley's sessions
	MethodChanges        = "_parley/changes"          // notification: what a turn changed; request: every turn's changes
	MethodChangesChanged = "_parley/changes_changed"  // notification: changes were undone or kept
	MethodDiff           = "_parley/diff"             // request: a changed file's diff
	MethodUndo           = "_parley/undo"             // request: undo a turn's changes (or some files of it)
	MethodKeep           = "_parley/keep"             // request: keep changes (they can no longer be undone)
	MethodFile           = "_parley/file"             // request: a file of the workspace, to show
	MethodFork           = "_parley/fork"             // request: the conversation goes on in a new session with the same agent
	MethodHandoff        = "_parley/handoff"          // request: the conversation goes on with another agent
	MethodRewind         = "_parley/rewind"           // request: files and conversation back to before a turn
)

// The JSON-RPC error codes of parley's requests (the _parley/* ones and vscodelm's lm/*
// requests about changes).
const (
	// CodeInvalidParams: the params do not decode, or ask what cannot be done (no such
	// turn or file, nothing to undo); the message says which.
	CodeInvalidParams = -32602
	// CodeUndoConflict: an undo would overwrite a change made since the turn (by a person,
	// another tool); nothing was undone, and the error's data is a ConflictData naming each
	// file. A diff with since shows how a file changed.
	CodeUndoConflict = -32001
	// CodeUnknownSession: no session has the id (ACP's resource-not-found code): it closed,
	// or parley restarted.
	CodeUnknownSession = -32002
	// CodeInternal: parley failed to do what was asked (the record of changes could not be
	// read); the message says why.
	CodeInternal = -32603
)

// Others are the types sent other than as a method's params or result: an error's data
// (CodeUndoConflict's), and what parley adds to ACP's messages in _meta.parley.
var Others = []any{ConflictData{}, InitializeMeta{}, RequestMeta{}, SessionMeta{}, SessionListMeta{}, PromptMeta{}, RiskMeta{}, ElicitationMeta{}, ToolCallMeta{}}

// Kind says how a method is used.
type Kind string

const (
	Request      Kind = "request"      // the front-end asks, parley answers Result
	Notification Kind = "notification" // parley tells the front-end; no answer
)

// Method is one entry of the protocol: its name, how it is used, and the Go values of its
// params and result (zero values: only their types matter). Result is nil for a
// notification.
type Method struct {
	Name   string
	Kind   Kind
	Params any
	Result any
}

// Methods is every method and notification, in the order the generated TypeScript lists
// them. _parley/changes is both a notification (after every turn) and a request.
var Methods = []Method{
	{MethodCommands, Request, Empty{}, CommandsResult{}},
	{MethodAgents, Request, AgentsParams{}, AgentsResult{}},
	{MethodFiles, Request, FilesParams{}, FilesResult{}},
	{MethodUnqueue, Request, UnqueueParams{}, UnqueueResult{}},
	{MethodSignIn, Request, SignInParams{}, Empty{}},
	{MethodCancelSignIn, Request, CancelSignInParams{}, Empty{}},
	{MethodSignedIn, Request, SignedInParams{}, Empty{}},
	{MethodChanges, Request, ChangesParams{}, ChangesResult{}},
	{MethodDiff, Request, DiffParams{}, DiffResult{}},
	{MethodUndo, Request, UndoParams{}, UndoResult{}},
	{MethodKeep, Request, KeepParams{}, KeepResult{}},
	{MethodFile, Request, FileParams{}, FileResult{}},
	{MethodFork, Request, CarryParams{}, CarryResult{}},
	{MethodHandoff, Request, CarryParams{}, CarryResult{}},
	{MethodRewind, Request, CarryParams{}, CarryResult{}},
	{MethodQueue, Notification, QueueNotification{}, nil},
	{MethodTerminalOutput, Notification, TerminalOutputNotification{}, nil},
	{MethodNotice, Notification, NoticeNotification{}, nil},
	{MethodStatus, Notification, StatusNotification{}, nil},
	{MethodSignInRequired, Notification, SignInRequiredNotification{}, nil},
	{MethodSignInEnded, Notification, SignInEndedNotification{}, nil},
	{MethodChanges, Notification, TurnChangesNotification{}, nil},
	{MethodChangesChanged, Notification, ChangesChangedNotification{}, nil},
}

// Empty is the result of a request that answers nothing but success.
type Empty struct{}
