// Package cli is parley's command line: one file per subcommand, each a thin layer that
// parses flags and hands the work to the package that owns it.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/parley-acp/parley/internal/version"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exitError carries a process exit status out of a subcommand. Its message, if any, has
// been printed already or is printed by Main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// globals are the flags every subcommand shares.
type globals struct {
	logLevel string
	traceDir string // vscodelm's --trace-dir, also accepted before the subcommand
	logger   *slog.Logger
}

// Main runs parley with args and returns the process exit status.
func Main(args []string) int {
	return run(context.Background(), args, os.Stdin, os.Stdout, os.Stderr)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	defer enableEscapes(stdout, stderr)()
	defer closeGates() // the --sandbox-net proxies of the agents this command started
	g := &globals{}
	root := &cobra.Command{
		Use:   "parley",
		Short: "Connect ACP coding agents with editors and terminals",
		Long: `parley connects coding agents that speak ACP (the Agent Client Protocol) with the
places that want to use them: your terminal (parley chat, parley run), the browser (parley
web), VS Code (parley vscodelm, parley acp), and its own agents (parley agent, parley eliza).`,
		Example: `  parley chat                        talk with the default agent in this directory
  parley chat --agent claude         talk with another (parley agents lists them)
  parley agents install ID           install an agent from the ACP registry
  parley login --agent gemini        sign in to an agent (parley logout signs out)
  parley run "explain this repo"     one prompt, the reply on stdout
  parley web                         chat with agents in the browser`,
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return g.setup(stderr)
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	registerGlobalFlags(root.PersistentFlags(), g)
	root.CompletionOptions.HiddenDefaultCmd = true
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return fmt.Errorf("%w\nRun '%s --help' for usage.", err, cmd.CommandPath())
	})
	for _, sub := range subcommandsFor(root.PersistentFlags(), args) {
		root.AddCommand(sub.build(g))
	}
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "parley:", toolui.SafeText(ee.err.Error())) // errors quote agents
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "parley:", toolui.SafeText(err.Error()))
	return 2
}

// subcommands are parley's commands, by name. Building one registers its flags and
// help, which for all of them together costs more than the rest of a start: run builds
// only the one its arguments name (subcommandsFor). TestSubcommandNames keeps each name
// its command's.
var subcommands = []subcommand{
	{"eliza", newElizaCommand}, {"agent", newAgentCommand}, {"run", newRunCommand},
	{"sessions", newSessionsCommand}, {"chat", newChatCommand}, {"web", newWebCommand},
	{"acp", newACPCommand}, {"login", newLoginCommand}, {"logout", newLogoutCommand},
	{"agents", newAgentsCommand}, {"permissions", newPermissionsCommand},
	{"changes", newChangesCommand}, {"undo", newUndoCommand}, {"mcp-shim", newMCPShimCommand},
	{"vscodelm", newVSCodeLMCommand},
	{"sandbox-exec", func(*globals) *cobra.Command { return newSandboxExecCommand() }},
}

// registerGlobalFlags registers the flags every command has.
func registerGlobalFlags(fs *pflag.FlagSet, g *globals) {
	fs.StringVar(&g.logLevel, "log", "warn", "log `LEVEL` on stderr: debug, info, warn or error")
	fs.StringVar(&g.traceDir, "trace-dir", "", "vscodelm: record the protocol traffic in this directory `DIR`")
	fs.MarkHidden("trace-dir")
}

// takesValue says whether arg is one of flags written as "--name" whose value is the
// next argument.
func takesValue(flags *pflag.FlagSet, arg string) bool {
	name, ok := strings.CutPrefix(arg, "--")
	if !ok || strings.Contains(name, "=") {
		return false
	}
	f := flags.Lookup(name)
	return f != nil && f.NoOptDefVal == ""
}

type subcommand struct {
	name  string
	build func(*globals) *cobra.Command
}

// subcommandsFor returns the subcommands run must build for args: the one the first
// argument that is not a flag names; none for --version without a command; every one
// otherwise (the root's help lists them, help and completion take a command's name
// after them, and an unknown name is answered with the nearest ones).
func subcommandsFor(global *pflag.FlagSet, args []string) []subcommand {
	version := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return subcommands
		case takesValue(global, a):
			i++
		case a == "--version" || a == "-v":
			version = true
		case a == "--help" || a == "-h":
			return subcommands
		case strings.HasPrefix(a, "-"):
		default:
			for i, sub := range subcommands {
				if sub.name == a {
					return subcommands[i : i+1]
				}
			}
			return subcommands
		}
	}
	if version {
		return nil
	}
	return subcommands
}

func (g *globals) setup(stderr io.Writer) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(g.logLevel)); err != nil {
		return fmt.Errorf("--log: %q is not a level; use debug, info, warn or error", g.logLevel)
	}
	g.logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return nil
}

// stdio is the process's stdin and stdout as one protocol stream.
type stdio struct {
	in  io.ReadCloser
	out io.WriteCloser
}

func (s stdio) Read(b []byte) (int, error)  { return s.in.Read(b) }
func (s stdio) Write(b []byte) (int, error) { return s.out.Write(b) }
func (s stdio) Close() error {
	s.in.Close()
	return s.out.Close()
}

// nopCloser adapts the command's streams, which parley must not close itself in tests.
type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func commandStdio(cmd *cobra.Command) stdio {
	var in io.ReadCloser = nopReadCloser{cmd.InOrStdin()}
	if f, ok := cmd.InOrStdin().(*os.File); ok {
		in = f
	}
	var out io.WriteCloser = nopWriteCloser{cmd.OutOrStdout()}
	if f, ok := cmd.OutOrStdout().(*os.File); ok {
		out = f
	}
	return stdio{in: in, out: out}
}

// agentStdio is the stream an ACP agent command serves: the process's own stdin and
// stdout through acp.Stdio (whose Close also ends a read in progress), or the command's
// streams when a caller set others.
func agentStdio(cmd *cobra.Command) io.ReadWriteCloser {
	if cmd.InOrStdin() == io.Reader(os.Stdin) && cmd.OutOrStdout() == io.Writer(os.Stdout) {
		return acp.Stdio()
	}
	return commandStdio(cmd)
}

func joinArgs(args []string) string { return strings.Join(args, " ") }
