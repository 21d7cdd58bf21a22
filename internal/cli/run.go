package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/linechat"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/conversation"
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
	// exitSignIn (6) is signin.go's.
	exitPermissionRefused = 7 // the turn ended, but a request was refused with nobody asked
	exitTimeout           = 8 // --timeout: the turn took longer, and was cancelled
	exitCancelled         = 130
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
	sandboxRead        []string // secrets granted back to the agent
	sandboxNet         []string // the only destinations the agent may connect to
	addDirs            []string
}

func (f *agentFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.name, "agent", "eliza", "the agent to run, by `NAME` (built-in: "+strings.Join(catalog.BuiltinNames(), ", ")+"; see parley agents)")
	cmd.Flags().StringVar(&f.command, "agent-command", "", "the agent's `COMMAND` line, e.g. \"npx some-acp-agent --flag\" (overrides --agent)")
	cmd.Flags().StringVar(&f.cwd, "cwd", "", "the session's working directory `DIR` (default: the current directory)")
	registerSandboxFlags(cmd, &f.sandboxMode, &f.sandboxWritable, &f.sandboxRead, &f.sandboxNet)
	cmd.Flags().BoolVar(&f.yolo, "yolo", false, "allow every tool call the agent asks about, without asking (critical commands and rules configured as ask still ask)")
	cmd.Flags().StringArrayVar(&f.addDirs, "add-dir", nil, "a further workspace directory `DIR` (repeatable): the agent may use it as it uses the working directory, and is told of it where it takes additional directories")
	cmd.Flags().DurationVar(&f.timeout, "agent-timeout", defaultAgentTimeout(), "how long (a `DURATION`) to wait for the agent to start and to answer each session request (new, load, mode, model...) before giving up; $PARLEY_INIT_TIMEOUT sets the default")
}

// defaultAgentTimeout is $PARLEY_INIT_TIMEOUT (a Go duration), or a minute: agents
// launched through npx may first install themselves.
func defaultAgentTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("PARLEY_INIT_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return agentproc.DefaultInitializeTimeout
}

func newRunCommand(g *globals) *cobra.Command {
	var af agentFlags
	var cf carryFlags
	var hf headlessFlags
	var jsonOut bool
	var turnTimeout time.Duration
	var sets, attach []string
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
The agent itself is confined the same way, with everything it starts (its own commands
included): it writes only in the workspace, a TMPDIR of its own, the user's cache, its
state directories (parley agents lists them) and --sandbox-write; it cannot read your
secrets (~/.ssh, ~/.aws, keyrings, browser profiles, parley's own files…; --sandbox-read
PATH grants one back); with --sandbox-net HOST:PORT it connects only to those ports.
Its reply streams to stdout; tool calls, thoughts and plans go with it on a terminal and to
stderr otherwise. When the agent asks permission, parley applies your rules, asks you if
stdin is a terminal, allows with --yolo (except critical commands), and otherwise refuses.
The agent's own stderr goes to a log file under ` + xdg.StateDir() + `.

--set ID=VALUE changes one of the session's settings (its config options: model, mode,
thought level…; true or false for a boolean) before the prompt is sent; an id or value
the agent does not offer exits with status 2, listing those it does, and nothing is sent.
--attach FILE sends a file with the prompt: an image where the agent takes images, the
whole text where it takes embedded files, else a link to the file.

parley run never signs in: when the agent needs it, parley exits with status 6 and says
which methods the agent offers and the parley login command for each. What the agent
asks you (elicitations) is declined, and its turn goes on.

With --json, every permission request the agent sends is decided by a "permission"
event with confirmation.outcome and confirmation.decidedBy: user (you answered), rule,
always (an earlier "always"), while_confined, yolo, no_one_to_ask (refused: no
terminal), parley. A tool call that has ended says how in its "outcome": done, failed,
refused_by_you, refused_by_rule, refused_by_always, no_one_to_ask, refused_by_parley or
cancelled (a refused call never ran, whatever the agent reports of it).

With nobody to ask (no terminal), what your rules do not decide is refused. --allow KIND
allows tool calls of a kind unasked (read, edit, delete, move, search, execute, think,
fetch, other; all is --yolo), --deny KIND refuses them; both win over config.json's
rules, --deny over --allow. Critical commands and rules configured as ask still ask.

parley keeps every conversation (parley sessions lists them). --continue goes on with
this workspace's last one with the agent, --session ID with that one: in the agent's own
session (session/resume or session/load) where it can reopen it, else in a new session
whose first prompt carries the transcript; --fork ID goes on with a copy (session/fork
where the agent offers it, else seeded), --from ID --agent OTHER hands it to another
agent (seeded; summarised past $PARLEY_SEED_BUDGET characters, 60000 by default). Which
way was taken is said on stderr, and in --json as a "carried" event.

