package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/spf13/cobra"
)

func newChatCommand(g *globals) *cobra.Command {
	var af agentFlags
	cmd := &cobra.Command{
		Use:   "chat [flags]",
		Short: "Talk with an ACP agent in the terminal",
		Long: `Talk with an ACP agent in the terminal. Type a prompt and press Enter; the reply
streams, tool calls show their progress in place, and the agent's permission requests are
asked here, one at a time, showing the command that runs and its risk (allow once, allow
always, reject once, reject always; /quit refuses and leaves). Without a terminal on stdin
nothing is asked: requests are refused (--yolo allows all but critical commands), and
every line is a prompt.

Ctrl-C cancels the running turn (session/cancel); a second Ctrl-C, or Ctrl-D, quits.

Commands:
  /help                 this list, with the agent's own commands
  /mode [ID]            show or switch the session's mode
  /model [ID]           show or switch the model
  /sessions             list the agent's sessions (when it can)
  /load ID              resume one of them (session/load or session/resume)
  /new                  start a new session
  /quit                 leave
Any other /command is sent to the agent (agents advertise their own).` + unconfinedHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := af.sessionOptions(cmd)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			in := newPrompter(cmd.InOrStdin())
			// Questions are asked only on a terminal: a script's next line is a prompt,
			// never an answer (without a terminal, requests are refused; --yolo allows).
			con := newConsole(consoleOptions{
				stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr(),
				tty: isTerminal(cmd.OutOrStdout()), root: opts.dir, ask: isTerminal(cmd.InOrStdin()),
			})
			defer con.close()
			// Ctrl-C belongs to the chat: it cancels a turn instead of ending parley. SIGTERM
			// quits. Once the chat is leaving, one more signal ends parley at once.
			sigs := make(chan os.Signal, 4)
			signal.Notify(sigs, stopSignals...)
			defer signal.Stop(sigs)
			defer catchBrokenPipe()()
			con.say("parley chat: starting %s in %s …", opts.agentName, opts.dir)
			s, err := startSession(cmd.Context(), g, con, opts)
			if err != nil {
				return err
			}
			release := func() {}
			defer func() { release() }()
			defer s.close()
			// From here on, leaving is in order; a signal meanwhile ends parley at once.
			defer func() { release = forceExitOnSignal(sigs, nil) }()
			c := &chat{s: s, con: con, in: in, sigs: sigs}
			con.say("%s is ready. /help for commands; Ctrl-C cancels a turn, twice quits; Ctrl-D quits.", s.agentTitle())
			return c.loop(cmd.Context())
		},
	}
	af.register(cmd)
	return cmd
}

// chat is the read-prompt-show loop.
type chat struct {
	s    *session
	con  *console
	in   *prompter
	sigs chan os.Signal
}

// quitWindow is how soon a second Ctrl-C at the prompt must follow the first to quit.
const quitWindow = 2 * time.Second

func (c *chat) loop(ctx context.Context) error {
	var lastInterrupt time.Time
	for {
		c.con.prompt("› ")
		var line string
		select {
		case l, ok := <-c.in.lines:
			if !ok {
				return nil
			}
			line = l
		case <-c.in.eof:
			c.con.say("")
			return nil
		case sig := <-c.sigs:
			if sig == syscall.SIGTERM || time.Since(lastInterrupt) < quitWindow {
				c.con.say("")
				return nil
			}
			lastInterrupt = time.Now()
			c.con.say("\n(Ctrl-C again or Ctrl-D to quit)")
			continue
		case pq := <-c.con.questions:
			// A question between turns: the next line answers it, not the prompt.
			if c.question(pq) == quitAsked {
				return nil
			}
			continue
		case <-ctx.Done():
			return nil
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		quit, err := c.handle(ctx, line)
		if outErr := c.con.outputErr(); outErr != nil {
			return outErr // nobody can see the chat any more
		}
		if err != nil {
			c.con.say("parley: %v", err)
		}
		if quit {
			return nil
		}
	}
}

// handle runs one line: a parley command, or a prompt (agent commands included).
func (c *chat) handle(ctx context.Context, line string) (quit bool, err error) {
	if strings.HasPrefix(line, "/") {
		name, arg, _ := strings.Cut(line[1:], " ")
		arg = strings.TrimSpace(arg)
		switch name {
		case "quit", "exit":
			return true, nil
		case "help":
			c.help()
			return false, nil
		case "mode":
			return false, c.s.setMode(ctx, arg)
		case "model":
			return false, c.s.setModel(ctx, arg)
		case "sessions":
			return false, c.s.listSessions(ctx)
		case "load":
			return false, c.s.load(ctx, arg)
		case "new":
			return false, c.s.reopen(ctx)
		}
	}
	return c.turn(ctx, line)
}

// turn runs a prompt; Ctrl-C cancels it, a second Ctrl-C quits.
func (c *chat) turn(ctx context.Context, text string) (quit bool, err error) {
	if err := c.s.ensureAlive(ctx); err != nil {
		return false, err
	}
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		stop acp.StopReason
		err  error
	}
	done := make(chan result, 1)
	go func() {
		stop, err := c.s.turn(turnCtx, text)
		done <- result{stop, err}
	}()
	for {
		select {
		case r := <-done:
			if r.err != nil {
				return quit, r.err
			}
			if r.stop != acp.StopReasonEndTurn {
				c.con.say("(%s)", stopMessage(r.stop))
			}
			return quit, nil
		case sig := <-c.sigs:
			switch {
			case quit:
				forceExit(sig) // a third: the turn would not end
			case turnCtx.Err() != nil || sig == syscall.SIGTERM:
				quit = true // a second Ctrl-C while cancelling: leave once the turn ends
				c.con.say("(quitting)")
			default:
				c.con.say("\n(cancelling; Ctrl-C again to quit)")
			}
			cancel()
		case pq := <-c.con.questions:
			switch c.question(pq) {
			case quitAsked:
				quit = true
				cancel()
			case interrupted:
				c.con.say("(cancelling; Ctrl-C again to quit)")
				cancel()
			}
		}
	}
}

