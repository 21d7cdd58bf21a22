package cli

import (
	"github.com/parley-acp/parley/internal/linechat"
	"github.com/spf13/cobra"
)

func newLogoutCommand(g *globals) *cobra.Command {
	var af agentFlags
	cmd := &cobra.Command{
		Use:   "logout [--agent NAME | --agent-command CMD]",
		Short: "Sign out of an agent",
		Long: `Sign out of an agent: parley starts it and asks it to sign out (ACP's logout). An agent
that does not offer it (it does not advertise auth.logout) is an error: sign out with its
own tools. Without --agent: config.json's default_agent, else, on a terminal, the agent
you choose (without one, parley names the agents that may ask you to sign in).

Exit status: 0 signed out, 1 the agent could not (parley says why), 2 usage.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			if !cmd.Flags().Changed("agent") && af.command == "" {
				in := linechat.NewPrompter(cmd.InOrStdin())
				err := chooseSignInAgent(ctx, cmd, &af, in, linechat.IsTerminal(cmd.InOrStdin()), "Sign out of which agent?")
				in.Close()
				if err != nil {
					return err
				}
			}
			opts, err := af.sessionOptions(cmd)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			agent, log := newAgent(g, opts, nil, false)
			defer func() {
				agent.Close()
				if log != nil {
					log.Close()
				}
			}()
			if err := agent.Logout(ctx); err != nil {
				return &exitError{code: exitFailure, err: err} // ErrNoLogout says what to do
			}
			con := linechat.NewConsole(linechat.ConsoleOptions{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()})
			defer con.Close()
			con.Say("Signed out of %s.", opts.agentName)
			return nil
		},
	}
	af.registerSignIn(cmd)
	return cmd
}
