package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/parley-acp/parley/internal/agents"
	"github.com/parley-acp/parley/internal/config"
	"github.com/spf13/cobra"
)

func newAgentsCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "List the ACP agents parley knows and whether they can run here",
		Long: `List the ACP agents parley knows: the built-in ones and those of the agent_servers
section of ` + config.Path() + `, which has the shape editors use:

  {"agent_servers": {"mine": {"command": "my-agent", "args": ["--acp"], "env": {"KEY": "value"}}}}

Built-in agents that are not installed are started through npx.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := agents.Load(config.Path())
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tCOMMAND\tSOURCE\tRUNNABLE")
			for _, a := range reg.All() {
				runnable := "yes"
				if a.NotRunnable != "" {
					runnable = "no: " + a.NotRunnable
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", a.Name, strings.TrimSpace(a.Spec.String()), a.Source, runnable)
			}
			return w.Flush()
		},
	}
}
