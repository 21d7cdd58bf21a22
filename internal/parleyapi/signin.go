package parleyapi

import "github.com/parley-acp/parley/acp"

// A sign-in is parley's to run (it starts the agent again, or calls its authenticate): the
// front-end is told which methods the agent offers (_parley/sign_in_required) and picks one
// (_parley/sign_in); _parley/sign_in_ended says how it went.

// SignInParams is the params of _parley/sign_in: the method, and for an env_var method
// the variables' values. A terminal method fails (CodeInvalidParams) naming the command to
// run instead: a page runs no terminal.
type SignInParams struct {
	SessionID acp.SessionID     `json:"sessionId"`
	MethodID  acp.AuthMethodID  `json:"methodId"`
	Vars      map[string]string `json:"vars,omitempty"`
}

// CancelSignInParams is the params of _parley/cancel_sign_in.
type CancelSignInParams struct {
	SessionID acp.SessionID `json:"sessionId"`
}

// SignedInParams is the params of _parley/signed_in: the user signed in to Agent (by name)
// outside parley's sessions (`parley login` in a terminal), so its running process may not
// know. The sessions opened after it start a new process of the agent; those open keep
// theirs.
type SignedInParams struct {
	Agent string `json:"agent"`
}

// SignInRequiredNotification is the params of _parley/sign_in_required: the agent wants a
// sign-in before it goes on.
type SignInRequiredNotification struct {
	SessionID acp.SessionID  `json:"sessionId"`
	Agent     string         `json:"agent"`
	During    string         `json:"during,omitempty"` // what the agent was doing when it asked
	Methods   []SignInMethod `json:"methods"`
}

// SignInMethod is one way to sign in: kind agent (the agent signs the user in itself, often
// in a browser), terminal (a program to run in a terminal) or env_var (variables to set).
// _parley/sign_in_required and vscodelm's lm/signInRequired both send it.
type SignInMethod struct {
	ID          acp.AuthMethodID `json:"id"`
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Kind        string           `json:"kind"` // agent, terminal, env_var
	// Command is the parley command that signs in with the method, as its arguments (`parley
	// login …`), to run in a terminal: the way for a front-end that runs none itself.
	Command []string `json:"command"`
	// Vars names the variables an env_var method sets, never their values; Fields says how
	// to ask for each.
	Vars   []string    `json:"vars,omitempty"`
	Fields []SignInVar `json:"fields,omitempty"`
	// Program is, for a terminal method, the program a terminal runs and its arguments, as
	// the agent gave them; EnvNames the variables it sets.
	Program  []string `json:"program,omitempty"`
	EnvNames []string `json:"envNames,omitempty"`
	// Run is, for a terminal method, the whole of what it runs, as lines to show (program,
	// arguments, variables with their values, directory; every character visible); `parley
	// login` shows them again and asks before it runs.
	Run []string `json:"run,omitempty"`
	// Effect is what signing in with it does, on one line; Refused why parley will not
	// (a variable that makes programs run code): such a method signs in nowhere.
	Effect  string `json:"effect,omitempty"`
	Refused string `json:"refused,omitempty"`
	Link    string `json:"link,omitempty"` // a page about the method
}

// SignInVar is a variable an env_var method asks for (Secret: not to be shown as typed).
type SignInVar struct {
	Name     string `json:"name"`
	Label    string `json:"label,omitempty"`
	Secret   bool   `json:"secret,omitempty"`
	Optional bool   `json:"optional,omitempty"`
}

// SignInEndedNotification is the params of _parley/sign_in_ended: the sign-in with Method
// (its name) is over, failed when Error says why.
type SignInEndedNotification struct {
	SessionID acp.SessionID `json:"sessionId"`
	Method    string        `json:"method"`
	Error     string        `json:"error,omitempty"`
}
