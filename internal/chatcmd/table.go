package chatcmd

import "strings"

// FrontEnd is a set of the front-ends that offer a command.
type FrontEnd uint8

const (
	Line        FrontEnd = 1 << iota // parley chat without a terminal UI (internal/linechat)
	TUI                              // parley chat on a terminal (internal/tui)
	Page                             // the web page and the VS Code webview (_parley/commands)
	Participant                      // @parley in VS Code's chat (editors/vscode/package.json)

	Terminal = Line | TUI // both chats in a terminal
)

// ArgKind says what an argument is, for completion and for checking it.
type ArgKind string

const (
	ArgText    ArgKind = "text"    // free text
	ArgWord    ArgKind = "word"    // one of Arg.Words
	ArgFile    ArgKind = "file"    // a file of the workspace
	ArgTurn    ArgKind = "turn"    // the number of a turn (/changes lists them; "#3" reads as 3)
	ArgChange  ArgKind = "change"  // a turn's number or a file
	ArgSession ArgKind = "session" // one of the agent's session ids (/sessions lists them)
	ArgAgent   ArgKind = "agent"   // an agent parley knows
	ArgMethod  ArgKind = "method"  // a sign-in method: its number in the list, or its id
	ArgMode    ArgKind = "mode"    // one of the session's modes
	ArgModel   ArgKind = "model"   // one of the agent's models
	ArgSetting ArgKind = "setting" // one of the session's settings
	ArgValue   ArgKind = "value"   // a value of the setting before it
)

// Arg is one argument of a command.
type Arg struct {
	Name     string  // as the usage shows it: FILE, TURN, ID
	Kind     ArgKind //
	Optional bool    // it may be left out (and so may every argument after it)
	// Rest takes the rest of the line, spaces and all (the last argument only).
	Rest bool
	// Words are the values an ArgWord takes.
	Words []string `json:",omitempty"`
}

// Command is one of parley's chat commands.
type Command struct {
	Name    string
	Aliases []string
	Args    []Arg
	Summary string // one line, for completion lists
	Help    string // what /help NAME says, beyond the summary
	In      FrontEnd
}

// Usage is the command as typed, with its arguments: "/undo [FILE|TURN]".
func (c *Command) Usage() string {
	var b strings.Builder
	b.WriteString("/" + c.Name)
	closing := 0
	for _, a := range c.Args {
		b.WriteString(" ")
		if a.Optional {
			b.WriteString("[")
			closing++
		}
		b.WriteString(a.Name)
		if a.Rest {
			b.WriteString("…")
		}
	}
	b.WriteString(strings.Repeat("]", closing))
	return b.String()
}

// Offered reports whether the front-end offers the command.
func (c *Command) Offered(fe FrontEnd) bool { return c.In&fe != 0 }

