//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// tree needs nothing on Unix: the process group's id is the process's.
type tree struct{}

// prepare has cmd start in a session (and process group) of its own.
func prepare(cmd *exec.Cmd) error {
	inOwnSession(cmd)
	return nil
}

// inOwnSession makes cmd start in a session of its own, without a controlling terminal:
// it cannot open /dev/tty, push input into the user's terminal (TIOCSTI) or write escape
// sequences to it.
func inOwnSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// setsid(2) in the child: a new session and group, both with the child's id, and no
	// controlling terminal. (Setpgid would fail after it: a session leader cannot move.)
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Foreground = false, false, false
}

// adopt has nothing to do: the group exists from the start.
func (p *Process) adopt() error { return nil }

// release has nothing to give back.
func (p *Process) release() {}

// Signal sends sig to the process's group, if the process has not been reaped yet.
func (p *Process) Signal(sig syscall.Signal) {
	select {
	case <-p.exited:
	default:
		syscall.Kill(-p.pgid, sig)
	}
}

// interrupt asks the group to end (SIGTERM); Stop then gives it its grace.
func (p *Process) interrupt() bool {
	syscall.Kill(-p.pgid, syscall.SIGTERM)
	return true
}

// kill ends the group at once (SIGKILL).
func (p *Process) kill() { syscall.Kill(-p.pgid, syscall.SIGKILL) }

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
