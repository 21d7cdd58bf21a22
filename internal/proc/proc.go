// Package proc supervises the processes parley starts: agents, the terminals an agent asks
// for, and the commands parley's own agent runs. Each process and everything it starts is
// one tree that ends with it, whatever the platform, and none of them gets the user's
// terminal: Start refuses one as stdin, stdout, stderr or extra file.
//
//   - On Unix (proc_unix.go) each starts in a session of its own, so without a controlling
//     terminal: it cannot open /dev/tty, push input into the user's terminal (TIOCSTI) or
//     write escape sequences to it. The session's id is the process's, which is also its
//     group's; a marker in its environment is inherited by its descendants. Stopping one
//     sends SIGTERM to its group, SIGKILL after a grace, and then ends whatever it left
//     behind: what is still in its group, and, where parley can find them, what is still
//     in its session (background jobs that moved to a group of their own: Linux, through
//     /proc) and the descendants that started a session of their own (setsid, daemons) but
//     still carry its marker (through /proc on Linux, sysctl on macOS: marked_*.go).
//   - On Windows (proc_windows.go) each starts in a new console process group, suspended,
//     and is put in a Job Object of its own before it runs a single instruction, so every
//     process it ever starts is in the job too. Stopping one sends CTRL_BREAK_EVENT to its
//     group, then terminates the whole job after the grace; the job is also set to end
//     with its last handle, so the tree goes even when parley itself dies. A batch file
//     (npx.cmd, npm.cmd) starts through cmd.exe with a command line it reads as meant
//     (batch.go).
//
// KillAll ends every process not stopped yet, for an exit that cannot wait (a second
// Ctrl-C).
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
	"time"

	"golang.org/x/term"
)

// MarkerVar is the environment variable that carries, separated by colons, the markers of
// every supervised process a process descends from.
const MarkerVar = "PARLEY_PROC"

// killWait bounds the wait for a process to exit after it was killed (it may be stuck in
// the kernel, on a dead network file system say).
const killWait = 5 * time.Second

// Process is a command started in its own session and process group (on Windows, its own
// console group and job).
type Process struct {
	cmd    *exec.Cmd
	pgid   int // the process's id, which is its group's too
	marker string
	tree   tree // what the platform needs to end the whole tree (proc_windows.go: the job)

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

// Start starts cmd in a new session without a controlling terminal (on Windows, a new
// console group and job), with a new marker added to its environment (cmd.Env, or this
// process's environment when nil). The caller keeps setting everything else of cmd (Dir,
// stdio, WaitDelay) but SysProcAttr's session and group settings; its stdio and extra
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
	if err := prepare(cmd); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.pgid = cmd.Process.Pid
	if err := p.adopt(); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		p.release()
		return nil, err
	}
	live.Store(p, struct{}{})
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
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

// Pid is the process's id (and its group's).
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

// Stop ends the process: SIGTERM to its group (CTRL_BREAK_EVENT on Windows), SIGKILL
// (terminating its job) once grace has passed or ctx has ended, then it ends what the
// process left (see the package comment). It returns once all of that is done, or an
// error when the process did not exit even after it was killed. A process that exited on
// its own is only cleaned up after. Stop may be called more than once, and concurrently;
// every call waits for the first.
func (p *Process) Stop(ctx context.Context, grace time.Duration) error {
	var err error
	first := false
	p.stopOnce.Do(func() {
		first = true
		err = p.stop(ctx, grace)
		live.Delete(p)
		p.release()
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
	if p.interrupt() && grace > 0 {
		timer := time.NewTimer(grace)
		select {
		case <-p.exited:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	p.kill()
	timer := time.NewTimer(killWait)
	defer timer.Stop()
	select {
	case <-p.exited:
		return nil
	case <-timer.C:
		return fmt.Errorf("process %d did not exit %v after it was killed", p.pgid, killWait)
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

// isTerminal reports whether f is a terminal (a tty, a pty, a console), whatever its name.
func isTerminal(f *os.File) bool {
	raw, err := f.SyscallConn() // not Fd, which would put the file into blocking mode
	if err != nil {
		return false
	}
	var is bool
	if err := raw.Control(func(fd uintptr) { is = term.IsTerminal(int(fd)) }); err != nil {
		return false
	}
	return is
}

// KillAll kills every process started here and not stopped yet, and what they left,
// without waiting for anything: for an exit that cannot wait.
func KillAll() {
	live.Range(func(key, _ any) bool {
		key.(*Process).killLeftovers()
		return true
	})
}
