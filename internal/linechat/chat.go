package linechat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/permission"
)

// Options are what the line chat needs of the conversation parley chat started.
type Options struct {
	Conv *conversation.Conversation
	// Agent names the agent in what the chat says.
	Agent string
	// Events is the conversation's subscription, with what the wait for the start left
	// for the chat.
	Events  Events
	Console *Console
	In      *Prompter
	// Signals are Ctrl-C and SIGTERM, which belong to the chat while it runs.
	Signals chan os.Signal
	// Session is the session as the start showed it; SignIn, when the start needs the
	// user to sign in first.
	Session conversation.Session
	SignIn  *conversation.AuthRequiredError
	// TTY: the input is a terminal (questions are asked, a terminal sign-in can run).
	TTY bool
	// ForceExit ends parley at once (a third Ctrl-C, when a turn would not end).
	ForceExit func(os.Signal)
	// StopError says why a turn stopped other than by ending (nil when it ended).
	StopError func(acp.StopReason) error
}

// Events are a conversation's events as the chat takes them.
type Events interface {
	Ready() <-chan struct{}
	Take() []conversation.Event
}

// Run is the line chat: it returns when the user leaves or the conversation ends.
func Run(ctx context.Context, o Options) error {
	c := &chat{o: o, conv: o.Conv, sub: o.Events, con: o.Console, in: o.In, sigs: o.Signals, session: o.Session, tty: o.TTY}
	if o.SignIn != nil {
		c.offerSignIn(o.SignIn.Agent, o.SignIn.Methods)
		return c.loop(ctx)
	}
	c.title = o.Session.Title
	c.con.Say("%s is ready. /help for commands; Ctrl-C cancels a turn, twice quits; Ctrl-D quits.", o.Session.Agent.Title)
	return c.loop(ctx)
}

// chat is the view of one conversation in the terminal: one goroutine reads the user's
// lines, draws the conversation's events and acts on both. A line is a prompt (or a
// command) between turns, the answer while a question is on screen, and waits while a
// turn runs (it is read once the turn is over).
type chat struct {
	o       Options
	conv    *conversation.Conversation
	sub     Events
	con     *Console
	in      *Prompter
	sigs    chan os.Signal
	session conversation.Session // as the last event showed it

	turn      int           // the prompt whose turn runs; 0 between turns
	question  *Question     // the permission question on screen
	elicit    *ElicitScreen // the elicitation on screen
	quitting  bool          // leave once the turn is over
	cancelled int           // the turn Ctrl-C cancelled
	last      time.Time     // the last Ctrl-C at the prompt
	tty       bool          // the input is a terminal: a terminal sign-in can run in it

	signIn  []conversation.AuthMethod // the methods offered while the agent needs a sign-in
	signing bool                      // a sign-in is under way
	// confirmRun is the terminal sign-in whose whole command is on screen, asking whether
	// to run it (lines typed before confirmMark do not answer).
	confirmRun  *conversation.AuthMethod
	confirmMark uint64
	title       string // the session's title, as last shown
}

// quitWindow is how soon a second Ctrl-C at the prompt must follow the first to quit.
const quitWindow = 2 * time.Second

// errQuit ends the loop without an error.
var errQuit = errors.New("quit")

