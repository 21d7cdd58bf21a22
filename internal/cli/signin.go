package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/safety"
)

// How run, chat and login show an agent's sign-in methods, and how a terminal sign-in
// runs in the user's terminal.

// exitSignIn is parley run's exit status when the agent needs the user to sign in.
const exitSignIn = 6

// methodLines lists the methods, one per line, each with what signing in with it does.
// Variables are named, never their values.
func methodLines(methods []conversation.AuthMethod, numbered bool) []string {
	width := 0
	for _, m := range methods {
		width = max(width, len(m.ID))
	}
	var lines []string
	for i, m := range methods {
		what := m.Effect()
		line := fmt.Sprintf("  %-*s  %s", width, m.ID, oneLineSafe(m.Name))
		if numbered {
			line = fmt.Sprintf("  %d. %-*s  %s", i+1, width, m.ID, oneLineSafe(m.Name))
		}
		if what != "" {
			line += " — " + what
		}
		if m.Description != "" && m.Description != m.Name {
			line += "\n" + strings.Repeat(" ", width+4) + oneLineSafe(m.Description)
		}
		lines = append(lines, line)
	}
	return lines
}

// loginCommand is the parley login command line that signs in to the agent of opts with
// method.
func loginCommand(opts sessionOptions, method string) string {
	argv := []string{"parley", "login"}
	if opts.agentCommand != "" {
		argv = append(argv, "--agent-command", opts.agentCommand)
	} else {
		argv = append(argv, "--agent", opts.agentName)
	}
	if opts.cwdFlag != "" {
		argv = append(argv, "--cwd", opts.cwdFlag)
	}
	return safety.JoinArgv(append(argv, "--method", method))
}

// signInNeeded is parley run's message when the agent needs a sign-in: the agent, its
// methods, and the command that signs in with each.
func signInNeeded(opts sessionOptions, ae *conversation.AuthRequiredError) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%v.\nparley run does not sign in by itself.", ae)
	if len(ae.Methods) == 0 {
		b.WriteString(" The agent offers no sign-in method parley can use: sign in with the agent's own tools.")
		return &exitError{code: exitSignIn, err: errors.New(b.String())}
	}
	b.WriteString(" Its methods:\n")
	b.WriteString(strings.Join(methodLines(ae.Methods, false), "\n"))
	var usable []conversation.AuthMethod
	for _, m := range ae.Methods {
		if m.Refused == "" {
			usable = append(usable, m)
		}
	}
	if len(usable) == 0 {
		b.WriteString("\nparley refuses each of them: sign in with the agent's own tools.")
		return &exitError{code: exitSignIn, err: errors.New(b.String())}
	}
	b.WriteString("\nTo sign in, run one of:")
	for _, m := range usable {
		fmt.Fprintf(&b, "\n  %s", loginCommand(opts, string(m.ID)))
		if m.Kind == conversation.AuthEnvVar {
			var names []string
			for _, v := range m.Vars {
				names = append(names, v.Name)
			}
			fmt.Fprintf(&b, "   (after setting %s)", strings.Join(names, ", "))
		}
	}
	return &exitError{code: exitSignIn, err: errors.New(b.String())}
}

// runBlock shows everything a terminal method runs: parley login and the chat show it
// and ask runQuestion before the program runs, even when it is the only method.
func runBlock(m conversation.AuthMethod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "parley: signing in with %s runs this program in your terminal (outside any sandbox):", oneLineSafe(string(m.ID)))
	for _, l := range m.Run.Lines() {
		b.WriteString("\n  " + l)
	}
	return b.String()
}

const runQuestion = "Run it? [y/N] "

// refusedSignIn is the error for a method parley will not carry out, with what it
// would have run.
func refusedSignIn(m conversation.AuthMethod) error {
	msg := fmt.Sprintf("parley will not sign in with %s: %s", oneLineSafe(string(m.ID)), m.Refused)
	if m.Run != nil {
		msg += "; it would run:\n  " + strings.Join(m.Run.Lines(), "\n  ")
	}
	return errors.New(msg)
}

// yes reports whether an answer to a [y/N] question says yes.
func yes(answer string) bool {
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes"
}

// terminalRunner runs a terminal sign-in's program in parley's terminal while the
// prompter, which otherwise reads that terminal, waits. The program is the agent's own
// command (or one the agent named), shown whole to the user before (runBlock): it is
// started only once the user said yes, in the foreground, and parley waits for it.
func terminalRunner(con *console, in *prompter) func(ctx context.Context, cmd *exec.Cmd) error {
	return func(ctx context.Context, cmd *exec.Cmd) error {
		con.say("parley: running %s (it has this terminal until it exits)", oneLineSafe(safety.JoinArgv(cmd.Args)))
		resume := in.suspend()
		defer resume()
		if err := cmd.Start(); err != nil {
			return err
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			cmd.Process.Kill()
			<-done
			return ctx.Err()
		}
	}
}
