package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolui"
	"golang.org/x/term"
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
	stderr   io.Writer
	ticker   *time.Ticker
	stopTick chan struct{}

	failOnce sync.Once
	failed   chan struct{} // closed on the first write error of the output
	failErr  error         // set before failed is closed
	// questions carries permission questions to the goroutine that reads the user's
	// input (see question.go); nil when there is nobody to ask. Unbuffered: one question
	// at a time, in the order they came.
	questions chan *pendingQuestion
	closed    chan struct{} // closed by close: nobody will answer any more
}

type consoleOptions struct {
	stdout, stderr io.Writer
	json           bool
	tty            bool // stdout is a terminal
	root           string
	// ask is set when a person can answer questions: the input is a terminal.
	ask bool
}

func newConsole(o consoleOptions) *console {
	c := &console{root: o.root, stderr: o.stderr, closed: make(chan struct{}), failed: make(chan struct{})}
	if o.ask {
		c.questions = make(chan *pendingQuestion)
	}
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
		// conversation: show them as they were typed (the agent sends them, so they
		// are made safe to print like everything else it sends).
		if text, ok := chunk.Content.AsText(); ok {
			c.live.Detach()
			fmt.Fprintf(c.flushers[0], "\n› %s\n", toolui.SafeText(text))
		}
		return
	}
	c.render(c.turn.Apply(n.Update)...)
}

// canAsk reports whether a person can answer permission questions.
func (c *console) canAsk() bool { return c.questions != nil }

// ask is the permission policy's question to the user (only when canAsk): it waits its
// turn, then for the answer from the goroutine that reads the input.
func (c *console) ask(ctx context.Context, q *permission.Question) (permission.Answer, error) {
	c.mu.Lock()
	c.render(c.turn.AwaitConfirmation(q.Request))
	c.mu.Unlock()
	pq := &pendingQuestion{ctx: ctx, q: q, answer: make(chan permission.Answer, 1)}
	select {
	case c.questions <- pq:
	case <-ctx.Done():
		return permission.Cancelled, ctx.Err()
	case <-c.closed:
		return permission.Cancelled, errors.New("parley is quitting")
	}
	select {
	case a := <-pq.answer:
		return a, nil
	case <-ctx.Done():
		return permission.Cancelled, ctx.Err()
	}
}

// serveQuestions answers questions from in until ctx is done: parley run's question
// server (chat answers them in its own loop, which also reads the prompts).
func (c *console) serveQuestions(ctx context.Context, in *prompter) {
	for {
		select {
		case pq := <-c.questions:
			c.answer(pq, in.readLine)
		case <-ctx.Done():
			return
		}
	}
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

// say prints a line of parley's own to the user. What it quotes of the agent's (names,
// titles, errors, its stderr) is made safe to print with the rest.
func (c *console) say(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	fmt.Fprintln(c.stderr, toolui.SafeText(fmt.Sprintf(format, args...)))
}

func (c *console) flush() {
	for _, f := range c.flushers {
		f.Flush()
	}
}

func (c *console) close() {
	close(c.closed)
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
func isTerminal(f any) bool {
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

// prompter reads the user's lines: one goroutine reads the input, and the one goroutine
// that owns it (the chat loop, or run's question server) takes them from lines.
type prompter struct {
	lines chan string
	eof   chan struct{}
}

func newPrompter(in io.Reader) *prompter {
	p := &prompter{lines: make(chan string), eof: make(chan struct{})}
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
