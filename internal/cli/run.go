package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agents"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/host"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/workspace"
	"github.com/parley-acp/parley/internal/xdg"
	"github.com/spf13/cobra"
)

// Exit statuses of parley run, one per way a turn can end.
const (
	exitEndTurn         = 0
	exitFailure         = 1
	exitUsage           = 2
	exitRefusal         = 3
	exitMaxTokens       = 4
	exitMaxTurnRequests = 5
	exitCancelled       = 130
)

// runExitGrace is how long parley run, its one turn over, lets the agent exit on its own
// once its stdin is closed before it signals it: agents that honour the end of their
// input are gone by then, and some (codex-acp) ignore it and would hold the exit up.
const runExitGrace = 300 * time.Millisecond

// agentFlags choose the agent, for run and chat alike.
type agentFlags struct {
	name, command, cwd string
	yolo               bool
	timeout            time.Duration
	sandboxMode        string
	sandboxWritable    []string
}

func (f *agentFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.name, "agent", "eliza", "the agent to run, by `NAME` (built-in: "+strings.Join(agents.BuiltinNames(), ", ")+"; see parley agents)")
	cmd.Flags().StringVar(&f.command, "agent-command", "", "the agent's `COMMAND` line, e.g. \"npx some-acp-agent --flag\" (overrides --agent)")
	cmd.Flags().StringVar(&f.cwd, "cwd", "", "the session's working directory `DIR` (default: the current directory)")
	cmd.Flags().StringVar(&f.sandboxMode, "sandbox", "auto", sandboxFlagHelp("the commands the agent runs in parley's terminals (terminal/create)"))
	cmd.Flags().StringArrayVar(&f.sandboxWritable, "sandbox-write", nil, "a further directory `DIR` those commands may write (repeatable)")
	cmd.Flags().BoolVar(&f.yolo, "yolo", false, "allow every tool call the agent asks about, without asking (critical commands and rules configured as ask still ask)")
	cmd.Flags().DurationVar(&f.timeout, "agent-timeout", defaultAgentTimeout(), "how long (a `DURATION`) to wait for the agent to start and to answer each session request (new, load, mode, model...) before giving up; $PARLEY_INIT_TIMEOUT sets the default")
}

// defaultAgentTimeout is $PARLEY_INIT_TIMEOUT (a Go duration), or a minute: agents
// launched through npx may first install themselves.
func defaultAgentTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("PARLEY_INIT_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return host.DefaultInitializeTimeout
}

func newRunCommand(g *globals) *cobra.Command {
	var af agentFlags
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT...",
		Short: "Send one prompt to an ACP agent and print its reply",
		Long: `Send one prompt to an ACP agent and stream its reply to stdout.

The agent is started in its own process, initialized, given a new session in the working
directory, and sent PROMPT (the arguments joined by spaces; "-" reads the prompt from
stdin). The agent's file requests reach only files inside that directory; commands it runs
through parley start there, are judged before they start, and (where the kernel offers
Landlock, unless --sandbox off) may write only there, in their own TMPDIR, the user's
cache directory and --sandbox-write directories; they may read what the user can.
Its reply streams to stdout; tool calls, thoughts and plans go with it on a terminal and to
stderr otherwise. When the agent asks permission, parley applies your rules, asks you if
stdin is a terminal, allows with --yolo (except critical commands), and otherwise refuses.
The agent's own stderr goes to a log file under ` + xdg.StateDir() + `.

Exit status: 0 end_turn, 1 error, 2 usage, 3 refusal, 4 max_tokens,
5 max_turn_requests, 130 cancelled (Ctrl-C sends session/cancel).` + unconfinedHelp(),
		Example: `  parley run "I am worried about my tests"
  parley run --agent-command "node my-agent.mjs --verbose" "hello"
  echo "flood 1000" | parley run -
  parley run --json "tool call Build" | jq -c .`,
		Args: needArgs(1, "the PROMPT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := af.sessionOptions(cmd)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			opts.spec.ExitGrace = runExitGrace
			prompt, err := readPrompt(cmd, args)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			canAsk := args[0] != "-" && isTerminal(cmd.InOrStdin())
			con := newConsole(consoleOptions{
				stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr(), json: jsonOut, tty: isTerminal(cmd.OutOrStdout()),
			})
			defer con.close()
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			defer catchBrokenPipe()()
			s, err := startSession(g, con, opts, canAsk)
			if err != nil {
				return err
			}
			defer s.close()
			sub := s.conv.Subscribe()
			defer sub.Close()
			if _, err := waitReady(con, sub, ctx.Done()); err != nil {
				return err
			}
			r := &runView{con: con, conv: s.conv, sub: sub}
			if canAsk {
				r.in = newPrompter(cmd.InOrStdin())
				defer r.in.close()
			}
			return r.turn(ctx, prompt)
		},
	}
	af.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON event per line (text, thought, plan, tool_call, permission, usage, stop) instead of text")
	return cmd
}

// runView is parley run's view of its one turn: it draws the conversation's events and,
// on a terminal, reads the answers to its questions.
type runView struct {
	con      *console
	conv     *conversation.Conversation
	sub      *conversation.Subscription
	in       *prompter // nil: nobody answers
	question *onScreen
}

