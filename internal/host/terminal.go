package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/proc"
	"github.com/parley-acp/parley/internal/workspace"
)

// Limits on what an agent's terminals may hold, whatever it asks: the output kept when it
// gives no outputByteLimit, the most kept when it asks for more, and how many terminals a
// session may have that it has not released. Together they bound a session's terminals to
// 64 MiB of output, and the terminal/output answer to what fits a protocol line.
const (
	DefaultOutputLimit = 1 << 20
	MaxOutputLimit     = 4 << 20
	MaxTerminals       = 16
)

// pipeGrace is how long a command's output is still read after it exited, for background
// processes it left holding the pipe; then the pipe is closed and the exit reported.
const pipeGrace = time.Second

// Terminals serves terminal/*: each terminal runs one command (directly, no shell) in a
// session of its own, without a controlling terminal (it cannot reach the user's), in a
// directory inside the session's roots, and keeps the tail of its combined stdout and
// stderr; its stdin is /dev/null.
//
// Every terminal has two goroutines at most (one waits for the command, one enforces
// MaxRunTime); Close ends every command and waits for them.
type Terminals struct {
	// MaxRunTime kills a command that runs longer (0: no limit).
	MaxRunTime time.Duration
	// KillGrace is how long a command has to exit after SIGTERM before SIGKILL (default 2 s).
	KillGrace time.Duration

	rootsFor func(acp.SessionID) (*workspace.Roots, error)
	wg       sync.WaitGroup // the terminals' goroutines

	mu     sync.Mutex
	terms  map[acp.TerminalID]*terminal
	lastID uint64
	closed bool
}

var _ acp.Terminals = (*Terminals)(nil)

// NewTerminals serves terminals for the sessions rootsFor knows; for any other it returns an
// error (answered -32002 unless it already is a *jsonrpc2.Error).
func NewTerminals(rootsFor func(acp.SessionID) (*workspace.Roots, error)) *Terminals {
	return &Terminals{rootsFor: rootsFor, terms: map[acp.TerminalID]*terminal{}}
}

type terminal struct {
	session acp.SessionID
	proc    *proc.Process
	out     *proc.Output
	done    chan struct{}           // closed once the command has exited and its output is read
	status  *acp.TerminalExitStatus // set before done is closed
}

// CreateTerminal starts the command and answers at once with the terminal's id.
func (t *Terminals) CreateTerminal(ctx context.Context, req *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error) {
	roots, err := sessionRoots(t.rootsFor, req.SessionID)
	if err != nil {
		return nil, err
	}
	if req.Command == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "terminal/create needs a command")
	}
	cwd := req.Cwd
	if cwd == "" {
		cwd = roots.Dirs()[0]
	}
	// The directory is opened, and the command started in the open directory: a symlink
	// swapped in after the check cannot move it outside.
	dir, err := roots.Cwd(cwd)
	if err != nil {
		return nil, pathError(err)
	}
	defer dir.Close() // once the command has started
	env := os.Environ()
	for _, v := range req.Env {
		if v.Name == "" || strings.ContainsAny(v.Name, "=\x00") || strings.ContainsRune(v.Value, 0) {
			return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "invalid environment variable %q", v.Name)
		}
		env = append(env, v.Name+"="+v.Value) // later entries win
	}
	env = append(env, "PWD="+dir.Path())
	limit := uint64(DefaultOutputLimit)
	if req.OutputByteLimit != nil {
		limit = min(*req.OutputByteLimit, MaxOutputLimit)
	}

	out := proc.NewOutput(0, int(limit))
	cmd := exec.Command(req.Command, req.Args...)
	cmd.Dir, cmd.Env = dir.ChdirPath(), env
	cmd.Stdout, cmd.Stderr = out, out // the same writer: one pipe, interleaved as written
	cmd.WaitDelay = pipeGrace

	// Starting under the lock keeps Close from missing a terminal (or its goroutines).
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errors.New("the terminals are closed: parley is shutting down")
	}
	if n := t.countLocked(req.SessionID); n >= MaxTerminals {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "session %s already has %d terminals, the most parley keeps; release those you are done with (terminal/release) before creating more", req.SessionID, n)
	}
	p, err := proc.Start(cmd)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "cannot run %q: command not found", req.Command)
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "cannot run %q: %v", req.Command, err)
	}
	term := &terminal{session: req.SessionID, proc: p, out: out, done: make(chan struct{})}
	t.lastID++
	id := acp.TerminalID("term-" + strconv.FormatUint(t.lastID, 10))
	t.terms[id] = term
	t.wg.Go(term.wait)
	if max := t.MaxRunTime; max > 0 {
		grace := t.killGrace()
		t.wg.Go(func() {
			timer := time.NewTimer(max)
			defer timer.Stop()
			select {
			case <-term.done:
			case <-timer.C:
				fmt.Fprintf(term.out, "\n[parley: stopped after running longer than %v]\n", max)
				term.stop(context.Background(), grace)
			}
		})
	}
	return &acp.CreateTerminalResponse{TerminalID: id}, nil
}

