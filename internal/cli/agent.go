package cli

import (
	"os"

	"github.com/parley-acp/parley/internal/agent"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/version"
	"github.com/spf13/cobra"
)

// defaultModel is the model `parley agent` uses when neither --model nor PARLEY_MODEL
// says otherwise.
const defaultModel = "ollama:qwen2.5-coder:7b"

func newAgentCommand(g *globals) *cobra.Command {
	var model, baseURL string
	var maxTurns, numCtx int
	var noThink bool
	cmd := &cobra.Command{
		Use:   "agent [flags]",
		Short: "Run parley's coding agent (Ollama or OpenAI-compatible) as an ACP agent on stdin and stdout",
		Long: `Run parley's own coding agent as an ACP agent on stdin and stdout, for an editor or
for parley chat (parley chat --agent parley). It reads, searches and edits files and runs
commands inside the session's workspace, through the client when the client offers fs and
terminal access.

Models: --model ollama:NAME (Ollama's /api/chat, default server http://127.0.0.1:11434)
or --model openai:NAME --base-url URL (any OpenAI-compatible /v1/chat/completions; the API
key comes from OPENAI_API_KEY). PARLEY_MODEL sets the default model.`,
		Example: `  parley chat --agent-command "parley agent --model ollama:qwen2.5-coder:7b"
  parley run --agent-command "parley agent --model openai:gpt-4o-mini --base-url http://127.0.0.1:8080/v1" "fix the failing test"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if model == "" {
				model = os.Getenv("PARLEY_MODEL")
			}
			if model == "" {
				model = defaultModel
			}
			provider, name, err := llm.New(model, baseURL, os.Getenv("OPENAI_API_KEY"))
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return agent.Serve(ctx, commandStdio(cmd), agent.Options{
				Provider:        provider,
				Model:           name,
				MaxTurnRequests: maxTurns,
				NumCtx:          numCtx,
				NoThink:         noThink,
				Version:         version.String(),
				Logger:          g.logger,
			})
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "the model: ollama:NAME or openai:NAME (default $PARLEY_MODEL, else "+defaultModel+")")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "the model server's URL (default: Ollama's local address; required for most openai: servers)")
	cmd.Flags().IntVar(&maxTurns, "max-turn-requests", 25, "the most model requests in one turn")
	cmd.Flags().IntVar(&numCtx, "num-ctx", 0, "Ollama's context size (options.num_ctx); 0 keeps the server's default")
	cmd.Flags().BoolVar(&noThink, "no-think", false, "never ask the model for its reasoning")
	return cmd
}
