package cli

import (
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/spf13/cobra"
)

// newSandboxExecCommand is how parley confines a process (an agent, or a command of its
// terminals or of its own agent): this process confines itself with Landlock, then
// becomes the command. Not for people.
func newSandboxExecCommand() *cobra.Command {
	var r sandbox.Rules
	var connect string
	cmd := &cobra.Command{
		Use:    "sandbox-exec [--tmp DIR] --write PATH... [--deny-read PATH...] [--tcp-connect PORTS|none] -- COMMAND [ARGS...]",
		Short:  "Run a command that may write only in the given directories (used by parley to confine agents and their commands)",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("tcp-connect") {
				ports, err := sandbox.ParsePorts(connect)
				if err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				r.LimitNet, r.ConnectTCP = true, ports
			}
			err := sandbox.Exec(r, args) // returns only on failure
			return &exitError{code: exitFailure, err: err}
		},
	}
	cmd.Flags().StringArrayVar(&r.Write, "write", nil, "a file or directory the command may write")
	cmd.Flags().StringArrayVar(&r.DenyRead, "deny-read", nil, "a file or directory the command may not read")
	cmd.Flags().StringVar(&r.Tmp, "tmp", "", "the command's TMPDIR")
	cmd.Flags().BoolVar(&r.PTY, "pty", false, "the command may open pseudo-terminals")
	cmd.Flags().StringVar(&connect, "tcp-connect", "", "the only TCP `PORTS` the command may connect to (comma-separated, or none)")
	cmd.Flags().SetInterspersed(false)
	return cmd
}
