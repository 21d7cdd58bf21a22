package linechat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
	"golang.org/x/term"
)

// console draws a conversation for a person (or a script, with --json): it is the view
// of run and chat. The goroutine that follows the conversation's events draws them; the
// spinner's ticker draws too, so everything that touches the renderers holds mu.
type Console struct {
	mu       sync.Mutex
	text     toolui.Renderer // the reply text
	rest     toolui.Renderer // everything else (the same renderer when both go to one place)
	live     *toolui.TextRenderer
	flushers []*streamWriter
	stderr   io.Writer
	ticker   *time.Ticker
	stopTick chan struct{}

	changesHint string
	openURL     func(url string) error

	failOnce sync.Once
	failed   chan struct{} // closed on the first write error of the output
	failErr  error         // set before failed is closed
}

type ConsoleOptions struct {
	Stdout, Stderr io.Writer
	JSON           bool
	TTY            bool   // stdout is a terminal
	ChangesHint    string // how to review and undo a turn's changes, said after them
	// OpenURL opens a page the agent asks the user to visit (nil: the user opens it).
	OpenURL func(url string) error
}

func NewConsole(o ConsoleOptions) *Console {
	c := &Console{stderr: o.Stderr, failed: make(chan struct{}), changesHint: o.ChangesHint, openURL: o.OpenURL}
	out := newStreamWriter(o.Stdout, c.fail)
	c.flushers = append(c.flushers, out)
	switch {
	case o.JSON:
		enc := toolui.NewJSONEncoder(out)
		c.text, c.rest = enc, enc
	case o.TTY:
		// NO_COLOR takes the colours away; TERM=dumb also the redrawing in place, which
		// moves the cursor.
		plain := PlainTerminalReason()
		r := toolui.NewTextRenderer(out, &toolui.TextOptions{Color: plain == "", Live: os.Getenv("TERM") != "dumb", Width: terminalWidth()})
		c.text, c.rest, c.live = r, r, r
	default:
		// A pipe: the reply alone on stdout; tool calls, thoughts and plans on stderr.
		errw := newStreamWriter(o.Stderr, c.fail)
		c.flushers = append(c.flushers, errw)
		c.text = toolui.NewTextRenderer(out, &toolui.TextOptions{})
		c.rest = toolui.NewTextRenderer(errw, &toolui.TextOptions{})
	}
	if c.live != nil {
		c.ticker = time.NewTicker(100 * time.Millisecond)
		c.stopTick = make(chan struct{})
		go c.tick()
	}
	return c
}

// fail records the first error writing the output (stdout closed, terminal gone), which
// ends the turn: nobody can see it any more.
func (c *Console) fail(err error) {
	c.failOnce.Do(func() {
		c.failErr = fmt.Errorf("writing the output: %w", err)
		close(c.failed)
	})
}

// outputFailed is closed once writing the output has failed; outputErr then says how.
func (c *Console) OutputFailed() <-chan struct{} { return c.failed }

func (c *Console) OutputErr() error {
	select {
	case <-c.failed:
		return c.failErr
	default:
		return nil
	}
}

func (c *Console) tick() {
	for {
		select {
		case <-c.ticker.C:
			c.mu.Lock()
			c.live.Tick()
			c.mu.Unlock()
		case <-c.stopTick:
			return
		}
	}
}

// render shows events; c.mu is held.
func (c *Console) render(evs ...toolstate.Event) {
	for _, ev := range evs {
		if ev.Kind == toolstate.TextDelta {
			c.text.Render(ev)
		} else {
			c.rest.Render(ev)
		}
	}
}

// show draws one event of the conversation. The events a view acts on (a question, the
// end of a turn, the start) are the caller's; show draws what they show.
func (c *Console) Show(ev conversation.Event) {
	switch e := ev.(type) {
	case conversation.Starting:
		if e.Restart {
			c.Say("parley: the agent exited (%v); restarting it with a new session", e.Reason)
		}
	case conversation.StartProgress:
		c.showStartProgress(e)
	case conversation.TurnUpdate:
		c.showUpdate(e.Update)
	case conversation.TurnEnded:
		if e.Err != nil || e.Replay {
			c.endTurn("", nil)
		} else {
			c.endTurn(e.StopReason, e.Usage)
		}
	case conversation.Notice:
		c.Say("parley: %s", e.Text)
	case conversation.AgentNotice:
		text := OneLineSafe(e.Title)
		if e.Description != "" {
			text += ": " + OneLineSafe(e.Description)
		}
		c.Say("[%s from the agent] %s", OneLineSafe(string(e.Severity)), text)
	case conversation.Compaction:
		switch e.Status {
		case acp.CompactionStatusInProgress:
			c.Say("(the agent is compacting its context …)")
		case acp.CompactionStatusCompleted:
			c.Say("(the agent compacted its context)")
		case acp.CompactionStatusFailed:
			c.Say("(the agent could not compact its context: %s)", OneLineSafe(e.Error))
		}
	case conversation.ElicitationDeclined:
		c.Say("parley: declined what the agent asked (%s): nobody here can answer it", OneLineSafe(e.Elicitation.Message))
	case conversation.ElicitationCompleted:
		c.Say("(the agent is done with the page it asked you to open)")
	case conversation.Refused:
		// The call's own line says it was refused and by what; this says what to do.
		if e.By == permission.DecidedByNobody {
			c.Say("parley: there is no terminal to ask about %s (--yolo allows all but critical commands)", OneLineSafe(e.Title))
		}
	case conversation.TurnChanges:
		c.showTurnChanges(e)
	}
}