func (c *chat) loop(ctx context.Context) error {
	c.con.Prompt("› ")
	for {
		var lines <-chan InputLine
		var eof <-chan struct{}
		if c.turn == 0 || c.question != nil || c.elicit != nil {
			lines, eof = c.in.lines, c.in.eof
		}
		var err error
		select {
		case line := <-lines:
			err = c.onLine(ctx, line)
		case <-eof:
			err = c.onEOF()
		case sig := <-c.sigs:
			err = c.onSignal(sig)
		case <-c.sub.Ready():
			err = c.onEvents()
		case <-c.con.OutputFailed():
			return c.con.OutputErr() // nobody can see the chat any more
		case <-ctx.Done():
			return nil
		}
		if errors.Is(err, errQuit) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (c *chat) onEvents() error {
	for _, ev := range c.sub.Take() {
		c.con.Show(ev)
		switch e := ev.(type) {
		case conversation.Ready:
			c.session = e.Session
			c.showTitle()
			if c.signIn != nil {
				c.signIn = nil
				c.con.Say("%s is ready.", e.Session.Agent.Title)
				c.promptIfIdle()
			}
		case conversation.SessionChanged:
			c.session = e.Session
			c.showTitle()
		case conversation.StartFailed:
			if _, ok := errors.AsType[*conversation.AuthRequiredError](e.Err); !ok {
				c.con.Say("parley: %v", e.Err)
			}
		case conversation.SignInRequired:
			c.offerSignIn(e.Agent, e.Methods)
			c.promptIfIdle()
		case conversation.SigningIn:
			c.signing = true
			c.con.Say("parley: signing in with %s …", OneLineSafe(e.Method.Name))
		case conversation.SignInEnded:
			c.signing = false
			if e.Err != nil {
				c.con.Say("parley: the sign-in failed: %v", e.Err)
			} else {
				c.con.Say("parley: signed in with %s; opening the session again …", OneLineSafe(e.Method.Name))
			}
			c.promptIfIdle()
		case conversation.ElicitationAsked:
			c.elicit = c.con.ShowElicitation(e, func(a conversation.ElicitationAnswer) error { return c.conv.AnswerElicitation(e.ID, a) }, c.in)
		case conversation.ElicitationClosed:
			if c.elicit != nil && c.elicit.ID == e.ID {
				c.elicit = nil
				if e.Withdrawn {
					c.con.Say("\n(the agent withdrew its question)")
				}
				c.promptIfIdle()
			}
		case conversation.QuestionAsked:
			c.question = c.con.ShowQuestion(e, c.in)
		case conversation.QuestionClosed:
			if c.question != nil && c.question.ID == e.ID {
				c.question = nil
				if e.Withdrawn {
					c.con.Say("\n(the agent withdrew the question)")
				}
			}
		case conversation.TurnEnded:
			if e.Replay || e.Turn != c.turn {
				continue
			}
			c.turn = 0
			if outErr := c.con.OutputErr(); outErr != nil {
				return outErr
			}
			_, needsSignIn := errors.AsType[*conversation.AuthRequiredError](e.Err)
			switch {
			case needsSignIn: // the offer to sign in says it
			case e.Err != nil:
				c.con.Say("parley: %v", e.Err)
			case e.StopReason != acp.StopReasonEndTurn:
				c.con.Say("(%s)", c.stopMessage(e.StopReason))
			}
			if e.Usage != nil {
				c.con.Say("(%s)", turnUsageText(e.Usage))
			}
			if c.quitting {
				return errQuit
			}
			c.con.Prompt("› ")
		case conversation.Closed:
			return errQuit
		}
	}
	return nil
}

// onLine answers the question on screen, or runs a prompt or command (type-ahead is
// welcome at the prompt).
func (c *chat) onLine(ctx context.Context, l InputLine) error {
	if c.question != nil {
		return c.onAnswer(l)
	}
	if c.confirmRun != nil {
		c.onRunAnswer(l)
		return nil
	}
	if c.elicit != nil {
		done, quit := c.elicit.Read(l)
		if done {
			c.elicit = nil
		}
		if quit {
			if c.turn == 0 {
				return errQuit
			}
			c.quit()
		}
		return nil
	}
	line := strings.TrimSpace(l.Text)
	if line == "" {
		c.con.Prompt("› ")
		return nil
	}
	if strings.HasPrefix(line, "/") {
		name, arg, _ := strings.Cut(line[1:], " ")
		arg = strings.TrimSpace(arg)
		var err error
		switch name {
		case "quit", "exit":
			return errQuit
		case "help":
			c.help()
		case "login":
			err = c.login(arg)
		case "config":
			err = c.config(ctx, arg)
		case "mode":
			err = c.setMode(ctx, arg)
		case "model":
			err = c.setModel(ctx, arg)
		case "sessions":
			err = c.sessions(ctx, arg)
		case "load":
			err = c.load(ctx, arg)
		case "new":
			err = c.reopen(ctx)
		case "changes":
			err = c.listChanges(ctx)
		case "diff":
			err = c.showDiff(ctx, arg)
		case "undo":
			err = c.undo(ctx, arg, false)
		case "rewind":
			err = c.undo(ctx, arg, true)
		case "keep":
			err = c.keep(ctx, arg)
		default:
			if c.signIn != nil {
				c.con.Say("parley: sign in first (/login), or /quit")
				break
			}
			c.send(line) // the agent's own command
			return nil
		}
		if errors.Is(err, errAsking) {
			return nil // a question is on screen
		}
		if err != nil {
			c.con.Say("parley: %v", err)
		}
		c.drain()
		c.promptIfIdle()
		return nil
	}
	switch {
	case c.signIn != nil:
		c.con.Say("parley: sign in first (/login), or /quit")
		c.con.Prompt("› ")
		return nil
	case c.signing:
		c.con.Say("parley: wait for the sign-in to end (Ctrl-C gives it up)")
		c.con.Prompt("› ")
		return nil
	}
	c.sendWithAttachments(line)
	return nil
}

// drain draws what the conversation reported while a command waited for the agent.
func (c *chat) drain() {
	select {
	case <-c.sub.Ready():
		c.onEvents()
	default:
	}
}

func (c *chat) send(text string) {
	p := c.conv.Send([]acp.ContentBlock{acp.TextBlock(text)})
	c.turn = p.ID
}

// onAnswer reads a line as the answer to the question on screen.
func (c *chat) onAnswer(l InputLine) error {
	a, quit, ok := c.question.Read(l)
	if !ok {
		return nil
	}
	c.answer(a)
	if !quit {
		return nil
	}
	if c.turn == 0 {
		return errQuit
	}
	c.quit()
	return nil
}

func (c *chat) answer(a permission.Answer) {
	c.conv.Answer(c.question.ID, a)
	c.question = nil
}

// quit leaves once the running turn, cancelled now, is over.
func (c *chat) quit() {
	c.quitting = true
	c.conv.Cancel()
}

func (c *chat) onEOF() error {
	if c.confirmRun != nil {
		c.confirmRun = nil
		c.con.Say("\n(not run: no sign-in)")
	}
	if c.elicit != nil {
		c.con.Say("")
		c.elicit.Cancelled()
		c.elicit = nil
		if c.turn != 0 {
			c.quit()
			return nil
		}
	}
	if c.question != nil {
		c.con.Say("")
		c.answer(permission.RejectOnce)
		if c.turn != 0 {
			c.quit()
			return nil
		}
	}
	c.con.Say("")
	return errQuit
}

// onSignal: Ctrl-C refuses the question on screen and cancels the turn; a second one
// while it is cancelling quits once it is over, a third ends parley at once. At the
// prompt, two within quitWindow quit. SIGTERM quits.
func (c *chat) onSignal(sig os.Signal) error {
	if c.signing && sig != syscall.SIGTERM {
		c.con.Say("\n(giving up the sign-in)")
		c.conv.CancelSignIn()
		return nil
	}
	if c.confirmRun != nil && sig != syscall.SIGTERM {
		c.confirmRun = nil
		c.con.Say("\n(not run: no sign-in)")
		c.con.Prompt("› ")
		return nil
	}
	if c.elicit != nil {
		c.con.Say("\n(cancelled the agent's question)")
		c.elicit.Cancelled()
		c.elicit = nil
		if c.turn == 0 {
			c.con.Prompt("› ")
			return nil
		}
	}
	if c.question != nil {
		c.con.Say("\n(refused)")
		c.answer(permission.RejectOnce)
		if c.turn == 0 {
			return nil // a question between turns: there is nothing to cancel
		}
	}
	if c.turn == 0 {
		if sig == syscall.SIGTERM || time.Since(c.last) < quitWindow {
			c.con.Say("")
			return errQuit
		}
		c.last = time.Now()
		c.con.Say("\n(Ctrl-C again or Ctrl-D to quit)")
		c.con.Prompt("› ")
		return nil
	}
	switch {
	case c.quitting:
		c.o.ForceExit(sig) // a third: the turn would not end
	case c.cancelled == c.turn || sig == syscall.SIGTERM:
		c.con.Say("(quitting)")
		c.quit()
	default:
		c.con.Say("\n(cancelling; Ctrl-C again to quit)")
		c.conv.Cancel()
		c.cancelled = c.turn
	}
	return nil
}

func (c *chat) stopMessage(stop acp.StopReason) string {
	if err := c.o.StopError(stop); err != nil {
		return err.Error()
	}
	return string(stop)
}

func (c *chat) help() {
	var b strings.Builder
	b.WriteString("parley commands: /help /login [N|ID] /config [ID [VALUE]] /mode [ID] /model [ID] /sessions [close|delete ID] /load ID /new /changes /diff [FILE] /undo [FILE|TURN] /rewind TURN /keep [TURN] /quit")
	if cmds := c.session.Commands; len(cmds) > 0 {
		b.WriteString("\nthe agent's commands:")
		for _, cmd := range cmds {
			fmt.Fprintf(&b, "\n  /%-20s %s", cmd.Name, cmd.Description)
		}
	}
	c.con.Say("%s", b.String())
}

// The session's settings, as the agent reported them.

func selectValues(o acp.SessionConfigOption) []acp.SessionConfigSelectOption {
	vals := o.Select.Options.Ungrouped
	for _, g := range o.Select.Options.Grouped {
		vals = append(vals, g.Options...)
	}
	return vals
}

// choice is one value of a mode, model or config option, for showing them.
type choice struct{ id, name string }

// showChoices lists the values with the current one starred.
func (c *chat) showChoices(title string, choices []choice, current string) {
	var lines []string
	for _, ch := range choices {
		mark := "  "
		if ch.id == current {
			mark = "* "
		}
		lines = append(lines, fmt.Sprintf("%s%-24s %s", mark, ch.id, ch.name))
	}
	c.con.Say("%s:\n%s", title, strings.Join(lines, "\n"))
}

// setConfig shows (arg "") or sets a select config option.
func (c *chat) setConfig(ctx context.Context, o acp.SessionConfigOption, arg string) error {
	if arg == "" {
		var cs []choice
		for _, v := range selectValues(o) {
			cs = append(cs, choice{string(v.Value), v.Name})
		}
		c.showChoices(o.Name, cs, string(o.Select.CurrentValue))
		return nil
	}
	s, err := c.conv.SetConfigOption(ctx, o.ID, acp.SessionConfigValueID(arg))
	if err != nil {
		return fmt.Errorf("setting %s: %w", o.Name, err)
	}
	c.session = s
	// Read the value back: the agent decides what was set.
	for _, n := range s.Config {
		if n.ID == o.ID && n.Select != nil {
			c.con.Say("%s: %s", n.Name, n.Select.CurrentValue)
		}
	}
	return nil
}

func (c *chat) setMode(ctx context.Context, arg string) error {
	if o, ok := c.session.ConfigOption(acp.SessionConfigOptionCategoryMode); ok {
		return c.setConfig(ctx, o, arg)
	}
	modes := c.session.Modes
	if modes == nil {
		return errors.New("this agent has no modes")
	}
	if arg == "" {
		var cs []choice
		for _, m := range modes.AvailableModes {
			cs = append(cs, choice{string(m.ID), m.Name})
		}
		c.showChoices("modes", cs, string(modes.CurrentModeID))
		return nil
	}
	s, err := c.conv.SetMode(ctx, arg)
	if err != nil {
		return fmt.Errorf("setting the mode: %w", err)
	}
	c.session = s
	c.con.Say("mode: %s", arg)
	return nil
}

// setModel prefers a config option of category model; agents that still use the legacy
// models list get session/set_model.
func (c *chat) setModel(ctx context.Context, arg string) error {
	if o, ok := c.session.ConfigOption(acp.SessionConfigOptionCategoryModel); ok {
		return c.setConfig(ctx, o, arg)
	}
	models := c.session.Models
	if models == nil {
		return errors.New("this agent offers no choice of model")
	}
	if arg == "" {
		var cs []choice
		for _, m := range models.AvailableModels {
			cs = append(cs, choice{string(m.ModelID), m.Name})
		}
		c.showChoices("models", cs, string(models.CurrentModelID))
		return nil
	}
	s, err := c.conv.SetModel(ctx, arg)
	if err != nil {
		return fmt.Errorf("setting the model: %w", err)
	}
	c.session = s
	c.con.Say("model: %s", arg)
	return nil
}

func (c *chat) listSessions(ctx context.Context) error {
	if c.session.Agent.Capabilities.SessionCapabilities.List == nil {
		return errors.New("this agent cannot list its sessions")
	}
	all, err := c.conv.ListSessions(ctx)
	if err != nil {
		return fmt.Errorf("listing sessions: %w", err)
	}
	var lines []string
	for _, si := range all {
		lines = append(lines, fmt.Sprintf("  %-38s %-20s %s", si.SessionID, si.UpdatedAt, si.Title))
	}
	if len(lines) == 0 {
		lines = append(lines, "  (none)")
	}
	c.con.Say("sessions in %s:\n%s", c.session.Cwd, strings.Join(lines, "\n"))
	return nil
}

// load reopens one of the agent's sessions: session/load replays it, session/resume
// does not.
func (c *chat) load(ctx context.Context, id string) error {
	if id == "" {
		return errors.New("/load needs a session id (see /sessions)")
	}
	caps := c.session.Agent.Capabilities
	if !caps.LoadSession && caps.SessionCapabilities.Resume == nil {
		return errors.New("this agent cannot reopen sessions")
	}
	s, err := c.conv.LoadSession(ctx, acp.SessionID(id))
	c.drain() // the replay
	if err != nil {
		return err
	}
	c.session = s
	c.con.Say("(session %s)", id)
	return nil
}

// reopen starts a new session (/new).
func (c *chat) reopen(ctx context.Context) error {
	s, err := c.conv.NewSession(ctx)
	if err != nil {
		return err
	}
	c.session = s
	c.con.Say("(new session %s)", s.ID)
	return nil
}
