package chatcmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Call is a line that names one of parley's commands, its arguments split as the
// command takes them.
type Call struct {
	Cmd  *Command
	Name string   // as typed (an alias stays an alias)
	Args []string // one per argument given, in order; the last takes the rest of the line if it is Rest
}

// Arg returns the i-th argument ("" when it was left out).
func (c Call) Arg(i int) string {
	if i < len(c.Args) {
		return c.Args[i]
	}
	return ""
}

// ErrNotCommand: the line does not start with a slash.
var ErrNotCommand = errors.New("not a command")

// UnknownError: the line names no command of parley's. It is the agent's if the agent
// has it; else Suggestion, when there is one, is the command meant.
type UnknownError struct {
	Name       string
	Suggestion string
}

func (e *UnknownError) Error() string {
	msg := fmt.Sprintf("/%s is not a command of parley's or of the agent's", e.Name)
	if e.Suggestion != "" {
		msg += "; did you mean /" + e.Suggestion + "?"
	}
	return msg + " (/help lists them)"
}

// UsageError: the command's arguments are wrong.
type UsageError struct {
	Cmd *Command
	Why string
}

func (e *UsageError) Error() string {
	return fmt.Sprintf("%s: %s (usage: %s)", "/"+e.Cmd.Name, e.Why, e.Cmd.Usage())
}

// Parse reads a line typed in a chat: ErrNotCommand if it does not start with "/", an
// *UnknownError if parley has no such command (or the front-end does not offer it), a
// *UsageError if its arguments do not fit. Arguments are split at spaces, except the
// last when it takes the rest of the line.
func Parse(line string, fe FrontEnd) (Call, error) {
	line = strings.TrimSpace(line)
	rest, ok := strings.CutPrefix(line, "/")
	if !ok || rest == "" {
		return Call{}, ErrNotCommand
	}
	name, rest, _ := strings.Cut(rest, " ")
	cmd, ok := Lookup(name)
	if !ok || !cmd.Offered(fe) {
		return Call{}, &UnknownError{Name: name, Suggestion: Suggest(name, fe)}
	}
	call := Call{Cmd: cmd, Name: name}
	for _, a := range cmd.Args {
		rest = strings.TrimSpace(rest)
		if rest == "" {
			if !a.Optional {
				return Call{}, &UsageError{Cmd: cmd, Why: "needs " + a.Name}
			}
			break
		}
		var word string
		if a.Rest {
			word, rest = rest, ""
		} else {
			word, rest, _ = strings.Cut(rest, " ")
		}
		if err := check(a, word); err != nil {
			return Call{}, &UsageError{Cmd: cmd, Why: err.Error()}
		}
		call.Args = append(call.Args, word)
	}
	if rest = strings.TrimSpace(rest); rest != "" {
		return Call{}, &UsageError{Cmd: cmd, Why: fmt.Sprintf("too many arguments (%q)", rest)}
	}
	return call, nil
}

// check says what is wrong with a word given for a.
func check(a Arg, word string) error {
	switch a.Kind {
	case ArgWord:
		for _, w := range a.Words {
			if w == word {
				return nil
			}
		}
		return fmt.Errorf("takes %s, not %q", strings.Join(a.Words, " or "), word)
	case ArgTurn:
		if _, ok := TurnNumber(word); !ok {
			return fmt.Errorf("%s is the number of a turn (/changes lists them), not %q", a.Name, word)
		}
	}
	return nil
}

// TurnNumber reads "3" or "#3" as turn 3.
func TurnNumber(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
	return n, err == nil && n > 0
}

// Suggest is the command of the front-end's nearest to name, or "" when none is near:
// at most a third of its letters wrong (one for a short name), a swap of two counting
// as one, or name the start of the command.
func Suggest(name string, fe FrontEnd) string {
	best, bestD := "", max(1, len(name)/3)+1
	for _, c := range For(fe) {
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			d := distance(name, n)
			if strings.HasPrefix(n, name) && len(name) >= 2 {
				d = min(d, 1)
			}
			if d < bestD {
				best, bestD = c.Name, d
			}
		}
	}
	return best
}

// distance is the edit distance of a and b (insertions, deletions, substitutions and
// swaps of neighbours), in bytes: command names are ASCII.
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