// showStartProgress says what happens while an agent takes more than a moment to start:
// what runs, what it downloads, and the lines it writes to its stderr.
func (c *Console) showStartProgress(p conversation.StartProgress) {
	if p.First {
		c.Say("parley: %s is still starting: %s", p.Agent, p.Command)
		if p.Download != "" {
			c.Say("parley: it first downloads %s (allowed %v; Ctrl-C stops)", p.Download, p.Allowed)
		} else {
			c.Say("parley: waiting up to %v for it to answer (--agent-timeout)", p.Allowed)
		}
	}
	for _, line := range p.Stderr {
		c.Say("  %s: %s", p.Agent, line)
	}
}

func (c *Console) showUpdate(ev toolstate.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if chunk := ev.Update.UserMessageChunk; chunk != nil && c.live != nil {
		// The user's own words come back only when session/load replays a
		// conversation: show them as they were typed (the agent sends them, so they
		// are made safe to print like everything else it sends).
		if text, ok := chunk.Content.AsText(); ok {
			c.live.Detach()
			fmt.Fprintf(c.flushers[0], "\n› %s\n", toolui.SafeText(text))
		}
		return
	}
	c.render(ev)
}

// endTurn ends the turn's output; usage, the agent's report of the turn's tokens, goes
// on the JSON stop line (the chat says it in words).
func (c *Console) endTurn(stop acp.StopReason, usage *acp.Usage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if enc, ok := c.text.(*toolui.JSONEncoder); ok {
		enc.EndTurnUsage(stop, usage)
		c.flush()
		return
	}
	c.text.EndTurn(stop)
	if c.rest != c.text {
		c.rest.EndTurn(stop)
	}
	c.flush()
}

// prompt shows the input prompt (on a terminal only: a script gets no noise).
func (c *Console) Prompt(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	if IsTerminal(c.stderr) {
		fmt.Fprint(c.stderr, p)
	}
}

// say prints a line of parley's own to the user. What it quotes of the agent's (names,
// titles, errors, its stderr) is made safe to print with the rest.
func (c *Console) Say(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	fmt.Fprintln(c.stderr, toolui.SafeText(fmt.Sprintf(format, args...)))
}

// JSONEvent writes v as one line of the JSON output and reports true, when the output
// is JSON (--json); else it does nothing and reports false.
func (c *Console) JSONEvent(v any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	enc, ok := c.text.(*toolui.JSONEncoder)
	if ok {
		enc.Event(v)
		c.flush()
	}
	return ok
}

func (c *Console) flush() {
	for _, f := range c.flushers {
		f.Flush()
	}
}

func (c *Console) Close() {
	if c.ticker != nil {
		c.ticker.Stop()
		close(c.stopTick)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.flushers {
		f.Close()
	}
}

// terminalWidth is $COLUMNS, or 0 (the renderer's default) when unknown.
func terminalWidth() int {
	var w int
	fmt.Sscan(os.Getenv("COLUMNS"), &w)
	return w
}

// isTerminal reports whether f is a terminal (a console on Windows). Being a character
// device is not enough: /dev/null (NUL) is one too, and a run with its input from there has
// nobody to ask.
func IsTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	// Through SyscallConn, not Fd, which would put the file into blocking mode.
	raw, err := file.SyscallConn()
	if err != nil {
		return false
	}
	terminal := false
	if err := raw.Control(func(fd uintptr) { terminal = term.IsTerminal(int(fd)) }); err != nil {
		return false
	}
	return terminal
}

// streamWriter buffers output and flushes it shortly after it was written, so a stream of
// small chunks costs few system calls yet shows up at once for a reader. The first write
// error goes to onErr (within flushDelay of the write that met it) and fails later writes.
type streamWriter struct {
	mu     sync.Mutex
	w      *bufio.Writer
	timer  *time.Timer
	closed bool
	err    error
	onErr  func(error)
}

const flushDelay = 15 * time.Millisecond

func newStreamWriter(w io.Writer, onErr func(error)) *streamWriter {
	return &streamWriter{w: bufio.NewWriterSize(w, 64<<10), onErr: onErr}
}

// Write buffers b; it fails once writing out has failed.
func (s *streamWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if s.closed || len(b) == 0 {
		return len(b), nil
	}
	if _, err := s.w.Write(b); err != nil {
		s.failed(err)
		return 0, err
	}
	if s.timer == nil {
		s.timer = time.AfterFunc(flushDelay, s.Flush)
	}
	return len(b), nil
}

// Flush writes out what is buffered.
func (s *streamWriter) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.w.Flush(); err != nil {
		s.failed(err)
	}
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
}

// failed records the first error; s.mu is held.
func (s *streamWriter) failed(err error) {
	if s.err == nil {
		s.err = err
		if s.onErr != nil {
			s.onErr(err)
		}
	}
}

// Close flushes and stops taking writes. It may be called more than once.
func (s *streamWriter) Close() {
	s.Flush()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// PlainTerminalReason says why the terminal gets plain output ("" when it need not).
func PlainTerminalReason() string {
	switch term := os.Getenv("TERM"); {
	case term == "" || term == "dumb":
		return "TERM=" + term
	case os.Getenv("NO_COLOR") != "":
		return "NO_COLOR"
	}
	return ""
}

// open opens a page in the user's browser, where the console can.
func (c *Console) open(url string) error {
	if c.openURL == nil {
		return errors.New("no browser to open it in")
	}
	return c.openURL(url)
}

// Stderr is where the console says what is not the reply.
func (c *Console) Stderr() io.Writer { return c.stderr }
