package cli

import (
	"fmt"
	"os"

	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/remote"
	"github.com/spf13/cobra"
)

func newACPCommand(g *globals) *cobra.Command {
	var af agentFlags
	var servers string
	var cf connectFlags
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
shown to other users by ps, and an agent's env may hold an API key.

--connect URL is the same agent in front of a parley server elsewhere (parley web, on
this machine or another): URL is the address it printed, and the token had better come
in $PARLEY_TOKEN (ps shows a command line to every user of the machine). Each line
from the client goes to the server as it is and back, so any stdio ACP client (an
editor, acpx) uses the server's agents: they run there, on its files, confined and
judged by its settings, and a session's cwd is the server's workspace, whatever
directory the client names. When the server goes (it stops, the network drops, the
token is revoked), every request waiting for an answer is answered with an error that
says so, and parley exits with status 1. See docs/remote.md.`,
		Example: `  parley acp --agent claude --cwd ~/src/project
  PARLEY_TOKEN=… parley acp --connect http://devbox:8123/
  parley acp --connect https://devbox.example/parley/ --tls-ca ca.pem`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tuneHostGC()
			if err := cf.localOnly(cmd); err != nil {
				return err
			}
			if cf.url != "" {
				return runACPConnect(cmd, &cf)
			}
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
	cf.register(cmd)
	cmd.Flags().StringVar(&servers, "agent-servers", "", "further agents, as `JSON` in the configuration file's agent_servers shape ({\"name\": {\"command\": …, \"args\": […], \"env\": {…}}}); they win over the file's of the same name (prefer $PARLEY_AGENT_SERVERS when an env holds a secret: ps shows a command line)")
	return cmd
}

// runACPConnect is parley acp --connect: the client's stdio relayed to the server's
// ACP WebSocket (internal/remote).
func runACPConnect(cmd *cobra.Command, cf *connectFlags) error {
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	conn, err := remote.Dial(ctx, cf.url, cf.options())
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	if err := remote.Relay(ctx, conn, agentStdio(cmd)); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	return nil
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
