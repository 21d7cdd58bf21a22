package cli

import (
	"github.com/spf13/cobra"
)

func newACPCommand(g *globals) *cobra.Command {
	var af agentFlags
	cmd := &cobra.Command{
		Use:   "acp [flags]",
		Short: "Be an ACP agent on stdin and stdout, in front of any agent parley knows",
		Long: `Serve ACP on stdin and stdout, as an agent, in front of the agents parley knows: a client
(the VS Code extension's chat, any ACP client) opens sessions with the agent given by
--agent (or another, named in session/new's _meta.parley.agent), and parley runs it,
answers its file and terminal requests inside the workspace (--cwd), applies your
permission rules, and asks the client only what a person must answer. This is the web
chat's protocol (parley web) over stdio.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			srv, l, err := newACPServer(g, cmd, &af, 0)
			if err != nil {
				return err
			}
			defer l.close()
			defer srv.Close()
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return srv.Serve(ctx, agentStdio(cmd))
		},
	}
	af.register(cmd)
	return cmd
}