// TerminalOutput returns the output kept so far and, once the command has exited, how.
func (t *Terminals) TerminalOutput(ctx context.Context, req *acp.TerminalOutputRequest) (*acp.TerminalOutputResponse, error) {
	term, err := t.lookup(req.SessionID, req.TerminalID)
	if err != nil {
		return nil, err
	}
	var status *acp.TerminalExitStatus
	select {
	case <-term.done: // the output is complete
		status = term.status
	default:
	}
	_, output, dropped := term.out.Snapshot(status != nil)
	return &acp.TerminalOutputResponse{Output: strings.ToValidUTF8(string(output), "\uFFFD"), Truncated: dropped > 0, ExitStatus: status}, nil
}

// WaitForTerminalExit waits for the command to exit, or for ctx (the request cancelled).
func (t *Terminals) WaitForTerminalExit(ctx context.Context, req *acp.WaitForTerminalExitRequest) (*acp.WaitForTerminalExitResponse, error) {
	term, err := t.lookup(req.SessionID, req.TerminalID)
	if err != nil {
		return nil, err
	}
	select {
	case <-term.done:
		return &acp.WaitForTerminalExitResponse{ExitCode: term.status.ExitCode, Signal: term.status.Signal}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// KillTerminal stops the command (its whole process group) and waits for it to end; the
// terminal stays, with its output and exit status, until released.
func (t *Terminals) KillTerminal(ctx context.Context, req *acp.KillTerminalRequest) (*acp.KillTerminalResponse, error) {
	term, err := t.lookup(req.SessionID, req.TerminalID)
	if err != nil {
		return nil, err
	}
	if err := term.stop(ctx, t.killGrace()); err != nil {
		return nil, err
	}
	return &acp.KillTerminalResponse{}, nil
}

// ReleaseTerminal forgets the terminal, killing its command if it still runs.
func (t *Terminals) ReleaseTerminal(ctx context.Context, req *acp.ReleaseTerminalRequest) (*acp.ReleaseTerminalResponse, error) {
	t.mu.Lock()
	term, err := t.lookupLocked(req.SessionID, req.TerminalID)
	if err == nil {
		delete(t.terms, req.TerminalID)
	}
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := term.stop(ctx, t.killGrace()); err != nil {
		return nil, err
	}
	return &acp.ReleaseTerminalResponse{}, nil
}

// Close kills every command (SIGTERM, then SIGKILL after KillGrace), the processes they
// left in their groups, and waits for all of it. Later terminal/create requests fail.
func (t *Terminals) Close() error {
	t.mu.Lock()
	t.closed = true
	terms := t.terms
	t.terms = map[acp.TerminalID]*terminal{}
	t.mu.Unlock()
	var stopping sync.WaitGroup
	for _, term := range terms {
		stopping.Go(func() { term.stop(context.Background(), t.killGrace()) })
	}
	stopping.Wait()
	t.wg.Wait()
	return nil
}

func (t *Terminals) killGrace() time.Duration {
	if t.KillGrace > 0 {
		return t.KillGrace
	}
	return 2 * time.Second
}

// countLocked counts the session's terminals not released yet.
func (t *Terminals) countLocked(session acp.SessionID) int {
	n := 0
	for _, term := range t.terms {
		if term.session == session {
			n++
		}
	}
	return n
}

func (t *Terminals) lookup(session acp.SessionID, id acp.TerminalID) (*terminal, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lookupLocked(session, id)
}

// lookupLocked finds a terminal of the session; another session's is not found either.
func (t *Terminals) lookupLocked(session acp.SessionID, id acp.TerminalID) (*terminal, error) {
	term := t.terms[id]
	if term == nil || term.session != session {
		return nil, jsonrpc2.Errorf(acp.CodeResourceNotFound, "unknown terminal %q (released, or never created in session %q)", id, session)
	}
	return term, nil
}

// wait records how the command ended.
func (term *terminal) wait() {
	<-term.proc.Exited()
	term.status = exitStatus(term.proc.State())
	close(term.done)
}

// stop ends the command and what it left running (see proc.Process.Stop): SIGTERM, then
// SIGKILL when grace has passed or ctx ended.
func (term *terminal) stop(ctx context.Context, grace time.Duration) error {
	err := term.proc.Stop(ctx, grace)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func exitStatus(ps *os.ProcessState) *acp.TerminalExitStatus {
	if ps == nil { // not reaped by us (cannot happen unless SIGCHLD is ignored)
		return &acp.TerminalExitStatus{}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &acp.TerminalExitStatus{Signal: signalName(ws.Signal())}
	}
	code := uint32(ps.ExitCode())
	return &acp.TerminalExitStatus{ExitCode: &code}
}

// signalName is the conventional name ("SIGKILL"); Signal.String gives "killed".
func signalName(s syscall.Signal) string {
	if name, ok := signalNames[s]; ok {
		return name
	}
	return "SIG" + strconv.Itoa(int(s))
}
