package cli

import (
	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/eliza"
	"github.com/parley-acp/parley/internal/version"
	"github.com/spf13/cobra"
)

func newElizaCommand(g *globals) *cobra.Command {
	var deterministic, stdioMCP, noReopen, noResume bool
	cmd := &cobra.Command{
		Use:   "eliza",
		Short: "Run the built-in ACP agent (the 1966 DOCTOR) on stdin and stdout",
		Long: `Run parley's built-in ACP agent on stdin and stdout. It answers with Weizenbaum's
DOCTOR script, needs no model, and keeps its sessions in the user's cache directory
(~/.cache/parley-eliza), so that a later process loads, resumes or forks them. It understands test
commands, one per prompt line:

` + eliza.Commands,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer byHand(cmd, "parley eliza", "eliza")()
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return eliza.Serve(ctx, agentStdio(cmd), eliza.Options{
				Deterministic: deterministic,
				StdioMCPOnly:  stdioMCP,
				SessionDir:    elizaSessionDir(),
				NoReopen:      noReopen,
				NoResume:      noResume,
				Version:       version.String(),
				Logger:        g.logger,
			})
		},
	}
	cmd.Flags().BoolVar(&deterministic, "deterministic", false, "answer the same inputs identically in every fresh session")
	cmd.Flags().BoolVar(&stdioMCP, "stdio-mcp-only", false, "do not advertise HTTP MCP servers (clients must use stdio ones)")
	cmd.Flags().MarkHidden("stdio-mcp-only")
	cmd.Flags().BoolVar(&noResume, "no-resume", false, "offer session/load and fork, not session/resume (as some agents do)")
	cmd.Flags().BoolVar(&noReopen, "no-reopen", false, "offer none of session/load, session/resume and session/fork (a client must carry a conversation on itself)")
	return cmd
}

// elizaSessionDir is where Eliza keeps its sessions ("" when it cannot tell: they then
// last as long as the process).
func elizaSessionDir() string {
	if dirs := catalog.ExpandPaths([]string{catalog.ElizaSessions}, nil); len(dirs) == 1 {
		return dirs[0]
	}
	return ""
}
