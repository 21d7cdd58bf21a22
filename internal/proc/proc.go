// Package proc supervises the processes parley starts: agents, the terminals an agent asks
// for, and the commands parley's own agent runs. Each starts in a session of its own, so
// without a controlling terminal: it cannot open /dev/tty, push input into the user's
// terminal (TIOCSTI) or write escape sequences to it, and its stdin, stdout and stderr are
// never a terminal (Start refuses one). The session's id is the process's id, which is also
// its process group's. A marker in its environment is inherited by its descendants.
//
// Stopping one sends SIGTERM to its group, SIGKILL after a grace, and then ends whatever it
// left behind: what is still in its group, and, where the system lets parley find them
// (Linux, through /proc), what is still in its session (background jobs that moved to a
// group of their own) and the descendants that started a session of their own (setsid,
// daemons) but still carry its marker. KillAll ends every process not stopped yet, for an
// exit that cannot wait (a second Ctrl-C).
//
// Output keeps a bounded head and tail of what a process writes.
package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// MarkerVar is the environment variable that carries, separated by colons, the markers of
// every supervised process a process descends from.
const MarkerVar = "PARLEY_PROC"

// killWait bounds the wait for a process to exit after SIGKILL (it may be stuck in the
// kernel, on a dead network file system say).
const killWait = 5 * time.Second

// Process is a command started in its own session (and process group).
type Process struct {
	cmd    *exec.Cmd
	pgid   int
	marker string

	exited  chan struct{}
	waitErr error // set before exited is closed

	stopOnce sync.Once
	stopped  chan struct{} // closed when Stop has ended what was left
}

var (
	live    sync.Map // *Process → struct{}: started, not stopped yet
	counter atomic.Uint64

	// Go opens every file close-on-exec, but what parley inherited open (a terminal on
	// fd 3 from the shell, say) would pass to every process it starts.
	inheritedTerminals sync.Once
)

// Start starts cmd in a new session without a controlling terminal, with a new marker
// added to its environment (cmd.Env, or this process's environment when nil). The caller
// keeps setting everything else of cmd (Dir, stdio, WaitDelay), but its stdio and extra
// files must not be a terminal. Wait is called here: watch Exited instead.
func Start(cmd *exec.Cmd) (*Process, error) {
	if err := refuseTerminals(cmd); err != nil {
		return nil, err
	}
	inheritedTerminals.Do(closeInheritedTerminalsOnExec)
	p := &Process{
		cmd:     cmd,
		marker:  strconv.Itoa(os.Getpid()) + "." + strconv.FormatUint(counter.Add(1), 10),
		exited:  make(chan struct{}),
		stopped: make(chan struct{}),
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = withMarker(env, p.marker)
	InOwnSession(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.pgid = cmd.Process.Pid
	live.Store(p, struct{}{})
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// InOwnSession makes cmd start in a session of its own, without a controlling terminal
// (setsid: Unix; a Windows port gives its own). Start does it, and so must whatever
// starts a process itself (the MCP SDK starts the servers it talks to).
func InOwnSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// setsid(2) in the child: a new session and group, both with the child's id, and no
	// controlling terminal. (Setpgid would fail after it: a session leader cannot move.)
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Foreground = false, false, false
}

// withMarker appends marker to the markers env already carries (the last setting wins).
func withMarker(env []string, marker string) []string {
	value := marker
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, MarkerVar+"="); ok && v != "" {
			value = v + ":" + marker
		}
	}
	return append(env, MarkerVar+"="+value)
}

// Pid is the process's id (and its group's and session's).
func (p *Process) Pid() int { return p.pgid }

// Exited is closed once the process has exited and been reaped (and, per exec.Cmd, its
// output copied or WaitDelay passed).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is what exec.Cmd.Wait returned; nil before Exited is closed.
func (p *Process) Err() error {
	select {
	case <-p.exited:
		return p.waitErr
	default:
		return nil
	}
}

// State is how the process ended; nil before Exited is closed.
func (p *Process) State() *os.ProcessState {
	select {
	case <-p.exited:
		return p.cmd.ProcessState
	default:
		return nil
	}
}

// Signal sends sig to the process's group, if the process has not been reaped yet.
func (p *Process) Signal(sig syscall.Signal) {
	select {
	case <-p.exited:
	default:
		syscall.Kill(-p.pgid, sig)
	}
}

// Stop ends the process: SIGTERM to its group, SIGKILL once grace has passed or ctx has
// ended, then it ends what the process left (see the package comment). It returns once
// all of that is done, or an error when the process did not exit even after SIGKILL. A
// process that exited on its own is only cleaned up after. Stop may be called more than
// once, and concurrently; every call waits for the first.
func (p *Process) Stop(ctx context.Context, grace time.Duration) error {
	var err error
	first := false
	p.stopOnce.Do(func() {
		first = true
		err = p.stop(ctx, grace)
		live.Delete(p)
		close(p.stopped)
	})
	if !first {
		select {
		case <-p.stopped:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}

func (p *Process) stop(ctx context.Context, grace time.Duration) error {
	defer p.killLeftovers()
	select {
	case <-p.exited:
		return nil
	default:
	}
	syscall.Kill(-p.pgid, syscall.SIGTERM)
	if grace > 0 {
		timer := time.NewTimer(grace)
		select {
		case <-p.exited:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	syscall.Kill(-p.pgid, syscall.SIGKILL)
	timer := time.NewTimer(killWait)
	defer timer.Stop()
	select {
	case <-p.exited:
		return nil
	case <-timer.C:
		return fmt.Errorf("process %d did not exit %v after SIGKILL", p.pgid, killWait)
	}
}

// killLeftovers ends what the process left running: its group, then (where they can be
// found) the processes still in its session or carrying its marker, until none is left.
func (p *Process) killLeftovers() {
	session := p.pgid
	select {
	case <-p.exited:
		// Background processes it left still hold its group and session id, and while any
		// of them lives the id cannot be given to a new process. So if a process with the
		// leader's pid exists now, it is a new one and the group and session are gone:
		// leave them alone.
		if syscall.Kill(p.pgid, 0) == syscall.ESRCH {
			syscall.Kill(-p.pgid, syscall.SIGKILL)
		} else {
			session = 0
		}
	default:
		syscall.Kill(-p.pgid, syscall.SIGKILL) // it has not been reaped: the id is still ours
	}
	for range 10 { // each round kills what the previous one let fork
		pids := leftovers(p.marker, session)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// refuseTerminals fails when cmd would hand a terminal to the process: whatever it could
// write there, the user would see unfiltered, and whatever it could read, the user typed
// for parley.
func refuseTerminals(cmd *exec.Cmd) error {
	files := []any{cmd.Stdin, cmd.Stdout, cmd.Stderr}
	for _, f := range cmd.ExtraFiles {
		files = append(files, f)
	}
	for _, f := range files {
		if f, ok := f.(*os.File); ok && f != nil && isTerminal(f) {
			return fmt.Errorf("starting %s: refusing to give it the terminal %s: a command parley starts gets pipes, files or /dev/null", cmd.Path, f.Name())
		}
	}
	return nil
}

// KillAll sends SIGKILL to every process started here and not stopped yet, and to what
// they left, without waiting for anything: for an exit that cannot wait.
func KillAll() {
	live.Range(func(key, _ any) bool {
		key.(*Process).killLeftovers()
		return true
	})
}
