package linechat

import (
	"context"
	"errors"
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
	// Keeper keeps the conversation's transcript (nil when parley keeps none): /fork,
	// /rewind and /handoff carry it on.
	Keeper *conversation.Keeper
	// Handoff starts the conversation with another agent that /handoff AGENT goes on
	// in, carried as carried says, and ends the one left; nil: /handoff is not offered.
	Handoff func(ctx context.Context, agent string, carried conversation.Carried) (Handed, error)
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

	words transcript // what was said, for /find
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
		c.words.record(ev)
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
		return c.command(ctx, line)
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
