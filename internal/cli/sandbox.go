package cli

import (
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/spf13/cobra"
)

// newSandboxExecCommand is how parley's agent runs a command confined: this process
// confines itself with Landlock, then becomes the command. Not for people.
func newSandboxExecCommand() *cobra.Command {
	var writable []string
	var tmp string
	cmd := &cobra.Command{
		Use:    "sandbox-exec [--tmp DIR] --write DIR... -- COMMAND [ARGS...]",
		Short:  "Run a command that may write only in the given directories (used by parley agent)",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := sandbox.Exec(writable, tmp, args) // returns only on failure
			return &exitError{code: exitFailure, err: err}
		},
	}
	cmd.Flags().StringArrayVar(&writable, "write", nil, "a directory the command may write")
	cmd.Flags().StringVar(&tmp, "tmp", "", "the command's TMPDIR")
	cmd.Flags().SetInterspersed(false)
	return cmd
}
