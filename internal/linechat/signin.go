package linechat

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

// methodLines lists the methods, one per line, each with what signing in with it does.
// Variables are named, never their values.
func MethodLines(methods []conversation.AuthMethod, numbered bool) []string {
	width := 0
	for _, m := range methods {
		width = max(width, len(m.ID))
	}
	var lines []string
	for i, m := range methods {
		what := m.Effect()
		line := fmt.Sprintf("  %-*s  %s", width, m.ID, OneLineSafe(m.Name))
		if numbered {
			line = fmt.Sprintf("  %d. %-*s  %s", i+1, width, m.ID, OneLineSafe(m.Name))
		}
		if what != "" {
			line += " — " + what
		}
		if m.Description != "" && m.Description != m.Name {
			line += "\n" + strings.Repeat(" ", width+4) + OneLineSafe(m.Description)
		}
		lines = append(lines, line)
	}
	return lines
}

// runBlock shows everything a terminal method runs: parley login and the chat show it
// and ask runQuestion before the program runs, even when it is the only method.
func RunBlock(m conversation.AuthMethod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "parley: signing in with %s runs this program in your terminal (outside any sandbox):", OneLineSafe(string(m.ID)))
	for _, l := range m.Run.Lines() {
		b.WriteString("\n  " + l)
	}
	return b.String()
}

const RunQuestion = "Run it? [y/N] "

// refusedSignIn is the error for a method parley will not carry out, with what it
// would have run.
func RefusedSignIn(m conversation.AuthMethod) error {
	msg := fmt.Sprintf("parley will not sign in with %s: %s", OneLineSafe(string(m.ID)), m.Refused)
	if m.Run != nil {
		msg += "; it would run:\n  " + strings.Join(m.Run.Lines(), "\n  ")
	}
	return errors.New(msg)
}

// yes reports whether an answer to a [y/N] question says yes.
func Yes(answer string) bool {
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes"
}

// terminalRunner runs a terminal sign-in's program in parley's terminal while the
// prompter, which otherwise reads that terminal, waits. The program is the agent's own
// command (or one the agent named), shown whole to the user before (runBlock): it is
// started only once the user said yes, in the foreground, and parley waits for it.
func TerminalRunner(con *Console, in *Prompter) func(ctx context.Context, cmd *exec.Cmd) error {
	return func(ctx context.Context, cmd *exec.Cmd) error {
		con.Say("parley: running %s (it has this terminal until it exits)", OneLineSafe(safety.JoinArgv(cmd.Args)))
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
