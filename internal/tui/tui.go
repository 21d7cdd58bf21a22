package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
)

// Conv is one conversation the screen shows, and what it needs besides it.
type Conv struct {
	// Name is the agent as the user chose it.
	Name         string
	Conversation *conversation.Conversation
	// TerminalOutput reads a terminal of the conversation's agent (the output of a
	// command a tool call runs), or is nil.
	TerminalOutput func(ctx context.Context, req *acp.TerminalOutputRequest) (*acp.TerminalOutputResponse, error)
	// OpenURL opens a page the agent asks the user to open, in the user's browser.
	OpenURL func(url string) error
	// Keeper keeps the conversation's transcript (nil: none is kept), for /fork, /rewind
	// and /handoff.
	Keeper *conversation.Keeper
}

// AgentChoice is an agent the agent picker offers, or the first screen lists.
type AgentChoice struct {
	Name, Description string
	// Availability says whether it can start here ("yes", "no: why", "needs a
	// download …"); About what it is, for a built-in ("" otherwise).
	Availability, About string
	// SignIn says the agent may need a sign-in, and how ("" when parley cannot tell).
	SignIn string
}

// Options configure Run.
type Options struct {
	// BellAfter is how long a turn lasts before its end rings the bell (BEL); 0: never.
	BellAfter time.Duration
	First     Conv
	// Workspace is the session's working directory: @ completes its files, and the
	// history of prompts is kept per workspace.
	Workspace string
	// HistoryFile keeps the prompts sent in this workspace ("" keeps none).
	HistoryFile string
	// Agents lists the agents the picker offers, and Start starts a conversation with
	// one of them (its owner closes it once Run returns). Either may be nil.
	Agents func() []AgentChoice
	Start  func(agent string) (Conv, error)
	// Handoff starts a conversation with another agent that carries this one on as
	// carried says (/handoff AGENT); nil: /handoff is not offered.
	Handoff func(agent string, carried conversation.Carried) (Conv, error)
	// Known lists every agent parley knows, those that cannot run here too, for the
	// first screen (nil: it lists none).
	Known func() []AgentChoice
	// Signals are the process's SIGINT and SIGTERM: the first SIGINT is Ctrl-C, SIGTERM
	// leaves.
	Signals <-chan os.Signal
	Input   io.Reader
	Output  io.Writer
	// Env is the environment the terminal's capabilities are read from.
	Env []string
	// Width and Height, when set, fix the screen's size (for tests without a terminal).
	Width, Height int
}

// Run shows the conversation full-screen until the user leaves, then prints the
// transcript on the normal screen, so what was shown stays readable in the terminal's
// scrollback. When the UI panics, the terminal is restored and Run returns the *Panic
// (panics.go), printing no transcript.
func Run(ctx context.Context, o Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newModel(ctx, o)
	g := &guard{}
	// bubbletea's own panic catching is off: guard does it (panics.go says why).
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithoutCatchPanics()}
	if o.Input != nil {
		opts = append(opts, tea.WithInput(o.Input))
	}
	if o.Output != nil {
		opts = append(opts, tea.WithOutput(o.Output))
	}
	if o.Env != nil {
		opts = append(opts, tea.WithEnvironment(o.Env))
	}
	if o.Width > 0 && o.Height > 0 {
		opts = append(opts, tea.WithWindowSize(o.Width, o.Height))
	}
	screen := &guarded{inner: m, g: g, trap: newTestTrap()}
	p := tea.NewProgram(screen, opts...)
	screen.prog = p
	m.prog = p
	if o.Signals != nil {
		go func() {
			for {
				select {
				case sig := <-o.Signals:
					p.Send(signalMsg{sig})
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	err := g.run(p)
	cancel()
	out := o.Output
	if out == nil {
		out = os.Stdout
	}
	if crash := g.caught(); crash != nil {
		// bubbletea leaves the cursor as the last screen drawn had it, which a terminal
		// that keeps a cursor per screen may show as hidden once the alternate one is left.
		io.WriteString(out, xansi.ShowCursor)
		return crash
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("the terminal UI: %w", err)
	}
	io.WriteString(out, m.printable())
	return nil
}
