package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/linechat"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/spf13/cobra"
)

func newLoginCommand(g *globals) *cobra.Command {
	var af agentFlags
	var method string
	cmd := &cobra.Command{
		Use:   "login [--agent NAME | --agent-command CMD] [--method ID]",
		Short: "Sign in to an agent",
		Long: `Sign in to an agent with one of the methods it offers, then check that it works: parley
starts the agent, signs in, and opens a session in the working directory (closed at once
where the agent can close sessions).

A method is carried out by its kind: the agent signs you in itself (it may open a web page,
or ask you something here); or its login program runs in this terminal (the agent's own
command with the method's arguments, or a command the agent names) and parley waits for it
to exit; or the agent reads variables you set in your environment (parley says which; it
never prints their values). A login program runs only once parley has shown the whole of
it (program, arguments, the variables it sets with their values, directory) and you said
yes. A method that sets a variable making programs run code its command line does not
show (BASH_ENV, LD_PRELOAD, NODE_OPTIONS, PATH…) is refused.

Without --agent: config.json's default_agent, else, on a terminal, the agent you choose
(without one, parley names the agents that may ask you to sign in).

Without --method: the only method, or, on a terminal, the one you choose. An agent that
opens a session without a sign-in is left as it is unless --method is given.

Exit status: 0 signed in (or no sign-in needed), 1 the sign-in failed (parley says why),
2 usage (an unknown method: parley lists them).`,
		Example: `  parley login --agent claude
  parley login --agent codex --method chat-gpt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tty := linechat.IsTerminal(cmd.InOrStdin())
			in := linechat.NewPrompter(cmd.InOrStdin())
			defer in.Close()
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			if err := chooseSignInAgent(ctx, cmd, &af, in, tty, "Sign in to which agent?"); err != nil {
				return err
			}
			opts, err := af.sessionOptions(cmd)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			opts.elicit, opts.signingIn, opts.noKeep = true, true, true
			con := linechat.NewConsole(linechat.ConsoleOptions{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), TTY: linechat.IsTerminal(cmd.OutOrStdout()), OpenURL: openInBrowser})
			defer con.Close()
			s, err := startSession(g, con, opts, tty)
			if err != nil {
				return err
			}
			defer s.close()
			sub := &events{Subscription: s.conv.Subscribe()}
			defer sub.Close()
			l := &loginView{opts: opts, con: con, conv: s.conv, sub: sub, in: in, tty: tty}
			return l.run(ctx, acp.AuthMethodID(method))
		},
	}
	af.registerSignIn(cmd)
	cmd.Flags().StringVar(&method, "method", "", "the sign-in method's `ID` (the agent lists them; parley login without it says which)")
	return cmd
}

// loginView is parley login's view of the conversation: it signs in, answers what the
// agent asks on the way, and reports how the session then opens.
type loginView struct {
	opts   sessionOptions
	con    *linechat.Console
	conv   *conversation.Conversation
	sub    *events
	in     *linechat.Prompter
	tty    bool
	elicit *linechat.ElicitScreen
}

func (l *loginView) run(ctx context.Context, id acp.AuthMethodID) error {
	session, err := waitReady(l.con, l.sub, ctx.Done(), true)
	ae, needed := errors.AsType[*conversation.AuthRequiredError](err)
	if err != nil && !needed {
		return err
	}
	methods := session.Agent.Methods
	agent := session.Agent.Title
	if needed {
		methods, agent = ae.Methods, ae.Agent
	}
	if !needed && id == "" {
		msg := fmt.Sprintf("%s opened a session: it does not need you to sign in now.", agent)
		if len(methods) > 0 {
			msg += " To sign in anyway, give --method with one of:\n" + strings.Join(linechat.MethodLines(methods, false), "\n")
		}
		l.con.Say("%s", msg)
		return nil
	}
	if len(methods) == 0 {
		return &exitError{code: exitFailure, err: fmt.Errorf("%s offers no sign-in method parley can use: sign in with its own tools", agent)}
	}
	m, err := l.choose(ctx, methods, id)
	if err != nil {
		return err
	}
	if m.Refused != "" {
		return &exitError{code: exitFailure, err: linechat.RefusedSignIn(m)}
	}
	opts := conversation.SignInOptions{}
	if m.Kind == conversation.AuthTerminal {
		if !l.tty {
			return &exitError{code: exitFailure, err: conversation.ErrNoTerminal}
		}
		ok, err := l.confirm(ctx, m)
		if err != nil {
			return err
		}
		if !ok {
			return &exitError{code: exitFailure, err: errors.New("not signed in: the sign-in program did not run")}
		}
		opts.RunTerminal, opts.Approved = linechat.TerminalRunner(l.con, l.in), m.Run
	}
	if err := l.conv.SignIn(m.ID, opts); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	// An agent method signs the running agent in: a session it opened already stays.
	return l.follow(ctx, m, needed || m.Kind != conversation.AuthAgent)
}

// choose picks the method: the one named, the only one, or the one the user picks.
func (l *loginView) choose(ctx context.Context, methods []conversation.AuthMethod, id acp.AuthMethodID) (conversation.AuthMethod, error) {
	list := "its methods:\n" + strings.Join(linechat.MethodLines(methods, false), "\n")
	switch {
	case id != "":
		for _, m := range methods {
			if m.ID == id {
				return m, nil
			}
		}
		return conversation.AuthMethod{}, &exitError{code: exitUsage, err: fmt.Errorf("the agent has no sign-in method %q; %s", id, list)}
	case len(methods) == 1:
		return methods[0], nil
	case !l.tty:
		return conversation.AuthMethod{}, &exitError{code: exitUsage, err: fmt.Errorf("which method? give --method ID; %s", list)}
	}
	l.con.Say("Sign in with which method?\n%s", strings.Join(linechat.MethodLines(methods, true), "\n"))
	mark, _ := l.in.DiscardTypeAhead()
	for {
		l.con.Prompt("? ")
		select {
		case line := <-l.in.Lines():
			if line.Epoch < mark {
				continue
			}
			text := strings.TrimSpace(line.Text)
			for i, m := range methods {
				if string(m.ID) == text || strconv.Itoa(i+1) == text {
					return m, nil
				}
			}
			l.con.Say("Answer 1 to %d.", len(methods))
		case <-l.in.EOF():
			return conversation.AuthMethod{}, &exitError{code: exitFailure, err: errors.New("no method chosen")}
		case <-ctx.Done():
			return conversation.AuthMethod{}, &exitError{code: exitCancelled, err: errors.New("interrupted")}
		}
	}
}

// confirm shows everything the terminal method m runs and asks whether to run it (what
// was typed before the question does not answer it).
func (l *loginView) confirm(ctx context.Context, m conversation.AuthMethod) (bool, error) {
	l.con.Say("%s", linechat.RunBlock(m))
	mark, _ := l.in.DiscardTypeAhead()
	l.con.Prompt(linechat.RunQuestion)
	for {
		select {
		case line := <-l.in.Lines():
			if line.Epoch < mark {
				continue
			}
			return linechat.Yes(line.Text), nil
		case <-l.in.EOF():
			return false, nil
		case <-ctx.Done():
			return false, &exitError{code: exitCancelled, err: errors.New("interrupted: not signed in")}
		}
	}
}

// follow shows the sign-in to its end and the session that opens after it.
func (l *loginView) follow(ctx context.Context, m conversation.AuthMethod, reopens bool) error {
	var lines <-chan linechat.InputLine
	var eof <-chan struct{}
	signedIn := false
	for {
		lines, eof = nil, nil
		if l.elicit != nil {
			lines, eof = l.in.Lines(), l.in.EOF()
		}
		select {
		case <-ctx.Done():
			l.conv.CancelSignIn()
			return &exitError{code: exitCancelled, err: errors.New("interrupted: not signed in")}
		case line := <-lines:
			if done, quit := l.elicit.Read(line); done || quit {
				l.elicit = nil
			}
		case <-eof:
			l.elicit.Cancelled()
			l.elicit = nil
		case <-l.sub.Ready():
			for _, ev := range l.sub.Take() {
				l.con.Show(ev)
				switch e := ev.(type) {
				case conversation.ElicitationAsked:
					l.elicit = l.con.ShowElicitation(e, func(a conversation.ElicitationAnswer) error { return l.conv.AnswerElicitation(e.ID, a) }, l.in)
				case conversation.ElicitationClosed:
					if l.elicit != nil && l.elicit.ID == e.ID {
						l.elicit = nil
					}
				case conversation.QuestionAsked:
					l.conv.Answer(e.ID, permission.RejectOnce) // nothing is to run while signing in
				case conversation.SignInEnded:
					if e.Err != nil {
						return &exitError{code: exitFailure, err: fmt.Errorf("the sign-in with %s failed: %w", m.ID, e.Err)}
					}
					signedIn = true
					if !reopens {
						l.con.Say("Signed in to %s with %s.", l.opts.agentName, m.ID)
						return nil
					}
				case conversation.Ready:
					msg := fmt.Sprintf("Signed in to %s with %s: it opened a session.", e.Session.Agent.Title, m.ID)
					if m.Kind == conversation.AuthEnvVar {
						msg += " Keep " + strings.Join(linechat.VarNames(m), ", ") + " set where you run parley (or in the agent's \"env\" in config.json)."
					}
					l.con.Say("%s", msg)
					return nil
				case conversation.StartFailed:
					if _, ok := errors.AsType[*conversation.AuthRequiredError](e.Err); ok && signedIn {
						return &exitError{code: exitFailure, err: fmt.Errorf("the sign-in with %s ended, but %s still asks to sign in", m.ID, l.opts.agentName)}
					}
					return &exitError{code: exitFailure, err: fmt.Errorf("signed in, but the session did not open: %w", e.Err)}
				case conversation.Closed:
					return &exitError{code: exitFailure, err: errors.New("the conversation ended")}
				}
			}
		}
	}
}
