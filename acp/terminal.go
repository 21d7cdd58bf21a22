package acp

// TerminalID identifies a terminal created with terminal/create. It stays valid until
// terminal/release.
type TerminalID string

// CreateTerminalRequest is the params of terminal/create, gated by
// ClientCapabilities.Terminal. The client runs Command with Args directly (no shell) and
// answers at once; the command runs in the background.
type CreateTerminalRequest struct {
	SessionID SessionID     `json:"sessionId"`
	Command   string        `json:"command"`
	Args      []string      `json:"args,omitzero"`
	Env       []EnvVariable `json:"env,omitzero"`  // added to the client's environment
	Cwd       string        `json:"cwd,omitempty"` // absolute
	// OutputByteLimit is how much output the client keeps, dropping from the beginning.
	// A pointer because 0 is a limit.
	OutputByteLimit *uint64 `json:"outputByteLimit,omitempty"`
	Meta            Meta    `json:"_meta,omitzero"`
	Extra           Extra   `json:"-"`
}

// CreateTerminalResponse is the result of terminal/create.
type CreateTerminalResponse struct {
	TerminalID TerminalID `json:"terminalId"`
	Meta       Meta       `json:"_meta,omitzero"`
	Extra      Extra      `json:"-"`
}

// TerminalOutputRequest is the params of terminal/output.
type TerminalOutputRequest struct {
	SessionID  SessionID  `json:"sessionId"`
	TerminalID TerminalID `json:"terminalId"`
	Meta       Meta       `json:"_meta,omitzero"`
	Extra      Extra      `json:"-"`
}

// TerminalOutputResponse is the result of terminal/output: the output so far, and the
// exit status once the command has exited. Output and Truncated are always written.
type TerminalOutputResponse struct {
	Output     string              `json:"output"`
	Truncated  bool                `json:"truncated"` // the beginning was dropped to fit the limit
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
	Meta       Meta                `json:"_meta,omitzero"`
	Extra      Extra               `json:"-"`
}

// TerminalExitStatus is how a terminal's command ended: an exit code, or a signal.
type TerminalExitStatus struct {
	ExitCode *uint32 `json:"exitCode,omitempty"` // a pointer because 0 is success
	Signal   string  `json:"signal,omitempty"`
	Meta     Meta    `json:"_meta,omitzero"`
	Extra    Extra   `json:"-"`
}

// WaitForTerminalExitRequest is the params of terminal/wait_for_exit.
type WaitForTerminalExitRequest struct {
	SessionID  SessionID  `json:"sessionId"`
	TerminalID TerminalID `json:"terminalId"`
	Meta       Meta       `json:"_meta,omitzero"`
	Extra      Extra      `json:"-"`
}

// WaitForTerminalExitResponse is the result of terminal/wait_for_exit, sent when the
// command has exited.
type WaitForTerminalExitResponse struct {
	ExitCode *uint32 `json:"exitCode,omitempty"`
	Signal   string  `json:"signal,omitempty"`
	Meta     Meta    `json:"_meta,omitzero"`
	Extra    Extra   `json:"-"`
}

// KillTerminalRequest is the params of terminal/kill: stop the command but keep the
// terminal, which the agent must still release.
type KillTerminalRequest struct {
	SessionID  SessionID  `json:"sessionId"`
	TerminalID TerminalID `json:"terminalId"`
	Meta       Meta       `json:"_meta,omitzero"`
	Extra      Extra      `json:"-"`
}

// KillTerminalResponse is the result of terminal/kill.
type KillTerminalResponse struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// ReleaseTerminalRequest is the params of terminal/release: kill the command if it runs
// and free the terminal. The id is invalid afterwards.
type ReleaseTerminalRequest struct {
	SessionID  SessionID  `json:"sessionId"`
	TerminalID TerminalID `json:"terminalId"`
	Meta       Meta       `json:"_meta,omitzero"`
	Extra      Extra      `json:"-"`
}

// ReleaseTerminalResponse is the result of terminal/release.
type ReleaseTerminalResponse struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}
