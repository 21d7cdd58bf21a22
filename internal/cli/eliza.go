package cli

import (
	"github.com/parley-acp/parley/internal/eliza"
	"github.com/parley-acp/parley/internal/version"
	"github.com/spf13/cobra"
)

func newElizaCommand(g *globals) *cobra.Command {
	var deterministic, stdioMCP bool
	cmd := &cobra.Command{
		Use:   "eliza",
		Short: "Run the built-in ACP agent (the 1966 DOCTOR) on stdin and stdout",
		Long: `Run parley's built-in ACP agent on stdin and stdout. It answers with Weizenbaum's
DOCTOR script, needs no model, and understands test commands, one per prompt line:

` + eliza.Commands,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer byHand(cmd, "parley eliza", "eliza")()
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return eliza.Serve(ctx, agentStdio(cmd), eliza.Options{
				Deterministic: deterministic,
				StdioMCPOnly:  stdioMCP,
				Version:       version.String(),
				Logger:        g.logger,
			})
		},
	}
	cmd.Flags().BoolVar(&deterministic, "deterministic", false, "answer the same inputs identically in every fresh session")
	cmd.Flags().BoolVar(&stdioMCP, "stdio-mcp-only", false, "do not advertise HTTP MCP servers (clients must use stdio ones)")
	cmd.Flags().MarkHidden("stdio-mcp-only")
	return cmd
}