// Table is every command of parley's, in the order help lists them.
var Table = []Command{
	{Name: "help", Args: []Arg{{Name: "COMMAND", Kind: ArgText, Optional: true}}, In: Terminal,
		Summary: "keys and commands (or what one command does)",
		Help:    "Lists parley's commands and the agent's; /help NAME explains one of parley's."},
	{Name: "login", Args: []Arg{{Name: "METHOD", Kind: ArgMethod, Optional: true}}, In: Terminal,
		Summary: "sign in to the agent (the methods, or one of them)",
		Help:    "Without METHOD, lists the agent's sign-in methods (or signs in with its only one); METHOD is a method's number in that list or its id."},
	{Name: "config", Args: []Arg{{Name: "ID", Kind: ArgSetting, Optional: true}, {Name: "VALUE", Kind: ArgValue, Optional: true, Rest: true}}, In: Terminal | Page | Participant,
		Summary: "the session's settings (model, mode, thought level…): one's values, or set one",
		Help:    "Lists the agent's settings; /config ID lists one's values; /config ID VALUE sets it (the agent decides what was set, and parley shows that)."},
	{Name: "mode", Args: []Arg{{Name: "ID", Kind: ArgMode, Optional: true}}, In: Terminal | Page,
		Summary: "show or switch the session's mode",
		Help:    "The session's mode (a setting of category mode where the agent has one, else its modes)."},
	{Name: "model", Args: []Arg{{Name: "ID", Kind: ArgModel, Optional: true}}, In: Terminal | Page,
		Summary: "show or switch the model",
		Help:    "The model (a setting of category model where the agent has one, else its models)."},
	{Name: "sessions", Args: []Arg{{Name: "close|delete", Kind: ArgWord, Optional: true, Words: []string{"close", "delete"}}, {Name: "ID", Kind: ArgSession}}, In: Terminal,
		Summary: "the agent's sessions in this workspace; close or delete one",
		Help:    "Lists the agent's sessions (where it can list them); /sessions close ID closes one (session/close), /sessions delete ID deletes it from the agent's list (session/delete)."},
	{Name: "load", Args: []Arg{{Name: "ID", Kind: ArgSession}}, In: Terminal,
		Summary: "resume one of the agent's sessions",
		Help:    "Reopens the session ID (session/load replays it, session/resume does not); /sessions lists them."},
	{Name: "new", In: Terminal,
		Summary: "start a new session with this agent"},
	{Name: "agent", Aliases: []string{"agents"}, In: TUI,
		Summary: "talk to another agent, or switch conversation",
		Help:    "Picks one of the conversations on screen, or starts one with another agent parley knows."},
	{Name: "changes", In: Terminal,
		Summary: "the files each turn created, changed and deleted"},
	{Name: "diff", Args: []Arg{{Name: "FILE|TURN", Kind: ArgChange, Optional: true}}, In: Terminal,
		Summary: "the last turn's diffs (or FILE's, or turn TURN's)",
		Help:    "A FILE's diff is from the last turn that changed it, and says whether the file changed since (which an undo would not overwrite)."},
	{Name: "undo", Args: []Arg{{Name: "FILE|TURN", Kind: ArgChange, Optional: true, Rest: true}}, In: Terminal | Page,
		Summary: "undo the last turn (or FILE, or turn TURN); never overwrites a later change",
		Help:    "An undo is recorded like a turn: undo it to get the changes back. When a file changed after the turn, nothing is undone and the file is named."},
	{Name: "rewind", Args: []Arg{{Name: "TURN", Kind: ArgTurn}}, In: Terminal,
		Summary: "back to before TURN: its files and the conversation",
		Help:    "Undoes every turn from TURN on (as /undo does, never over a later change), then goes on in a new session that starts from before TURN: the agent is given the conversation's transcript until then. What came after stays reachable: the old conversation is kept (parley sessions), and the agent still has its session."},
	{Name: "fork", In: Terminal,
		Summary: "go on in a copy of the conversation (the original stays)",
		Help:    "A new session with the same agent that starts with this conversation: the agent's own session/fork where it offers it, else a new session whose first prompt carries the transcript. The original is kept (parley sessions; parley run --session ID)."},
	{Name: "handoff", Args: []Arg{{Name: "AGENT", Kind: ArgAgent}}, In: Terminal,
		Summary: "hand the conversation to another agent, in this workspace",
		Help:    "AGENT goes on with the conversation: its first prompt carries the transcript (summarised when it is long; the summary is shown), and the record of changes goes on."},
	{Name: "keep", Args: []Arg{{Name: "TURN|FILE", Kind: ArgChange, Optional: true}}, In: Terminal | Page,
		Summary: "keep the changes (of every turn, or of TURN): they can no longer be undone"},
	{Name: "find", Args: []Arg{{Name: "TEXT", Kind: ArgText, Rest: true}}, In: Terminal,
		Summary: "search the conversation for TEXT",
		Help:    "The terminal UI jumps between the matches (ctrl+f); the line chat prints the lines that have it."},
	{Name: "copy", Args: []Arg{{Name: "code", Kind: ArgWord, Optional: true, Words: []string{"code"}}}, In: TUI,
		Summary: "copy the agent's last reply (or its last code block) to the clipboard",
		Help:    "Through the terminal (OSC 52): a terminal that does not allow it copies nothing."},
	{Name: "quit", Aliases: []string{"exit"}, In: Terminal,
		Summary: "leave parley"},
}

// Lookup finds a command by its name or an alias.
func Lookup(name string) (*Command, bool) {
	for i := range Table {
		c := &Table[i]
		if c.Name == name {
			return c, true
		}
		for _, a := range c.Aliases {
			if a == name {
				return c, true
			}
		}
	}
	return nil, false
}

// For lists the commands the front-end offers, in the table's order.
func For(fe FrontEnd) []Command {
	var out []Command
	for _, c := range Table {
		if c.Offered(fe) {
			out = append(out, c)
		}
	}
	return out
}
