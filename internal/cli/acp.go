package cli

import (
	"fmt"
	"os"

	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/json"
	"github.com/spf13/cobra"
)

func newACPCommand(g *globals) *cobra.Command {
	var af agentFlags
	var servers string
	cmd := &cobra.Command{
		Use:   "acp [flags]",
		Short: "Be an ACP agent on stdin and stdout, in front of any agent parley knows",
		Long: `Serve ACP on stdin and stdout, as an agent, in front of the agents parley knows: a client
(the VS Code extension's chat, any ACP client) opens sessions with the agent given by
--agent (or another, named in session/new's _meta.parley.agent), and parley runs it,
answers its file and terminal requests inside the workspace (--cwd), applies your
permission rules, and asks the client only what a person must answer. This is the web
chat's protocol (parley web) over stdio. --agent-servers adds agents to those of the
configuration file; so does $PARLEY_AGENT_SERVERS, in the same shape, which the VS Code
extension uses for its parley.agentServers setting: unlike a flag, the environment is not
shown to other users by ps, and an agent's env may hold an API key.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if servers == "" {
				servers = os.Getenv("PARLEY_AGENT_SERVERS") // not in the command line, where ps shows it
			}
			extra, err := parseAgentServers(servers)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			srv, l, err := newACPServer(g, cmd, &af, 0, extra)
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
	cmd.Flags().StringVar(&servers, "agent-servers", "", "further agents, as `JSON` in the configuration file's agent_servers shape ({\"name\": {\"command\": …, \"args\": […], \"env\": {…}}}); they win over the file's of the same name (prefer $PARLEY_AGENT_SERVERS when an env holds a secret: ps shows a command line)")
	return cmd
}

// parseAgentServers reads --agent-servers: agents by name, as the configuration file's
// agent_servers defines them.
func parseAgentServers(s string) (map[string]config.AgentServer, error) {
	if s == "" {
		return nil, nil
	}
	var out map[string]config.AgentServer
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("--agent-servers: %w", err)
	}
	for name, a := range out {
		if name == "" || a.Command == "" {
			return nil, fmt.Errorf("--agent-servers: agent %q: needs a name and a command", name)
		}
	}
	return out, nil
}
