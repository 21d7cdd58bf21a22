package cli

import (
	"errors"
	"os"

	"github.com/parley-acp/parley/internal/mcpbridge"
	"github.com/spf13/cobra"
)

// newMCPShimCommand is the stdio side of the vscode_tools MCP server, for agents that
// speak only stdio MCP: the bridge starts it with the session's URL, and the secret in
// the environment (never on the command line, where other users could read it).
func newMCPShimCommand(g *globals) *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:    "mcp-shim --url URL",
		Short:  "Relay an MCP server from stdio to parley's tool bridge (started by parley itself)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			secret := os.Getenv(mcpbridge.SecretEnv)
			if url == "" || secret == "" {
				return &exitError{code: exitUsage, err: errors.New("mcp-shim needs --url and " + mcpbridge.SecretEnv + "; parley starts it itself")}
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return mcpbridge.RunShim(ctx, url, secret, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "the bridge's URL for this session")
	return cmd
}
