package conversation

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/toolui"
)

// What a terminal sign-in runs, whole. A terminal method runs a program in the user's
// terminal, outside any sandbox the agent has: the user is shown all of it (the program
// and where it was found, every argument, every variable the method sets, the
// directory) and says yes before it runs, even when it is the only method. A method
// whose variables make the program run code its command line does not show (BASH_ENV,
// LD_PRELOAD, NODE_OPTIONS…, safety.CodeVariable's list) is refused outright: no answer
// makes it run. So is an environment variable method that asks for one of them.

// TerminalRun is everything a terminal sign-in runs.
type TerminalRun struct {
	Program string   // as the agent's command or the older form names it
	Path    string   // the file that runs ("" when it is not found: the sign-in then fails)
	Args    []string // the arguments after the program
	Env     []string // NAME=value, sorted: the variables the method adds
	Dir     string   // the working directory
	// Named: the agent named this program (the older _meta["terminal-auth"] form); else
	// it is the agent's own configured command, with the method's arguments appended.
	Named bool
}

// Lines shows r, one line each for the program, the arguments, the variables and the
// directory, every character visible (a control or invisible one as its picture or code
// point, an argument's spaces inside its quotes).
func (r TerminalRun) Lines() []string {
	program := quoteArg(r.Program)
	switch {
	case r.Path == "":
		program += "  (not found on PATH)"
	case r.Path != r.Program:
		program += "  (" + quoteArg(r.Path) + ")"
	}
	origin := "the agent's own command"
	if r.Named {
		origin = "named by the agent"
	}
	lines := []string{"program:   " + program + "  — " + origin}
	args := "(none)"
	if len(r.Args) > 0 {
		args = quoteArgs(r.Args)
	}
	lines = append(lines, "arguments: "+args)
	vars := "(none added)"
	if len(r.Env) > 0 {
		var shown []string
		for _, kv := range r.Env {
			k, v, _ := strings.Cut(kv, "=")
			shown = append(shown, visible(k)+"="+quoteArg(v))
		}
		vars = strings.Join(shown, " ")
	}
	lines = append(lines, "variables: "+vars)
	return append(lines, "directory: "+quoteArg(r.Dir))
}

// Line is r as one command line: variables, program and arguments, every character
// visible.
func (r TerminalRun) Line() string {
	var words []string
	for _, kv := range r.Env {
		k, v, _ := strings.Cut(kv, "=")
		words = append(words, visible(k)+"="+quoteArg(v))
	}
	return strings.Join(append(words, quoteLine(append([]string{r.Program}, r.Args...))), " ")
}

func (r TerminalRun) equal(o TerminalRun) bool {
	return r.Program == o.Program && r.Path == o.Path && slices.Equal(r.Args, o.Args) &&
		slices.Equal(r.Env, o.Env) && r.Dir == o.Dir && r.Named == o.Named
}

// ErrNotApproved is SignIn's error for a terminal method the view did not have approved
// as it runs now (SignInOptions.Approved).
var ErrNotApproved = errors.New("this sign-in runs a program in your terminal: it runs only once you have seen the whole of it and said yes")

// terminalRun is what a terminal method runs: program and args, the method's variables
// env, in dir ("" is parley's own directory).
func terminalRun(program string, args []string, env map[string]string, dir string, named bool) TerminalRun {
	r := TerminalRun{Program: program, Args: slices.Clone(args), Dir: dir, Named: named}
	if r.Dir == "" {
		r.Dir, _ = os.Getwd()
	}
	// Found from parley's directory and PATH, made absolute: the file shown is the one
	// that runs, whatever the directory.
	if path, err := exec.LookPath(program); err == nil {
		if abs, err := filepath.Abs(path); err == nil {
			r.Path = abs
		}
	}
	for _, k := range sortedKeys(env) {
		r.Env = append(r.Env, k+"="+env[k])
	}
	return r
}

// refusedEnv says why parley will not start a program with the variables names (""
// when it will): one that runs code, or a name that is not one variable.
func refusedEnv(names []string) string {
	for _, k := range names {
		if !validEnvName(k) {
			return fmt.Sprintf("it sets a variable named %s, which is not a variable name", quoteArg(k))
		}
		if why, ok := safety.CodeVariable(k); ok {
			return fmt.Sprintf("it sets %s, which %s: code its command line does not show", visible(k), why)
		}
	}
	return ""
}

// command is the process r describes, with the agent's configured variables and those
// an earlier sign-in gave it (base) under the method's own.
func (r TerminalRun) command(base []string) *exec.Cmd {
	path := r.Path
	if path == "" {
		path = r.Program
	}
	cmd := exec.Command(path, r.Args...)
	cmd.Args[0] = r.Program
	cmd.Dir = r.Dir
	cmd.Env = append(append(os.Environ(), base...), r.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return cmd
}

// quoteArgs is a program's arguments as a shell would take them, each quoted by quoteArg.
func quoteArgs(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = quoteArg(a)
	}
	return strings.Join(quoted, " ")
}

// quoteLine is argv as a command line (safety.JoinArgv: a first word that would be an
// assignment quoted too), every character visible.
func quoteLine(argv []string) string {
	shown := make([]string, len(argv))
	for i, a := range argv {
		shown[i] = visible(a)
	}
	return safety.JoinArgv(shown)
}

// quoteArg is one argument as a shell would take it (safety.QuoteWord: as it is when
// nothing in it means something to a shell, else quoted), every character visible. The
// characters are made visible first, so that a newline shows as ⏎ (inside quotes
// when the word needs them) rather than as the shell's $'\n'.
func quoteArg(a string) string { return safety.QuoteWord(visible(a)) }

// visible is s on one line with every character visible: toolui.SafeText, with
// newlines and tabs shown as ⏎ and ⇥.
func visible(s string) string {
	return strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\t", "⇥").Replace(toolui.SafeText(s))
}

// Effect says, on one line with every character visible, what signing in with m does:
// for a terminal method the whole command line, variables and all; for a refused one,
// why parley refuses it. Every view lists the methods with it.
func (m AuthMethod) Effect() string {
	if m.Refused != "" {
		return "parley refuses it: " + m.Refused
	}
	switch m.Kind {
	case AuthAgent:
		return "the agent signs you in (it may open a web page or ask you here)"
	case AuthTerminal:
		if m.Run == nil {
			return ""
		}
		return "runs `" + m.Run.Line() + "` in this terminal (parley asks first)"
	case AuthEnvVar:
		var names []string
		for _, v := range m.Vars {
			n := visible(v.Name)
			if v.Optional {
				n += " (optional)"
			}
			names = append(names, n)
		}
		s := "the agent reads " + strings.Join(names, ", ")
		if m.Link != "" {
			s += "; get it at " + visible(m.Link)
		}
		return s
	}
	return ""
}
