package cli

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/linechat"
	"github.com/parley-acp/parley/internal/tui"
	"github.com/parley-acp/parley/internal/xdg"
	"github.com/spf13/cobra"
)

// useTUI says whether parley chat draws its terminal UI: only for a person at a terminal
// that can show it. A pipe, a file, TERM=dumb (or no TERM) and NO_COLOR keep the line
// interface, which scripts and plain terminals read.
func useTUI(cmd *cobra.Command, plain bool) bool {
	if plain || !linechat.IsTerminal(cmd.InOrStdin()) || !linechat.IsTerminal(cmd.OutOrStdout()) {
		return false
	}
	return linechat.PlainTerminalReason() == ""
}

// runChatTUI is parley chat on a terminal: the conversation drawn full-screen by
// internal/tui, which may start more conversations (with other agents); all of them are
// closed here once the screen is left.
func runChatTUI(cmd *cobra.Command, g *globals, af *agentFlags, opts sessionOptions) error {
	// Until the screen is drawn, and once it is left, parley speaks on the normal screen.
	con := linechat.NewConsole(linechat.ConsoleOptions{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), TTY: true})
	defer con.Close()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	defer catchBrokenPipe()()
	s, err := startSession(g, con, opts, true)
	if err != nil {
		return err
	}
	release := func() {}
	defer func() { release() }()
	var others startedSessions
	defer others.closeAll()
	defer s.close()
	// Once the screen is left, closing is in order; a signal meanwhile ends parley at once.
	defer func() { release = forceExitOnSignal(sigs, nil) }()

	quiet := linechat.NewConsole(linechat.ConsoleOptions{Stdout: io.Discard, Stderr: io.Discard})
	defer quiet.Close()
	startCarried := func(name string, carried *conversation.Carried) (tui.Conv, error) {
		o := opts
		cfg, err := config.Load(config.Path())
		if err != nil {
			return tui.Conv{}, err
		}
		a, err := catalog.New(cfg).Lookup(name)
		if err != nil {
			return tui.Conv{}, err
		}
		o.spec, o.agentName, o.carried = a.Spec, name, carried
		started, err := startSession(g, quiet, o, true)
		if err != nil {
			return tui.Conv{}, err
		}
		if !others.add(started) {
			started.close()
			return tui.Conv{}, errors.New("parley is leaving")
		}
		return tui.Conv{Name: name, Conversation: started.conv, TerminalOutput: started.agent.TerminalOutput, OpenURL: openInBrowser, Keeper: started.keeper}, nil
	}
	start := func(name string) (tui.Conv, error) { return startCarried(name, nil) }
	handoff := func(name string, carried conversation.Carried) (tui.Conv, error) { return startCarried(name, &carried) }
	list := func() []tui.AgentChoice {
		cfg, err := config.Load(config.Path())
		if err != nil {
			return nil
		}
		var out []tui.AgentChoice
		for _, a := range catalog.New(cfg).All() {
			if a.NotRunnable == "" {
				out = append(out, tui.AgentChoice{Name: a.Name, Description: a.Spec.String()})
			}
		}
		return out
	}
	known := func() []tui.AgentChoice {
		cfg, err := config.Load(config.Path())
		if err != nil {
			return nil
		}
		var out []tui.AgentChoice
		for _, a := range catalog.New(cfg).All() {
			out = append(out, tui.AgentChoice{Name: a.Name, Description: a.Spec.String(), Availability: agentAvailability(cmd.Context(), a, opts.dir), About: catalog.About(a.Name), SignIn: a.SignIn()})
		}
		return out
	}
	if opts.remote != nil {
		// The server's agents are the server's to start: another conversation with one
		// opens on its page (or another parley chat --connect).
		list, start, known = nil, nil, nil
	}
	err = tui.Run(cmd.Context(), tui.Options{
		First:       tui.Conv{Name: shortAgentName(opts), Conversation: s.conv, TerminalOutput: s.agent.TerminalOutput, OpenURL: openInBrowser, Keeper: s.keeper},
		Workspace:   opts.dir,
		BellAfter:   bellAfter(opts.cfg),
		HistoryFile: tui.HistoryFile(xdg.StateDir(), opts.dir),
		Agents:      list,
		Start:       start,
		Handoff:     handoff,
		Known:       known,
		Signals:     sigs,
		Output:      cmd.OutOrStdout(),
	})
	if p, ok := errors.AsType[*tui.Panic](err); ok {
		return reportTUIPanic(p) // the conversations are closed on the way out, as on /quit
	}
	return err
}

// startedSessions are the conversations the UI started with other agents: closed when
// parley chat ends (a start still under way then closes its own).
type startedSessions struct {
	mu     sync.Mutex
	list   []*session
	closed bool
}

func (s *startedSessions) add(x *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.list = append(s.list, x)
	return true
}

func (s *startedSessions) closeAll() {
	s.mu.Lock()
	s.closed = true
	list := s.list
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, x := range list {
		wg.Go(x.close)
	}
	wg.Wait()
}

// bellAfter is how long a turn lasts before the full-screen chat rings the bell at its
// end: the configuration's bell_after seconds, 10 by default, 0 for never.
func bellAfter(cfg *config.File) time.Duration {
	if cfg == nil || cfg.BellAfter == nil {
		return 10 * time.Second
	}
	return time.Duration(max(*cfg.BellAfter, 0)) * time.Second
}
