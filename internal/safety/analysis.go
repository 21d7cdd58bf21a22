package safety

import (
	"path"
	"slices"
	"strings"
)

// Finding is one reason a command is risky.
type Finding struct {
	Tier   Tier
	Reason string // for a user: "deletes / and everything in it"
	// Command is the simple command the finding is about, as shell text ("" when it is
	// about the line as a whole).
	Command string
}

// Command is one simple command that runs, with the wrappers that start it stripped:
// what a permission rule matches.
type Command struct {
	Env      []string // NAME=value assignments that precede it, env's included
	Wrappers []string // the wrappers it runs through, outermost first ("sudo", "timeout 60")
	Program  string   // the program as written, a name or a path
	Args     []string // its arguments: the value of a literal word, others as written
	// Literal is set when every word is known before the command runs (no expansion,
	// substitution or glob).
	Literal bool
	// Nested is set when another program runs it from a string or its input (sh -c,
	// eval, su -c, xargs, find -exec, a heredoc fed to a shell) rather than the line's
	// own shell.
	Nested bool
	// core holds the indices of the arguments that only say where or how the program
	// runs (git -C dir -c k=v --no-pager), left out of Core.
	core []int
	// shown is each argument as String shows it: quoted when literal, as written when
	// not (so that $f reads as a variable, not as the text "$f").
	shown          []string
	dynamicProgram bool
	// carrier is set when the command only runs code given in its arguments (sh -c,
	// eval), whose commands are listed after it.
	carrier bool
	// RunTime is set when what the command runs is only known when it runs: a program
	// or code held in a variable or printed by another command, a git subcommand that
	// may be an alias or an extension, arguments read from the input (xargs). A rule
	// that would refuse or ask about some command must assume it could be this one.
	RunTime bool
	// anything is set when, RunTime, the command could be any command at all (a git
	// alias, shell code in a variable), not only its own program with other words.
	anything bool
	// input is set when more arguments are read from the input when it runs (xargs).
	input bool
}

// Patterns are the command as permission patterns for what it may turn out to be, with
// its assignments and wrappers and without them (as Full and String): its literal words
// as they are shown, each word only known when it runs as *, arguments read from the
// input as a final *, and only * when it could be any command at all (a git alias, code
// in a variable). A rule whose pattern can match some text one of these matches could
// match the command.
func (c Command) Patterns() []string {
	if c.anything || c.dynamicProgram && len(c.Args) == 0 {
		return []string{"*"}
	}
	prog := JoinArgv([]string{c.Program})
	if c.dynamicProgram {
		prog = "*"
	}
	words := []string{prog}
	for i, a := range c.Args {
		if i < len(c.shown) && c.shown[i] != QuoteWord(a) { // only known when it runs
			words = append(words, "*")
			continue
		}
		words = append(words, QuoteWord(a))
	}
	if c.input {
		words = append(words, "*")
	}
	bare := strings.Join(words, " ")
	wrapped := append(append(append([]string(nil), c.Env...), c.Wrappers...), bare)
	if full := strings.Join(wrapped, " "); full != bare {
		return []string{full, bare}
	}
	return []string{bare}
}

// shownWord is how a word appears in Command.String.
func shownWord(w word) string {
	if w.lit {
		return QuoteWord(w.val)
	}
	if w.src != "" {
		return w.src
	}
	return w.val
}

// Name is the program's name: the last element of its path, lower-cased, without .exe.
func (c Command) Name() string { return programName(c.Program) }

// Argv is the program followed by its arguments.
func (c Command) Argv() []string { return append([]string{c.Program}, c.Args...) }

// Core is Argv without the options that only say where or how the program runs (git's
// -C, -c, --no-pager...), so that "git -C . --no-pager push" reads as "git push". A
// permission rule that asks or refuses matches it as well as the full form.
func (c Command) Core() []string {
	out := []string{c.Program}
	for i, a := range c.Args {
		if !slices.Contains(c.core, i) {
			out = append(out, a)
		}
	}
	return out
}

// String is the command as shell text, without its wrappers and assignments: literal
// words quoted as needed, the others as written.
func (c Command) String() string {
	if len(c.shown) != len(c.Args) {
		return JoinArgv(c.Argv())
	}
	prog := JoinArgv([]string{c.Program})
	if c.dynamicProgram {
		prog = c.Program
	}
	return strings.Join(append([]string{prog}, c.shown...), " ")
}

// Full is the command as shell text with its assignments and wrappers.
func (c Command) Full() string {
	parts := append([]string(nil), c.Env...)
	parts = append(parts, c.Wrappers...)
	return strings.Join(append(parts, c.String()), " ")
}

func programName(p string) string {
	name := strings.ToLower(path.Base(p))
	return strings.TrimSuffix(name, ".exe")
}

// Analysis is what Analyze found in one command line.
type Analysis struct {
	Line     string
	Tier     Tier      // the highest tier of the findings, None without any
	Findings []Finding // highest tier first, each reason once
	Commands []Command // every simple command that runs, in the order met
	// Err is set when the line cannot be parsed; the tier is then at least High.
	Err error
	// CodeFiles names the code, in files the agent can change, that the command runs:
	// a script, a makefile, the project's tests. What runs can change between two runs
	// of the same words, so an "always allow" cannot bind it.
	CodeFiles []string
	shape     Shape
}

// Reason is the first (highest) finding's reason, "" when there is none.
func (a *Analysis) Reason() string {
	if len(a.Findings) == 0 {
		return ""
	}
	return a.Findings[0].Reason
}

// Shape is what an "always" answer about this command covers (see the package comment).
func (a *Analysis) Shape() Shape { return a.shape }

// Runs lists what runs, one command per line with its assignments and wrappers, leaving
// out the shells that only carry code (sh -c, eval): "git push" and
// "bash -lc 'git push'" run the same. Two lines with the same Runs (and the same tier)
// do the same thing. A line that cannot be parsed runs itself.
func (a *Analysis) Runs() string {
	if a.Err != nil || len(a.Commands) == 0 {
		return strings.TrimSpace(a.Line)
	}
	var b strings.Builder
	for _, c := range a.Commands {
		if c.carrier {
			continue
		}
		b.WriteString(c.Full())
		b.WriteByte('\n')
	}
	return b.String()
}