// question shows a permission question and reads the user's answer from the chat's
// input, the one reader of it: Ctrl-C refuses (and cancels the turn), /quit and the end
// of the input refuse and quit.
func (c *chat) question(pq *pendingQuestion) questionEnd {
	return c.con.answer(pq, func(ctx context.Context) (string, error) {
		select {
		case l := <-c.in.lines:
			return l, nil
		case <-c.in.eof:
			return "", errEOF
		case <-c.sigs:
			return "", errInterrupted
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
}

func stopMessage(stop acp.StopReason) string {
	if err := stopError(stop); err != nil {
		return err.Error()
	}
	return string(stop)
}

func (c *chat) help() {
	var b strings.Builder
	b.WriteString("parley commands: /help /mode [ID] /model [ID] /sessions /load ID /new /quit")
	if cmds := c.s.commands(); len(cmds) > 0 {
		b.WriteString("\nthe agent's commands:")
		for _, cmd := range cmds {
			fmt.Fprintf(&b, "\n  /%-20s %s", cmd.Name, cmd.Description)
		}
	}
	c.con.say("%s", b.String())
}

// The session's settings, as the agent reported them.

func (s *session) agentTitle() string {
	if info := s.agent.Info.AgentInfo; info != nil {
		if info.Title != "" {
			return info.Title
		}
		if info.Name != "" {
			return info.Name
		}
	}
	return s.opts.agentName
}

func (s *session) commands() []acp.AvailableCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.availableCommands
}

// configOption returns the first config option of the category.
func (s *session) configOption(cat acp.SessionConfigOptionCategory) (acp.SessionConfigOption, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.configOptions {
		if o.Category == cat && o.Select != nil {
			return o, true
		}
	}
	return acp.SessionConfigOption{}, false
}

func selectValues(o acp.SessionConfigOption) []acp.SessionConfigSelectOption {
	vals := o.Select.Options.Ungrouped
	for _, g := range o.Select.Options.Grouped {
		vals = append(vals, g.Options...)
	}
	return vals
}

// setConfig shows (arg "") or sets a select config option.
func (s *session) setConfig(ctx context.Context, o acp.SessionConfigOption, arg string) error {
	if arg == "" {
		var cs []choice
		for _, v := range selectValues(o) {
			cs = append(cs, choice{string(v.Value), v.Name})
		}
		s.showChoices(o.Name, cs, string(o.Select.CurrentValue))
		return nil
	}
	var resp *acp.SetSessionConfigOptionResponse
	err := s.setup(ctx, acp.MethodSetSessionConfigOption, func(ctx context.Context) (err error) {
		resp, err = s.agent.Conn.SetSessionConfigOption(ctx, &acp.SetSessionConfigOptionRequest{
			SessionID: s.id, ConfigID: o.ID, Value: acp.ConfigValueID(acp.SessionConfigValueID(arg)),
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("setting %s: %w", o.Name, err)
	}
	s.mu.Lock()
	s.configOptions = resp.ConfigOptions
	s.mu.Unlock()
	// Read the value back: the agent decides what was set.
	for _, n := range resp.ConfigOptions {
		if n.ID == o.ID && n.Select != nil {
			s.con.say("%s: %s", n.Name, n.Select.CurrentValue)
		}
	}
	return nil
}

// choice is one value of a mode, model or config option, for showing them.
type choice struct{ id, name string }

// showChoices lists the values with the current one starred.
func (s *session) showChoices(title string, choices []choice, current string) {
	var lines []string
	for _, c := range choices {
		mark := "  "
		if c.id == current {
			mark = "* "
		}
		lines = append(lines, fmt.Sprintf("%s%-24s %s", mark, c.id, c.name))
	}
	s.con.say("%s:\n%s", title, strings.Join(lines, "\n"))
}

func (s *session) setMode(ctx context.Context, arg string) error {
	if o, ok := s.configOption(acp.SessionConfigOptionCategoryMode); ok {
		return s.setConfig(ctx, o, arg)
	}
	s.mu.Lock()
	modes := s.modes
	s.mu.Unlock()
	if modes == nil {
		return errors.New("this agent has no modes")
	}
	if arg == "" {
		var cs []choice
		for _, m := range modes.AvailableModes {
			cs = append(cs, choice{string(m.ID), m.Name})
		}
		s.showChoices("modes", cs, string(modes.CurrentModeID))
		return nil
	}
	if err := s.setup(ctx, acp.MethodSetSessionMode, func(ctx context.Context) error {
		_, err := s.agent.Conn.SetSessionMode(ctx, &acp.SetSessionModeRequest{SessionID: s.id, ModeID: acp.SessionModeID(arg)})
		return err
	}); err != nil {
		return fmt.Errorf("setting the mode: %w", err)
	}
	s.mu.Lock()
	s.modes.CurrentModeID = acp.SessionModeID(arg)
	s.mu.Unlock()
	s.con.say("mode: %s", arg)
	return nil
}

// setModel prefers a config option of category model; agents that still use the legacy
// models list get session/set_model.
func (s *session) setModel(ctx context.Context, arg string) error {
	if o, ok := s.configOption(acp.SessionConfigOptionCategoryModel); ok {
		return s.setConfig(ctx, o, arg)
	}
	s.mu.Lock()
	models := s.models
	s.mu.Unlock()
	if models == nil {
		return errors.New("this agent offers no choice of model")
	}
	if arg == "" {
		var cs []choice
		for _, m := range models.AvailableModels {
			cs = append(cs, choice{string(m.ModelID), m.Name})
		}
		s.showChoices("models", cs, string(models.CurrentModelID))
		return nil
	}
	if err := s.setup(ctx, acp.MethodSetSessionModel, func(ctx context.Context) error {
		_, err := s.agent.Conn.SetSessionModel(ctx, &acp.SetSessionModelRequest{SessionID: s.id, ModelID: acp.ModelID(arg)})
		return err
	}); err != nil {
		return fmt.Errorf("setting the model: %w", err)
	}
	s.mu.Lock()
	s.models.CurrentModelID = acp.ModelID(arg)
	s.mu.Unlock()
	s.con.say("model: %s", arg)
	return nil
}

func (s *session) listSessions(ctx context.Context) error {
	if s.agent.Info.AgentCapabilities.SessionCapabilities.List == nil {
		return errors.New("this agent cannot list its sessions")
	}
	var all []acp.SessionInfo
	cursor := ""
	for range 20 { // pages; a bound against an agent that never ends its list
		var resp *acp.ListSessionsResponse
		err := s.setup(ctx, acp.MethodListSessions, func(ctx context.Context) (err error) {
			resp, err = s.agent.Conn.ListSessions(ctx, &acp.ListSessionsRequest{Cwd: s.opts.dir, Cursor: cursor})
			return err
		})
		if err != nil {
			return fmt.Errorf("listing sessions: %w", err)
		}
		all = append(all, resp.Sessions...)
		if cursor = resp.NextCursor; cursor == "" {
			break
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].UpdatedAt > all[j].UpdatedAt })
	var lines []string
	for _, si := range all {
		lines = append(lines, fmt.Sprintf("  %-38s %-20s %s", si.SessionID, si.UpdatedAt, si.Title))
	}
	if len(lines) == 0 {
		lines = append(lines, "  (none)")
	}
	s.con.say("sessions in %s:\n%s", s.opts.dir, strings.Join(lines, "\n"))
	return nil
}

// load reopens one of the agent's sessions: session/load replays it, session/resume
// does not.
func (s *session) load(ctx context.Context, id string) error {
	if id == "" {
		return errors.New("/load needs a session id (see /sessions)")
	}
	caps := s.agent.Info.AgentCapabilities
	sid := acp.SessionID(id)
	s.client.AddSession(sid, s.roots)
	s.con.newTurn()
	var err error
	switch {
	case caps.LoadSession:
		var resp *acp.LoadSessionResponse
		err = s.setup(ctx, acp.MethodLoadSession, func(ctx context.Context) (err error) {
			resp, err = s.agent.Conn.LoadSession(ctx, &acp.LoadSessionRequest{SessionID: sid, Cwd: s.opts.dir, McpServers: []acp.McpServer{}})
			return err
		})
		if err == nil {
			s.setSettings(resp.Modes, resp.ConfigOptions, resp.Models)
		}
	case caps.SessionCapabilities.Resume != nil:
		var resp *acp.ResumeSessionResponse
		err = s.setup(ctx, acp.MethodResumeSession, func(ctx context.Context) (err error) {
			resp, err = s.agent.Conn.ResumeSession(ctx, &acp.ResumeSessionRequest{SessionID: sid, Cwd: s.opts.dir, McpServers: []acp.McpServer{}})
			return err
		})
		if err == nil {
			s.setSettings(resp.Modes, resp.ConfigOptions, resp.Models)
		}
	default:
		return errors.New("this agent cannot reopen sessions")
	}
	s.con.endTurn("")
	if err != nil {
		return fmt.Errorf("loading session %s: %w", id, err)
	}
	s.id = sid
	s.con.say("(session %s)", id)
	return nil
}
