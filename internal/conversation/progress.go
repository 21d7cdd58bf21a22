package conversation

// Starting an agent a user can follow. Most agents start in well under a second; one
// that npx or uvx first downloads can take minutes, and one that is stuck never answers.
// So a start that takes more than a moment is reported to the views (StartProgress):
// the command that runs, what it downloads and how long it is allowed, then each line
// the process writes to its stderr as it comes (npm's warnings and errors, an agent's
// own start-up messages). A start that downloads is allowed StartOptions.DownloadTimeout
// (minutes) instead of the agent timeout, so that npx gets to report its own failure
// (it gives up on an unreachable registry only after a minute or two of retries), and
// that report is what the user reads, not "the agent did not answer".

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/parley-acp/parley/internal/agentproc"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/toolui"
)

// StartOptions say what an agent's start involves besides running its command.
type StartOptions struct {
	// Download, when set, says that the start first downloads the agent ("@scope/agent
	// through npx"). The start is then allowed DownloadTimeout instead of the agent
	// timeout.
	Download        string
	DownloadTimeout time.Duration // DefaultDownloadTimeout when 0
}

// DefaultDownloadTimeout is how long a start that downloads the agent may take.
const DefaultDownloadTimeout = 10 * time.Minute

// quietStart is how long a start goes unreported: an agent that is ready by then shows
// nothing of its start.
const quietStart = time.Second

// StartProgress: the agent's start is taking more than a moment. The first of a start
// says what runs (Command, Download, Allowed); every one carries the lines the process
// wrote to its stderr since the one before, made safe to print.
type StartProgress struct {
	Agent    string
	First    bool
	Command  string
	Download string        // what the start downloads, if anything
	Allowed  time.Duration // how long the start may take
	Stderr   []string
}

func (StartProgress) event() {}

// startReportKey carries, in the context of a start, whom to report its progress to.
type startReportKey struct{}

// withStartProgress is ctx carrying the conversation's report of a start's progress:
// the Agent's start, shared by every conversation that needs it, reports to the one
// that began it.
func (c *Conversation) withStartProgress(ctx context.Context) context.Context {
	return context.WithValue(ctx, startReportKey{}, func(p StartProgress) { c.post(startProgressMsg{p}) })
}

type startProgressMsg struct{ p StartProgress }

func (m startProgressMsg) handle(c *Conversation) {
	if c.st.starting {
		c.st.progress = mergeProgress(c.st.progress, m.p)
		c.emit(m.p)
	}
}

// mergeProgress is the start's progress so far for a view that comes late: what runs,
// as the first report said, and the stderr lines of the last one.
func mergeProgress(so *StartProgress, p StartProgress) *StartProgress {
	merged := p
	if so != nil && !p.First {
		merged = *so
		merged.Stderr = p.Stderr
	}
	merged.Stderr = append([]string(nil), merged.Stderr...)
	return &merged
}

// startProcess starts the agent process and initializes it, reporting the start's
// progress to the conversation in ctx (if any) once it takes more than a moment.
func (a *Agent) startProcess(ctx context.Context) (*agentproc.Server, error) {
	if a.opts.Dial != nil {
		return a.dial(ctx)
	}
	report, _ := ctx.Value(startReportKey{}).(func(StartProgress))
	allowed := a.opts.Timeout
	if a.opts.Start.Download != "" {
		allowed = a.opts.Start.DownloadTimeout
		if allowed <= 0 {
			allowed = DefaultDownloadTimeout
		}
	}
	w := newStartWatcher(StartProgress{Agent: a.opts.Name, First: true, Command: a.opts.Spec.String(), Download: a.opts.Start.Download, Allowed: allowed}, report)
	defer w.stop()
	var stderr io.Writer = w
	if a.opts.Stderr != nil {
		stderr = io.MultiWriter(a.opts.Stderr, w)
	}
	spec := a.opts.Spec
	a.mu.Lock()
	spec.Env = append(append([]string(nil), spec.Env...), a.authEnv...) // a sign-in's variables
	a.mu.Unlock()
	p, err := agentproc.Launch(ctx, spec, agentproc.LaunchOptions{
		Client:            a,
		Capabilities:      a.capabilities(),
		Logger:            a.logger,
		Stderr:            stderr,
		InitializeTimeout: allowed,
	})
	if err == nil {
		return p, nil
	}
	if a.opts.Start.Download != "" && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		err = fmt.Errorf("%w\n(the start first downloads %s: if that failed, check that its package registry can be reached)", err, a.opts.Start.Download)
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && a.opts.Start.Download == "" {
		err = fmt.Errorf("%s did not answer initialize within %v: it may be stuck, or still busy starting up (its log: %s); to wait longer, run parley again with --agent-timeout: %w",
			a.opts.Name, allowed, a.logName(), err)
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// The process did not exit, so its stderr is not in the error yet: what it said
		// last is often why it is stuck.
		if tail := w.tail(); len(tail) > 0 {
			err = fmt.Errorf("%w\nits last lines on stderr:\n%s", err, strings.Join(tail, "\n"))
		}
		if a.opts.Start.Download != "" {
			err = fmt.Errorf("%w\n(parley allows %v for a start that downloads %s; the log: %s)", err, allowed, a.opts.Start.Download, a.logName())
		}
	}
	return nil, err
}

