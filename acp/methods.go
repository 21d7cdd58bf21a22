package acp

// ProtocolVersion is the ACP wire version this package speaks. New v1 features arrive as
// capabilities, never as a new number; 2 is a separate protocol.
const ProtocolVersion = 1

// Methods the agent implements (client → agent). They are named like their params types.
const (
	MethodInitialize             = "initialize"
	MethodAuthenticate           = "authenticate"
	MethodLogout                 = "logout"
	MethodNewSession             = "session/new"
	MethodLoadSession            = "session/load"
	MethodResumeSession          = "session/resume"
	MethodForkSession            = "session/fork" // unstable in ACP
	MethodListSessions           = "session/list"
	MethodDeleteSession          = "session/delete"
	MethodCloseSession           = "session/close"
	MethodSessionPrompt          = "session/prompt"
	MethodSessionCancel          = "session/cancel" // a notification
	MethodSetSessionMode         = "session/set_mode"
	MethodSetSessionConfigOption = "session/set_config_option"

	// MethodSetSessionModel is the legacy model selection: removed from the protocol but
	// still served by real agents (codex-acp). Prefer a config option of category "model".
	MethodSetSessionModel = "session/set_model"
)

// Methods the client implements (agent → client).
const (
	MethodSessionUpdate       = "session/update" // a notification
	MethodRequestPermission   = "session/request_permission"
	MethodReadTextFile        = "fs/read_text_file"
	MethodWriteTextFile       = "fs/write_text_file"
	MethodCreateTerminal      = "terminal/create"
	MethodTerminalOutput      = "terminal/output"
	MethodWaitForTerminalExit = "terminal/wait_for_exit"
	MethodKillTerminal        = "terminal/kill"
	MethodReleaseTerminal     = "terminal/release"
	MethodCreateElicitation   = "elicitation/create"
	MethodCompleteElicitation = "elicitation/complete" // a notification
)

// MethodCancelRequest is the notification either side sends to cancel a request it sent
// earlier. The receiver must still answer that request (a result, or CodeRequestCancelled).
const MethodCancelRequest = "$/cancel_request"

// JSON-RPC error codes that ACP uses. They are untyped so they fit any integer type.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601 // also the answer to an unknown extension request
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800 // the answer to a request cancelled by $/cancel_request
	CodeAuthRequired     = -32000
	CodeResourceNotFound = -32002 // an unknown session, file or terminal
)
