// Package agentproc runs one agent server: the process (Start: its stdin and stdout become
// the protocol stream, its stderr goes to a log, never into the stream, and the last of it
// is kept for error messages; stopping it ends its whole process tree, through
// internal/proc) and the ACP connection to it (Launch: initialized, every failure
// explained). Every front-end that spawns an agent goes through it, by way of
// internal/conversation. Connect is Launch for an agent reached over a stream already
// open (a parley server elsewhere, internal/remote): no process, the same initialize.
package agentproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/proc"
	"github.com/parley-acp/parley/internal/sandbox"
)

// Spec says how to start an agent.
type Spec struct {
	Command string
	Args    []string
	Env     []string // added to (and overriding) the environment
	Dir     string
	// Stderr receives the agent's stderr as it comes (a log file); nil discards it. The
	// last lines are kept either way for error messages.
	Stderr io.Writer
	// ExitGrace, when positive, caps how long Stop waits for the agent to exit on its own
	// after its stdin closed. A front-end that has nothing more to ask of the agent (parley
	// run after its turn) sets it short, since some agents ignore the end of their input
	// and only a signal ends them.
	ExitGrace time.Duration
	// Sandbox, when set, confines the agent and everything it starts (see
	// internal/sandbox): it is started through `parley sandbox-exec`, with a TMPDIR of its
	// own that is removed when it stops.
	Sandbox *sandbox.AgentSpec
}

// String is the command line, for messages.
func (s Spec) String() string {
	return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
}

// Process is a running agent.
type Process struct {
	spec   Spec
	proc   *proc.Process
	stdin  io.WriteCloser
	stdout io.ReadCloser
	tail   *proc.Output
	tmp    string // the confined agent's TMPDIR, removed once it stopped
}

// stderrTail is how much of the agent's stderr is kept for error messages.
const stderrTail = 4 << 10

// Start starts the agent in a session of its own (see proc.Start): no controlling terminal.
func Start(spec Spec) (*Process, error) {
	p := &Process{spec: spec, tail: proc.NewOutput(0, stderrTail)}
	command, args, env := spec.Command, spec.Args, spec.Env
	if spec.Sandbox != nil {
		// sandbox-exec finds the command itself; a missing one is said as without it.
		look := command
		if strings.ContainsRune(look, os.PathSeparator) && !filepath.IsAbs(look) && spec.Dir != "" {
			look = filepath.Join(spec.Dir, look)
		}
		if _, err := exec.LookPath(look); err != nil {
			return nil, fmt.Errorf("cannot start agent %q: command not found (is it installed and on PATH?)", spec.Command)
		}
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("starting %s confined: cannot find parley's own binary (%v); start it with --sandbox off", spec, err)
		}
		if p.tmp, err = os.MkdirTemp("", "parley-agent-"); err != nil {
			return nil, fmt.Errorf("starting %s confined: its temporary directory: %w", spec, err)
		}
		command, args = spec.Sandbox.Wrap(exe, p.tmp, command, args)
		env = append(slices.Clone(env), spec.Sandbox.Env...)
	}
	cmd := exec.Command(command, args...)
	cmd.Dir = spec.Dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	// A child of the agent that keeps stderr open must not keep us from seeing the
	// agent's own exit.
	cmd.WaitDelay = time.Second
	var stderr io.Writer = p.tail
	if spec.Stderr != nil {
		stderr = io.MultiWriter(p.tail, spec.Stderr)
	}
	cmd.Stderr = stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		p.removeTmp()
		return nil, fmt.Errorf("starting %s: %w", spec, err)
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		p.removeTmp()
		return nil, fmt.Errorf("starting %s: %w", spec, err)
	}
	if p.proc, err = proc.Start(cmd); err != nil {
		p.removeTmp()
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cannot start agent %q: command not found (is it installed and on PATH?)", spec.Command)
		}
		return nil, fmt.Errorf("starting %s: %w", spec, err)
	}
	return p, nil
}

// Stream is the protocol stream: writes go to the agent's stdin, reads come from its
// stdout. Closing it closes both pipes (the agent sees end of input).
func (p *Process) Stream() io.ReadWriteCloser { return stream{p} }

type stream struct{ p *Process }

func (s stream) Read(b []byte) (int, error)  { return s.p.stdout.Read(b) }
func (s stream) Write(b []byte) (int, error) { return s.p.stdin.Write(b) }
func (s stream) Close() error {
	err := s.p.stdin.Close()
	s.p.stdout.Close()
	return err
}

// Exited is closed when the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.proc.Exited() }

// ExitError describes how the process ended, with the end of its stderr; nil while it
// runs or when it exited with status 0.
func (p *Process) ExitError() error {
	err := p.proc.Err() // nil while it runs
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf("agent %q %v", p.spec.Command, err)
	tail := p.StderrTail()
	if tail != "" {
		msg += "; its last output on stderr:\n" + tail
	}
	if p.spec.Sandbox != nil {
		if hint := refusedWriteHint(tail, p.spec.Sandbox); hint != "" {
			msg += "\n" + hint
		}
	}
	return errors.New(msg)
}

// StderrTail returns the last lines the agent wrote to stderr.
func (p *Process) StderrTail() string {
	_, tail, dropped := p.tail.Snapshot(true)
	if dropped > 0 { // start at a whole line
		if i := bytes.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:]
		}
	}
	return strings.TrimSpace(string(tail))
}

// Stop ends the agent: it closes its stdin, waits up to grace (or the Spec's shorter
// ExitGrace) for it to exit, then stops its process group (SIGTERM, SIGKILL after two
// seconds) and ends what it left running.
func (p *Process) Stop(grace time.Duration) error {
	if p.spec.ExitGrace > 0 {
		grace = min(grace, p.spec.ExitGrace)
	}
	p.stdin.Close()
	timer := time.NewTimer(grace)
	select {
	case <-p.proc.Exited():
	case <-timer.C:
	}
	timer.Stop()
	err := p.proc.Stop(context.Background(), 2*time.Second)
	p.removeTmp()
	return err
}

// removeTmp removes the confined agent's TMPDIR (its processes are gone).
func (p *Process) removeTmp() {
	if p.tmp != "" {
		os.RemoveAll(p.tmp)
	}
}

// WaitExited waits for the process to end or ctx to be done.
func (p *Process) WaitExited(ctx context.Context) error {
	select {
	case <-p.proc.Exited():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
