package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/toolui"
)

// Signing in: when the agent says it needs a sign-in, its methods are offered as a
// picker (and /login offers them again). The agent's own flow runs through
// authenticate (its questions come as elicitations); a terminal method shows the whole
// of what it runs and asks first, then its program gets the terminal (the screen is left
// while it runs); a method parley refuses (AuthMethod.Refused) says why and runs
// nothing; an environment variable method asks
// for the variables not set yet, a secret one masked, and starts the agent again with
// them.

// loginPicker offers the sign-in methods (arg: one by number or id, signed in at once).
func (m *model) loginPicker(arg string) tea.Cmd {
	cv := m.cur()
	methods := cv.signIn
	if methods == nil {
		methods = cv.session.Agent.Methods
	}
	if len(methods) == 0 {
		cv.notice("This agent offers no sign-in method parley can use.", false)
		return nil
	}
	if arg != "" {
		for i, x := range methods {
			if string(x.ID) == arg || strconv.Itoa(i+1) == arg {
				return m.signIn(cv, x)
			}
		}
		cv.notice(fmt.Sprintf("No sign-in method %q: /login lists them.", arg), true)
		return nil
	}
	var items []pickItem
	for _, x := range methods {
		items = append(items, pickItem{id: string(x.ID), label: toolui.SafeText(x.Name), desc: x.Effect()})
	}
	m.picker = newPicker("Sign in to "+toolui.SafeText(cv.conv.Name), items, func(it pickItem) tea.Cmd {
		for _, x := range methods {
			if string(x.ID) == it.id {
				return m.signIn(cv, x)
			}
		}
		return nil
	})
	return nil
}

// signIn starts signing in with a method.
func (m *model) signIn(cv *convView, x conversation.AuthMethod) tea.Cmd {
	conv, id := cv.conv.Conversation, cv.id
	start := func(opts conversation.SignInOptions) tea.Cmd {
		return func() tea.Msg {
			if err := conv.SignIn(x.ID, opts); err != nil {
				return resultMsg{conv: id, err: err}
			}
			return nil
		}
	}
	if x.Refused != "" {
		cv.notice("parley will not sign in with "+toolui.SafeText(string(x.ID))+": "+x.Refused, true)
		return nil
	}
	switch x.Kind {
	case conversation.AuthTerminal:
		m.confirmRun(cv, x)
		return nil
	case conversation.AuthEnvVar:
		form := &conversation.Form{Answerable: true}
		for _, v := range x.Vars {
			if os.Getenv(v.Name) != "" {
				continue
			}
			label := v.Name
			if v.Label != "" {
				label = v.Label + " (" + v.Name + ")"
			}
			form.Fields = append(form.Fields, conversation.Field{Name: v.Name, Title: label, Kind: conversation.FieldText, Required: !v.Optional, Secret: v.Secret})
		}
		if len(form.Fields) == 0 {
			return start(conversation.SignInOptions{})
		}
		message := cv.conv.Name + " reads these variables when it starts: parley starts it again with them (and saves them nowhere)"
		if x.Link != "" {
			message += "; get them at " + x.Link
		}
		ask := conversation.ElicitationAsked{Elicitation: &conversation.Elicitation{Agent: cv.conv.Name, Message: message, Mode: acp.ElicitationModeForm, Form: form}}
		cv.elicit = newFormPanel(ask, func(a conversation.ElicitationAnswer) error {
			if a.Action != acp.ElicitationActionAccept {
				cv.notice("(no sign-in)", false)
				return nil
			}
			if _, err := form.Validate(a.Content); err != nil {
				return err
			}
			vars := map[string]string{}
			for k, v := range a.Content {
				vars[k], _ = v.(string)
			}
			if err := conv.SignIn(x.ID, conversation.SignInOptions{Vars: vars}); err != nil {
				cv.notice("parley: "+err.Error(), true)
			}
			return nil
		}, nil, timeNow())
		return nil
	}
	return start(conversation.SignInOptions{})
}

// confirmRun shows everything a terminal method runs and asks whether to run it, even
// when it is the only method: yes signs in with it, as shown; anything else runs nothing.
func (m *model) confirmRun(cv *convView, x conversation.AuthMethod) {
	conv, run := cv.conv.Conversation, x.Run
	message := "Signing in with " + string(x.ID) + " runs this program in your terminal (outside any sandbox):\n" +
		strings.Join(run.Lines(), "\n") + "\nRun it?"
	ask := conversation.ElicitationAsked{Elicitation: &conversation.Elicitation{Agent: cv.conv.Name, Message: message, Mode: acp.ElicitationModeForm, Form: &conversation.Form{Answerable: true}}}
	cv.elicit = newFormPanel(ask, func(a conversation.ElicitationAnswer) error {
		if a.Action != acp.ElicitationActionAccept {
			cv.notice("(not run: no sign-in)", false)
			return nil
		}
		if err := conv.SignIn(x.ID, conversation.SignInOptions{RunTerminal: m.runTerminal, Approved: run}); err != nil {
			cv.notice("parley: "+err.Error(), true)
		}
		return nil
	}, nil, timeNow())
}

// execMsg asks the program to give the terminal to cmd until it exits.
type execMsg struct {
	cmd  *exec.Cmd
	done chan error
}

// runTerminal runs a terminal sign-in's program in parley's terminal: the screen is
// left while it runs (the user types into it), and comes back when it exits.
func (m *model) runTerminal(ctx context.Context, cmd *exec.Cmd) error {
	done := make(chan error, 1)
	if m.prog == nil {
		return conversation.ErrNoTerminal
	}
	m.prog.Send(execMsg{cmd: cmd, done: done})
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		return ctx.Err()
	}
}

func (m *model) onExec(msg execMsg) tea.Cmd {
	return tea.ExecProcess(msg.cmd, func(err error) tea.Msg {
		msg.done <- err
		return nil
	})
}

// timeNow is time.Now, named for the form the sign-in asks.
func timeNow() time.Time { return time.Now() }