Exit status: 0 end_turn, 1 error, 2 usage, 3 refusal (the agent refused the prompt),
4 max_tokens, 5 max_turn_requests, 6 the agent needs you to sign in, 7 the turn ended
but parley refused a request of the agent without anyone answering it then (no terminal
to ask, a rule, --deny, an earlier "always"), 8 the turn took longer than --timeout (it
was cancelled), 130 cancelled (Ctrl-C sends session/cancel).` + unconfinedHelp(),
		Example: `  parley run "I am worried about my tests"
  parley run --set model=large --attach screenshot.png "what is wrong here?"
  parley run --agent-command "node my-agent.mjs --verbose" "hello"
  echo "flood 1000" | parley run -
  parley run --json "tool call Build" | jq -c .
  parley run --continue "and now the docs"
  parley run --from 3f9a2c41 --agent claude --allow read --timeout 10m "review what we did"`,
		Args: needArgs(1, "the PROMPT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			tuneHostGC()
			if turnTimeout < 0 {
				return &exitError{code: exitUsage, err: errors.New("--timeout must not be negative")}
			}
			extraRules, allowAll, err := hf.rules()
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			carryKind, kept, err := prepareCarry(cmd, &cf, &af)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			opts, err := af.sessionOptions(cmd)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			opts.spec.ExitGrace = runExitGrace
			opts.rules = append(opts.rules, extraRules...)
			opts.yolo = opts.yolo || allowAll
			if carryKind != "" {
				if opts.carried, kept, err = planCarry(cmd.Context(), carryKind, kept, opts); err != nil {
					return &exitError{code: exitUsage, err: err}
				}
			}
			prompt, err := readPrompt(cmd, args)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			settings, err := parseSets(sets)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			canAsk := args[0] != "-" && linechat.IsTerminal(cmd.InOrStdin())
			con := linechat.NewConsole(linechat.ConsoleOptions{
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), JSON: jsonOut, TTY: linechat.IsTerminal(cmd.OutOrStdout()),
				ChangesHint: "review: parley changes; undo: parley undo",
			})
			defer con.Close()
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			defer catchBrokenPipe()()
			s, err := startSession(g, con, opts, canAsk)
			if err != nil {
				return err
			}
			defer s.close()
			sub := &events{Subscription: s.conv.Subscribe()}
			defer sub.Close()
			session, err := waitReady(con, sub, ctx.Done(), opts.carried == nil)
			if ae, ok := errors.AsType[*conversation.AuthRequiredError](err); ok {
				return signInNeeded(opts, ae)
			}
			if err != nil {
				return err
			}
			if opts.carried != nil {
				id := ""
				if s.keeper != nil && s.keeper.Sync(ctx) == nil {
					id = s.keeper.ID() // the conversation the run goes on in
				}
				tellCarried(con, opts.carried, kept, shortAgentName(opts), session, id)
			}
			if err := applySettings(ctx, s.conv, session, settings); err != nil {
				return err
			}
			content := []acp.ContentBlock{acp.TextBlock(prompt)}
			for _, path := range attach {
				block, note, err := session.Attach(path)
				if err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("--attach: %w", err)}
				}
				if note != "" {
					con.Say("parley: %s", note)
				}
				content = append(content, block)
			}
			r := &runView{con: con, conv: s.conv, sub: sub, opts: opts, timeout: turnTimeout}
			if canAsk {
				r.in = linechat.NewPrompter(cmd.InOrStdin())
				defer r.in.Close()
			}
			return r.turn(ctx, content)
		},
	}
	af.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON event per line (text, thought, plan, tool_call, permission, usage, stop) instead of text")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "set one of the session's settings before the prompt, as `ID=VALUE` (repeatable)")
	cmd.Flags().StringArrayVar(&attach, "attach", nil, "send a `FILE` with the prompt (repeatable)")
	cmd.Flags().DurationVar(&turnTimeout, "timeout", 0, "cancel the turn when it takes longer than `DURATION` (such as 90s or 10m), and exit with status 8")
	cf.register(cmd)
	hf.register(cmd)
	return cmd
}

// setting is one --set.
type setting struct{ id, value string }

func parseSets(sets []string) ([]setting, error) {
	var out []setting
	for _, s := range sets {
		id, value, ok := strings.Cut(s, "=")
		if !ok || id == "" {
			return nil, fmt.Errorf("--set %q: give ID=VALUE", s)
		}
		out = append(out, setting{strings.TrimSpace(id), strings.TrimSpace(value)})
	}
	return out, nil
}

// applySettings checks every --set against what the agent offers, then sets them, in
// order: a wrong id or value exits 2, listing the valid ones, before anything is set.
func applySettings(ctx context.Context, conv *conversation.Conversation, s conversation.Session, settings []setting) error {
	for _, st := range settings {
		if _, _, err := s.CheckSetting(st.id, st.value); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--set %s=%s: %w", st.id, st.value, err)}
		}
	}
	for _, st := range settings {
		if _, err := conv.SetConfig(ctx, st.id, st.value); err != nil {
			if _, ok := errors.AsType[*conversation.InvalidSettingError](err); ok {
				return &exitError{code: exitUsage, err: fmt.Errorf("--set %s=%s: %w", st.id, st.value, err)}
			}
			return &exitError{code: exitFailure, err: fmt.Errorf("--set %s=%s: %w", st.id, st.value, err)}
		}
	}
	return nil
}

// runView is parley run's view of its one turn: it draws the conversation's events and,
// on a terminal, reads the answers to its questions.
type runView struct {
	opts     sessionOptions
	con      *linechat.Console
	conv     *conversation.Conversation
	sub      *events
	in       *linechat.Prompter // nil: nobody answers
	question *linechat.Question
	timeout  time.Duration // the whole turn's, 0 for none
}

// turn sends the prompt and follows the turn to its end; ctx ending (Ctrl-C) cancels it,
// and so does the output failing (nobody sees the turn any more).
func (r *runView) turn(ctx context.Context, content []acp.ContentBlock) error {
	p := r.conv.Send(content)
	interrupted, outputFailed := ctx.Done(), r.con.OutputFailed()
	var timedOut <-chan time.Time
	if r.timeout > 0 {
		t := time.NewTimer(r.timeout)
		defer t.Stop()
		timedOut = t.C
	}
	var wasInterrupted, wasTimedOut bool
	var ended error // the turn's result, once it ended, while its changes are awaited
	for {
		var lines <-chan linechat.InputLine
		var eof <-chan struct{}
		if r.question != nil && r.in != nil {
			lines, eof = r.in.Lines(), r.in.EOF()
		}
		select {
		case <-interrupted:
			interrupted, wasInterrupted = nil, true
			r.conv.Cancel()
		case <-outputFailed:
			outputFailed = nil
			r.conv.Cancel()
		case <-timedOut:
			timedOut, wasTimedOut = nil, true
			r.con.Say("parley: the turn took longer than --timeout %s: cancelling it", r.timeout)
			r.conv.Cancel()
		case l := <-lines:
			if a, _, ok := r.question.Read(l); ok {
				r.answer(a)
			}
		case <-eof:
			fmt.Fprintln(r.con.Stderr())
			r.answer(permission.RejectOnce)
		case <-r.sub.Ready():
			for _, ev := range r.sub.Take() {
				r.con.Show(ev)
				switch e := ev.(type) {
				case conversation.QuestionAsked:
					r.question = r.con.ShowQuestion(e, r.in)
				case conversation.QuestionClosed:
					if r.question != nil && r.question.ID == e.ID {
						r.question = nil
						if e.Withdrawn {
							r.con.Say("\n(the agent withdrew the question)")
						}
					}
				case conversation.TurnEnded:
					if e.Turn != p.ID || e.Replay {
						continue
					}
					if err := r.con.OutputErr(); err != nil {
						return &exitError{code: exitFailure, err: fmt.Errorf("the turn failed: %w", err)}
					}
					if ae, ok := errors.AsType[*conversation.AuthRequiredError](e.Err); ok {
						return signInNeeded(r.opts, ae)
					}
					ended = turnError(e, wasInterrupted)
					if wasTimedOut {
						ended = &exitError{code: exitTimeout, err: fmt.Errorf("the turn took longer than --timeout %s, and was cancelled", r.timeout)}
					}
					if !r.conv.Recorded() {
						return ended
					}
					// its changes follow
				case conversation.TurnChanges:
					if e.Turn == p.ID {
						return ended
					}
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
	warnConfig(cmd.ErrOrStderr(), cfg)
	if !cmd.Flags().Changed("agent") && f.command == "" && cfg.DefaultAgent != "" {
		f.name = cfg.DefaultAgent
	}
	opts := sessionOptions{yolo: f.yolo, rules: cfg.Permissions, agentTimeout: f.timeout, sandboxMode: f.sandboxMode, sandboxWritable: f.sandboxWritable,
		sandboxRead: f.sandboxRead, sandboxNet: f.sandboxNet, cfg: cfg,
		changeLimits: cfg.Changes.Limits(), cwdFlag: f.cwd}
	switch {
	case f.command != "" && cmd.Flags().Changed("agent"):
		return opts, errors.New("give either --agent or --agent-command, not both")
	case f.command != "":
		if opts.spec, err = catalog.ParseCommand(f.command); err != nil {
			return opts, err
		}
		opts.agentName, opts.agentCommand = opts.spec.String(), f.command
		opts.fetch = catalog.FetchOf(opts.spec.Command, opts.spec.Args)
	default:
		a, err := catalog.New(cfg).Lookup(f.name)
		if err != nil {
			return opts, err
		}
		opts.spec, opts.agentName, opts.fetch = a.Spec, f.name, a.Fetch
	}
	if opts.roots, err = workspaceRoots(f.cwd, f.addDirs...); err != nil {
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

// workspaceRoots confines the session to dir (default: the current directory) and the
// further directories, resolved by the one confinement check.
func workspaceRoots(dir string, more ...string) (*workspace.Roots, error) {
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
	if _, err := workspace.NewRoots(abs); err != nil {
		return nil, fmt.Errorf("--cwd: %w", err)
	}
	dirs := []string{abs}
	for _, d := range more {
		a, err := filepath.Abs(d)
		if err == nil {
			_, err = workspace.NewRoots(a)
		}
		if err != nil {
			return nil, fmt.Errorf("--add-dir: %w", err)
		}
		dirs = append(dirs, a)
	}
	return workspace.NewRoots(dirs...)
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
