package parleyapi

// CommandsResult answers _parley/commands: parley's own chat commands that the page offers
// (internal/chatcmd's table), for its / completion beside the agent's commands. The page
// runs them with the requests it has (session/set_mode, session/set_config_option,
// _parley/undo…); anything else typed after a slash goes to the agent.
type CommandsResult struct {
	Commands []Command `json:"commands"`
}

// Command is one chat command: how it is typed, and what it does in a line and at length.
type Command struct {
	Name    string       `json:"name"`
	Aliases []string     `json:"aliases,omitempty"`
	Usage   string       `json:"usage"`   // "/undo [FILE|TURN…]"
	Summary string       `json:"summary"` // one line
	Help    string       `json:"help,omitempty"`
	Args    []CommandArg `json:"args"`
}

// CommandArg is one argument of a command: its name, what it names (for completion) and
// whether it may be left out or takes the rest of the line.
type CommandArg struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"` // chatcmd.ArgKind: "file", "turn", "change", "setting"…
	Optional bool     `json:"optional,omitempty"`
	Rest     bool     `json:"rest,omitempty"` // takes the rest of the line
	Words    []string `json:"words,omitempty"`
}
