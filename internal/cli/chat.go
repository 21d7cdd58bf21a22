package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/chatcmd"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/linechat"
	"github.com/spf13/cobra"
)

func newChatCommand(g *globals) *cobra.Command {
	var af agentFlags
	var plain bool
	var cf connectFlags
	var sessionID string
	cmd := &cobra.Command{
		Use:   "chat [flags]",
		Short: "Talk with an ACP agent in the terminal",
		Long: `Talk with an ACP agent in the terminal.

On a terminal, parley chat is full-screen: Enter sends (Shift+Enter, Alt+Enter or Ctrl+J
for a new line; a paste stays one message), Up/Down and Ctrl+R recall what you sent in this
directory, @ attaches a file, / completes commands (the agent's too), Ctrl+O expands a tool
call to its output and diff, PgUp/PgDn scroll, Ctrl+F finds; typing while the agent works
queues the message (Esc takes it back). Permission questions show what runs (the command,
or the edit's diff) and its risk; answer with y, a, n or r. /help lists the rest. When you
leave, the conversation is printed on the normal screen.

Without a terminal (a pipe, a file), with TERM=dumb, NO_COLOR or --plain, it reads lines:
type a prompt and press Enter; the reply streams, tool calls show their progress in place,
and the agent's permission requests are asked one at a time, showing the command that runs
and its risk (allow once, allow always, reject once, reject always; /quit refuses and
leaves). Without a terminal on stdin nothing is asked: requests are refused (--yolo allows
all but critical commands), and every line is a prompt.

Ctrl-C cancels the running turn (session/cancel); a second Ctrl-C, or Ctrl-D, quits.

When the agent needs you to sign in, its methods are listed: /login N signs in with the
Nth (the agent signs you in; or its login program runs in this terminal; or parley asks
for the variables it reads, without showing what you type, and starts it again). When the
agent asks you something (a form, or a page to open), it is asked here, a field at a time.

A word @PATH in a prompt attaches the file: as an image where the agent takes images, the
whole text where it takes embedded files, else a link to the file.

Commands:
` + chatCommandsHelp() + `
Any other /command is sent to the agent (agents advertise their own), but a near miss of one
of parley's (/undp) is answered with the one meant.

--connect URL chats with a parley server elsewhere (parley web, here or on another
machine; URL is the address it printed, the token better in $PARLEY_TOKEN, which ps does
not show): a new conversation with its default agent, or with --session ID the server's
conversation ID (as session/list and the page name it), caught up first, then live; any
view on it (a tab, another --connect) sees the same turns and questions, and the first
answer wins. The agent runs on the server, on its files, inside its confinement; the
server records the changes (/changes, /diff and /undo ask it: they are of its files) and
asks here only what a person must answer. See docs/remote.md.` + unconfinedHelp(),
		Example: `  parley chat --agent claude
  PARLEY_TOKEN=… parley chat --connect http://devbox:8123/
  PARLEY_TOKEN=… parley chat --connect http://devbox:8123/ --session parley-4f…`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tuneHostGC()
			if err := cf.localOnly(cmd); err != nil {
				return err
			}
			if sessionID != "" && cf.url == "" {
				return &exitError{code: exitUsage, err: errors.New("--session is for --connect: the server's conversation to attach to")}
			}
			var opts sessionOptions
			var err error
			if cf.url != "" {
				opts, err = remoteSessionOptions(&cf, sessionID)
			} else {
				opts, err = af.sessionOptions(cmd)
			}
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			opts.elicit = true
			if useTUI(cmd, plain) {
				return runChatTUI(cmd, g, &af, opts)
			}
			return runLineChat(cmd, g, opts)
		},
	}
	af.register(cmd)
	cf.register(cmd)
	cmd.Flags().StringVar(&sessionID, "session", "", "with --connect: attach to the server's conversation `ID` (default: a new one)")
	cmd.Flags().BoolVar(&plain, "plain", false, "the line interface even on a terminal (it is the one used without a terminal, with TERM=dumb or NO_COLOR)")
	return cmd
}

