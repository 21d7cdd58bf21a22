package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolui"
)

// console shows turns to a person (or a script, with --json) and asks them for
// permission. Session updates arrive on the connection's dispatcher goroutine and
// permission requests on request goroutines, so everything that touches the turn or the
// renderers holds mu.
type console struct {
	mu       sync.Mutex
	turn     *toolui.Turn
	root     string
	text     toolui.Renderer // the reply text
	rest     toolui.Renderer // everything else (the same renderer when both go to one place)
	live     *toolui.TextRenderer
	flushers []*streamWriter
	prompter *prompter // nil: nobody to ask
	stderr   io.Writer
	ticker   *time.Ticker
	stopTick chan struct{}

	failOnce sync.Once
	failed   chan struct{} // closed on the first write error of the output
	failErr  error         // set before failed is closed
}

type consoleOptions struct {
	stdout, stderr io.Writer
	json           bool
	tty            bool // stdout is a terminal
	root           string
	prompter       *prompter
}

func newConsole(o consoleOptions) *console {
	c := &console{root: o.root, prompter: o.prompter, stderr: o.stderr, failed: make(chan struct{})}
	out := newStreamWriter(o.stdout, c.fail)
	c.flushers = append(c.flushers, out)
	switch {
	case o.json:
		enc := toolui.NewJSONEncoder(out)
		c.text, c.rest = enc, enc
	case o.tty:
		r := toolui.NewTextRenderer(out, &toolui.TextOptions{Color: true, Live: true, Width: terminalWidth()})
		c.text, c.rest, c.live = r, r, r
	default:
		// A pipe: the reply alone on stdout; tool calls, thoughts and plans on stderr.
		errw := newStreamWriter(o.stderr, c.fail)
		c.flushers = append(c.flushers, errw)
		c.text = toolui.NewTextRenderer(out, &toolui.TextOptions{})
		c.rest = toolui.NewTextRenderer(errw, &toolui.TextOptions{})
	}
	if c.live != nil {
		c.ticker = time.NewTicker(100 * time.Millisecond)
		c.stopTick = make(chan struct{})
		go c.tick()
	}
	c.turn = toolui.NewTurn(&toolui.TurnOptions{Root: o.root})
	return c
}

// fail records the first error writing the output (stdout closed, terminal gone), which
// ends the turn: nobody can see it any more.
func (c *console) fail(err error) {
	c.failOnce.Do(func() {
		c.failErr = fmt.Errorf("writing the output: %w", err)
		close(c.failed)
	})
}

// outputFailed is closed once writing the output has failed; outputErr then says how.
func (c *console) outputFailed() <-chan struct{} { return c.failed }

func (c *console) outputErr() error {
	select {
	case <-c.failed:
		return c.failErr
	default:
		return nil
	}
}

func (c *console) tick() {
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
func (c *console) render(evs ...toolui.Event) {
	for _, ev := range evs {
		if ev.Kind == toolui.TextDelta {
			c.text.Render(ev)
		} else {
			c.rest.Render(ev)
		}
	}
}

// newTurn starts presenting a new prompt turn.
func (c *console) newTurn() {
	c.mu.Lock()
	c.turn = toolui.NewTurn(&toolui.TurnOptions{Root: c.root})
	c.mu.Unlock()
}

func (c *console) onUpdate(ctx context.Context, n *acp.SessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if chunk := n.Update.UserMessageChunk; chunk != nil && c.live != nil {
		// The user's own words come back only when session/load replays a
		// conversation: show them as they were typed.
		if text, ok := chunk.Content.AsText(); ok {
			c.live.Detach()
			fmt.Fprintf(c.flushers[0], "\n› %s\n", text)
		}
		return
	}
	c.render(c.turn.Apply(n.Update)...)
}

// ask is the permission policy's question to the user; nil when nobody can answer.
func (c *console) ask(ctx context.Context, req *acp.RequestPermissionRequest) (permission.Answer, error) {
	c.mu.Lock()
	c.render(c.turn.AwaitConfirmation(req))
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	c.mu.Unlock()
	return c.prompter.askPermission(ctx, req)
}

func (c *console) onPermission(req *acp.RequestPermissionRequest, resp *acp.RequestPermissionResponse) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.render(c.turn.ResolveConfirmation(req.ToolCall.ToolCallID, resp.Outcome))
}

// cancelTurn marks the unfinished tool calls cancelled (ACP v1 has no such status).
func (c *console) cancelTurn() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.render(c.turn.Cancel()...)
}

func (c *console) endTurn(stop acp.StopReason) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.text.EndTurn(stop)
	if c.rest != c.text {
		c.rest.EndTurn(stop)
	}
	c.flush()
}

// prompt shows the input prompt (on a terminal only: a script gets no noise).
func (c *console) prompt(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	if isTerminal(c.stderr) {
		fmt.Fprint(c.stderr, p)
	}
}

// say prints a line of parley's own (not the agent's) to the user.
func (c *console) say(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	fmt.Fprintf(c.stderr, format+"\n", args...)
}

func (c *console) flush() {
	for _, f := range c.flushers {
		f.Flush()
	}
}

func (c *console) close() {
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

// isTerminal reports whether f is a character device (a terminal), not a pipe or file.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// prompter reads the user's lines. One goroutine reads the input; whoever needs a line
// (the chat loop, a permission question) takes it from lines, so the two never compete
// for the terminal.
type prompter struct {
	out   io.Writer
	lines chan string
	eof   chan struct{}
}

func newPrompter(in io.Reader, out io.Writer) *prompter {
	p := &prompter{out: out, lines: make(chan string), eof: make(chan struct{})}
	go func() {
		defer close(p.eof)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	return p
}

var errEOF = errors.New("end of input")

// readLine waits for the next line.
func (p *prompter) readLine(ctx context.Context) (string, error) {
	select {
	case l := <-p.lines:
		return l, nil
	case <-p.eof:
		return "", errEOF
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (p *prompter) askPermission(ctx context.Context, req *acp.RequestPermissionRequest) (permission.Answer, error) {
	title := req.ToolCall.Title
	if title == "" {
		title = string(req.ToolCall.ToolCallID)
	}
	for {
		fmt.Fprintf(p.out, "\nThe agent asks permission: %s\n  [y] allow once  [a] allow always  [n] reject once  [r] reject always\n? ", title)
		line, err := p.readLine(ctx)
		if err != nil {
			fmt.Fprintln(p.out)
			if errors.Is(err, errEOF) {
				return permission.RejectOnce, nil
			}
			return permission.Cancelled, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes", "allow", "once":
			return permission.AllowOnce, nil
		case "a", "always":
			return permission.AllowAlways, nil
		case "n", "no", "reject":
			return permission.RejectOnce, nil
		case "r", "never":
			return permission.RejectAlways, nil
		}
		fmt.Fprintln(p.out, "Please answer y, a, n or r.")
	}
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