// dial reaches the agent over AgentOptions.Dial's stream and initializes it.
func (a *Agent) dial(ctx context.Context) (*agentproc.Server, error) {
	stream, err := a.opts.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return agentproc.Connect(ctx, stream, a.opts.Name, agentproc.LaunchOptions{
		Client: a, Capabilities: a.capabilities(), Logger: a.logger, InitializeTimeout: a.opts.Timeout,
	})
}

func (a *Agent) logName() string {
	if a.opts.LogName == "" {
		return "none"
	}
	return a.opts.LogName
}

// Limits of what a start's report keeps of the process's stderr.
const (
	startTailLines = 20
	startLineBytes = 400
)

// startWatcher is the stderr of a starting agent (beside its log): it keeps the last
// lines, and once the start has taken quietStart, reports them and each one after.
type startWatcher struct {
	mu      sync.Mutex
	first   StartProgress
	report  func(StartProgress)
	loud    bool // quietStart has passed: lines are reported as they come
	stopped bool // the start is over: nothing more is kept or reported
	partial []byte
	lines   []string // the last startTailLines complete lines
	timer   *time.Timer
}

func newStartWatcher(first StartProgress, report func(StartProgress)) *startWatcher {
	w := &startWatcher{first: first, report: report}
	if report != nil {
		w.timer = time.AfterFunc(quietStart, w.speak)
	}
	return w
}

// speak reports the start once it has taken more than a moment.
func (w *startWatcher) speak() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.loud = true
	p := w.first
	p.Stderr = append([]string(nil), w.lines...)
	w.report(p) // under the lock: the lines that follow are reported after it
}

func (w *startWatcher) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return len(b), nil
	}
	data := append(w.partial, b...)
	var fresh []string
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		if line := cleanLine(data[:i]); line != "" {
			fresh = append(fresh, line)
		}
		data = data[i+1:]
	}
	if len(data) > startLineBytes { // a line without end is cut, not kept growing
		if line := cleanLine(data); line != "" {
			fresh = append(fresh, line)
		}
		data = nil
	}
	w.partial = append(w.partial[:0], data...)
	w.lines = append(w.lines, fresh...)
	if n := len(w.lines) - startTailLines; n > 0 {
		w.lines = append(w.lines[:0], w.lines[n:]...)
	}
	if w.loud && len(fresh) > 0 {
		w.report(StartProgress{Agent: w.first.Agent, Stderr: fresh})
	}
	return len(b), nil
}

// cleanLine is a line of stderr fit to show: without its \r, its control characters made
// visible, at most startLineBytes long.
func cleanLine(b []byte) string {
	s := strings.TrimRight(string(b), "\r")
	if i := strings.LastIndexByte(s, '\r'); i >= 0 {
		s = s[i+1:] // a progress bar redrawn in place: its last state
	}
	s = strings.TrimSpace(s)
	if len(s) > startLineBytes {
		s = strings.ToValidUTF8(s[:startLineBytes], "") + "…"
	}
	return toolui.SafeText(s)
}

func (w *startWatcher) tail() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := append([]string(nil), w.lines...)
	if line := cleanLine(w.partial); line != "" {
		lines = append(lines, line)
	}
	return lines
}

// stop ends the reporting: the start is over.
func (w *startWatcher) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}