// turn sends the prompt and follows the turn to its end; ctx ending (Ctrl-C) cancels it,
// and so does the output failing (nobody sees the turn any more).
func (r *runView) turn(ctx context.Context, text string) error {
	p := r.conv.Send([]acp.ContentBlock{acp.TextBlock(text)})
	interrupted, outputFailed := ctx.Done(), r.con.outputFailed()
	var wasInterrupted bool
	for {
		var lines <-chan inputLine
		var eof <-chan struct{}
		if r.question != nil && r.in != nil {
			lines, eof = r.in.lines, r.in.eof
		}
		select {
		case <-interrupted:
			interrupted, wasInterrupted = nil, true
			r.conv.Cancel()
		case <-outputFailed:
			outputFailed = nil
			r.conv.Cancel()
		case l := <-lines:
			if a, _, ok := r.question.read(l); ok {
				r.answer(a)
			}
		case <-eof:
			fmt.Fprintln(r.con.stderr)
			r.answer(permission.RejectOnce)
		case <-r.sub.Ready():
			for _, ev := range r.sub.Take() {
				r.con.show(ev)
				switch e := ev.(type) {
				case conversation.QuestionAsked:
					r.question = r.con.showQuestion(e, r.in)
				case conversation.QuestionClosed:
					if r.question != nil && r.question.ID == e.ID {
						r.question = nil
						if e.Withdrawn {
							r.con.say("\n(the agent withdrew the question)")
						}
					}
				case conversation.TurnEnded:
					if e.Turn != p.ID || e.Replay {
						continue
					}
					if err := r.con.outputErr(); err != nil {
						return &exitError{code: exitFailure, err: fmt.Errorf("the turn failed: %w", err)}
					}
					return turnError(e, wasInterrupted)
				case conversation.Closed:
					return &exitError{code: exitFailure, err: errors.New("the conversation ended before the turn did")}
				}
			}
		}
	}
}

func (r *runView) answer(a permission.Answer) {
	r.conv.Answer(r.question.ID, a)
	r.question = nil
}

// sessionOptions reads the configuration once and works out, from the flags, which agent
// to start (and the name its permissions and log are kept under), in which workspace, with
// which permission rules.
func (f *agentFlags) sessionOptions(cmd *cobra.Command) (sessionOptions, error) {
	cfg, err := config.Load(config.Path())
	if err != nil {
		return sessionOptions{}, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "parley: warning:", w)
	}
	if f.timeout <= 0 {
		return sessionOptions{}, errors.New("--agent-timeout must be positive")
	}
	if v := os.Getenv("PARLEY_INIT_TIMEOUT"); v != "" && !cmd.Flags().Changed("agent-timeout") {
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			return sessionOptions{}, fmt.Errorf("PARLEY_INIT_TIMEOUT=%q is not a positive duration (such as 90s or 2m); fix it or unset it", v)
		}
	}
	if cmd.Flags().Changed("agent-command") && strings.TrimSpace(f.command) == "" {
		return sessionOptions{}, errors.New("--agent-command is empty: give the agent's command line, such as --agent-command \"npx some-acp-agent\"")
	}
	opts := sessionOptions{yolo: f.yolo, rules: cfg.Permissions, agentTimeout: f.timeout, sandboxMode: f.sandboxMode, sandboxWritable: f.sandboxWritable}
	switch {
	case f.command != "" && cmd.Flags().Changed("agent"):
		return opts, errors.New("give either --agent or --agent-command, not both")
	case f.command != "":
		if opts.spec, err = agents.ParseCommand(f.command); err != nil {
			return opts, err
		}
		opts.agentName = opts.spec.String()
		opts.fetch = agents.FetchOf(opts.spec.Command, opts.spec.Args)
	default:
		a, err := agents.New(cfg).Lookup(f.name)
		if err != nil {
			return opts, err
		}
		opts.spec, opts.agentName, opts.fetch = a.Spec, f.name, a.Fetch
	}
	if opts.roots, err = workspaceRoots(f.cwd); err != nil {
		return opts, err
	}
	opts.dir = opts.roots.Dirs()[0]
	return opts, nil
}

func readPrompt(cmd *cobra.Command, args []string) (string, error) {
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return "", fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		args = []string{string(b)}
	}
	prompt := strings.TrimSpace(joinArgs(args))
	if prompt == "" {
		return "", errors.New("the prompt is empty")
	}
	return prompt, nil
}

// workspaceRoots confines the session to dir (default: the current directory), resolved
// by the one confinement check.
func workspaceRoots(dir string) (*workspace.Roots, error) {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	roots, err := workspace.NewRoots(abs)
	if err != nil {
		return nil, fmt.Errorf("--cwd: %w", err)
	}
	return roots, nil
}

// needArgs is cobra's MinimumNArgs with an error that says what is missing and shows the
// usage, as a new user needs it.
func needArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= n {
			return nil
		}
		return fmt.Errorf("%s needs %s\n\n%s", cmd.CommandPath(), what, strings.TrimRight(cmd.UsageString(), "\n"))
	}
}