// runLineChat is parley chat without its terminal UI (internal/linechat): the wiring of
// its input, output and signals to the conversation started here.
func runLineChat(cmd *cobra.Command, g *globals, opts sessionOptions) error {
	in := linechat.NewPrompter(cmd.InOrStdin())
	defer in.Close()
	// Questions are asked only on a terminal: a script's next line is a prompt,
	// never an answer (without a terminal, requests are refused; --yolo allows).
	con := linechat.NewConsole(linechat.ConsoleOptions{
		Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), TTY: linechat.IsTerminal(cmd.OutOrStdout()),
		ChangesHint: "review: /diff; undo: /undo", OpenURL: openInBrowser,
	})
	defer con.Close()
	// Ctrl-C belongs to the chat: it cancels a turn instead of ending parley. SIGTERM
	// quits. Once the chat is leaving, one more signal ends parley at once.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	defer catchBrokenPipe()()
	if opts.remote != nil {
		con.Say("parley chat: connecting to %s …", opts.agentName)
	} else {
		con.Say("parley chat: starting %s in %s …", opts.agentName, opts.dir)
	}
	interactive := linechat.IsTerminal(cmd.InOrStdin())
	s, err := startSession(g, con, opts, interactive)
	if err != nil {
		return err
	}
	// /handoff swaps the session and its subscription for another agent's: what is
	// closed at the end is the current one.
	sub := &events{Subscription: s.conv.Subscribe()}
	release := func() {}
	defer func() { release() }()
	defer func() { s.close() }()
	// From here on, leaving is in order; a signal meanwhile ends parley at once.
	defer func() { release = forceExitOnSignal(sigs, nil) }()
	defer func() { sub.Close() }()
	interrupted := make(chan struct{})
	stopWaiting := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			close(interrupted)
		case <-stopWaiting:
		}
	}()
	session, err := waitReady(con, sub, interrupted, true)
	close(stopWaiting)
	if opts.remote != nil && err == nil && session.Cwd != "" {
		con.Say("parley chat: on the server, the agent works in %s (its files, its commands)", session.Cwd)
	}
	lo := linechat.Options{
		Conv: s.conv, Agent: s.agent.Name(), Events: sub, Console: con, In: in, Signals: sigs,
		Session: session, TTY: interactive, ForceExit: forceExit, StopError: stopError, Keeper: s.keeper,
	}
	lo.Handoff = func(ctx context.Context, agent string, carried conversation.Carried) (linechat.Handed, error) {
		o, err := handoffOptions(opts, agent)
		if err != nil {
			return linechat.Handed{}, err
		}
		o.carried = &carried
		con.Say("parley chat: starting %s in %s …", o.agentName, o.dir)
		next, err := startSession(g, con, o, interactive)
		if err != nil {
			return linechat.Handed{}, err
		}
		nextSub := &events{Subscription: next.conv.Subscribe()}
		ready, err := waitReady(con, nextSub, ctx.Done(), false)
		if err != nil {
			nextSub.Close()
			next.close()
			return linechat.Handed{}, fmt.Errorf("%s did not start, so the conversation stays with %s: %w", o.agentName, s.agent.Name(), err)
		}
		sub.Close()
		s.close()
		s, sub = next, nextSub
		return linechat.Handed{Conv: next.conv, Events: nextSub, Keeper: next.keeper, Session: ready, Agent: next.agent.Name()}, nil
	}
	if ae, ok := errors.AsType[*conversation.AuthRequiredError](err); ok {
		lo.SignIn = ae
	} else if err != nil {
		return err
	}
	return linechat.Run(cmd.Context(), lo)
}

// chatCommandsHelp lists the line chat's commands, from the one table (internal/chatcmd).
func chatCommandsHelp() string {
	var lines []string
	for _, c := range chatcmd.For(chatcmd.Line) {
		lines = append(lines, fmt.Sprintf("  %-28s %s", c.Usage(), c.Summary))
	}
	return strings.Join(lines, "\n") + "\nThe terminal UI has them too, and " + tuiOnlyCommands() + "."
}

// tuiOnlyCommands names the commands only the terminal UI has.
func tuiOnlyCommands() string {
	var names []string
	for _, c := range chatcmd.For(chatcmd.TUI) {
		if !c.Offered(chatcmd.Line) {
			names = append(names, "/"+c.Name)
		}
	}
	return strings.Join(names, ", ")
}

// handoffOptions are opts for another agent, by its name, in the same workspace with the
// same confinement and permissions: the agent /handoff AGENT hands the conversation to.
func handoffOptions(opts sessionOptions, agent string) (sessionOptions, error) {
	a, err := catalog.New(opts.cfg).Lookup(agent)
	if err != nil {
		return opts, err
	}
	opts.spec, opts.agentName, opts.fetch, opts.agentCommand = a.Spec, agent, a.Fetch, ""
	opts.spec.ExitGrace = 0
	return opts, nil
}
