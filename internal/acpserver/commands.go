package acpserver

import "github.com/parley-acp/parley/internal/chatcmd"

// _parley/commands: parley's own chat commands that the page offers (internal/chatcmd's
// table), for its / completion beside the agent's commands. The page runs them with the
// requests it has (session/set_mode, session/set_config_option, _parley/undo…); anything
// else typed after a slash goes to the agent.
const methodCommands = "_parley/commands"

type commandsResponse struct {
	Commands []commandEntry `json:"commands"`
}

type commandEntry struct {
	Name    string       `json:"name"`
	Aliases []string     `json:"aliases,omitempty"`
	Usage   string       `json:"usage"`   // "/undo [FILE|TURN…]"
	Summary string       `json:"summary"` // one line
	Help    string       `json:"help,omitempty"`
	Args    []commandArg `json:"args"`
}

type commandArg struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"` // chatcmd.ArgKind: "file", "turn", "change", "setting"…
	Optional bool     `json:"optional,omitempty"`
	Rest     bool     `json:"rest,omitempty"` // takes the rest of the line
	Words    []string `json:"words,omitempty"`
}

// pageCommands answers _parley/commands.
func pageCommands() commandsResponse {
	out := commandsResponse{Commands: []commandEntry{}}
	for _, c := range chatcmd.For(chatcmd.Page) {
		e := commandEntry{Name: c.Name, Aliases: c.Aliases, Usage: c.Usage(), Summary: c.Summary, Help: c.Help, Args: []commandArg{}}
		for _, a := range c.Args {
			e.Args = append(e.Args, commandArg{Name: a.Name, Kind: string(a.Kind), Optional: a.Optional, Rest: a.Rest, Words: a.Words})
		}
		out.Commands = append(out.Commands, e)
	}
	return out
}
