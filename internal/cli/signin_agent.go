package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/linechat"
	"github.com/spf13/cobra"
)

// registerSignIn registers the agent flags of login and logout, whose --agent has no
// default: signing in to Eliza, who never asks for it, is never what was meant.
func (f *agentFlags) registerSignIn(cmd *cobra.Command) {
	f.register(cmd)
	fl := cmd.Flags().Lookup("agent")
	fl.Usage = "the agent to sign in to, by `NAME` (default: config.json's default_agent; else, on a terminal, the one you choose; see parley agents)"
	fl.DefValue, f.name = "", ""
}

// chooseSignInAgent sets f.name when neither --agent nor --agent-command was given: the
// configured default agent, else the one the user picks on a terminal; without a
// terminal it is a usage error (question asks on a terminal) naming the agents that may need a sign-in.
func chooseSignInAgent(ctx context.Context, cmd *cobra.Command, f *agentFlags, in *linechat.Prompter, tty bool, question string) error {
	if cmd.Flags().Changed("agent") || f.command != "" {
		return nil
	}
	cfg, err := config.Load(config.Path())
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if cfg.DefaultAgent != "" {
		f.name = cfg.DefaultAgent
		return nil
	}
	names := signInAgents(cfg)
	if !tty {
		return &exitError{code: exitUsage, err: fmt.Errorf("which agent? give --agent NAME (or set default_agent in config.json); the agents that may ask you to sign in: %s", strings.Join(names, ", "))}
	}
	con := linechat.NewConsole(linechat.ConsoleOptions{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), TTY: linechat.IsTerminal(cmd.OutOrStdout())})
	defer con.Close()
	lines := make([]string, len(names))
	for i, n := range names {
		lines[i] = fmt.Sprintf("  %d. %s", i+1, n)
	}
	con.Say("%s\n%s", question, strings.Join(lines, "\n"))
	mark, _ := in.DiscardTypeAhead()
	for {
		con.Prompt("? ")
		select {
		case line := <-in.Lines():
			if line.Epoch < mark {
				continue
			}
			text := strings.TrimSpace(line.Text)
			for i, n := range names {
				if n == text || strconv.Itoa(i+1) == text {
					f.name = n
					return nil
				}
			}
			con.Say("Answer 1 to %d, or a name.", len(names))
		case <-in.EOF():
			return &exitError{code: exitFailure, err: errors.New("no agent chosen")}
		case <-ctx.Done():
			return &exitError{code: exitCancelled, err: errors.New("interrupted")}
		}
	}
}

// signInAgents are the agents parley knows that may ask for a sign-in: all but those
// known to need none (Eliza, parley's own agent), whose profile has no credentials.
func signInAgents(cfg *config.File) []string {
	var names []string
	for _, a := range catalog.New(cfg).All() {
		if p := catalog.ProfileOf(a.Name, a.Spec); p != nil && len(p.Secrets) == 0 {
			continue
		}
		names = append(names, a.Name)
	}
	return names
}
