package cli

// The system calls behind reading a terminal (see prompter.go): Linux's, through
// golang.org/x/sys/unix. A port to another system gives the same four operations
// (macOS flushes with TIOCFLUSH and counts with FIONREAD).

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// terminalInput reads a terminal that parley does not own (its stdin): it never closes it.
type terminalInput struct {
	fd int

	mu    sync.Mutex
	wakeR int // a pipe: wait returns false once wakeW is closed
	wakeW int // -1 once closed
}

func openTerminalInput(f *os.File) (*terminalInput, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return nil, err
	}
	return &terminalInput{fd: int(f.Fd()), wakeR: p[0], wakeW: p[1]}, nil
}

// wait blocks until the terminal has something to read (or has hung up); false once
// wake was called or the terminal cannot be waited on.
func (t *terminalInput) wait() bool {
	fds := []unix.PollFd{{Fd: int32(t.fd), Events: unix.POLLIN}, {Fd: int32(t.wakeR), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || fds[1].Revents != 0 || fds[0].Revents&unix.POLLNVAL != 0 {
			return false
		}
		if fds[0].Revents != 0 {
			return true
		}
	}
}

// readReady reads what the terminal has ready now, without blocking (in canonical mode,
// one line); end is true at the end of the input (Ctrl-D on an empty line, a hang-up).
func (t *terminalInput) readReady(buf []byte) (n int, end bool) {
	fds := []unix.PollFd{{Fd: int32(t.fd), Events: unix.POLLIN}}
	if ready, err := unix.Poll(fds, 0); err != nil || ready == 0 {
		return 0, false // nothing now (a discard emptied the queue): wait again
	}
	n, err := unix.Read(t.fd, buf)
	switch {
	case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
		return 0, false
	case err != nil:
		return 0, true // EIO: the terminal is gone
	}
	return n, n == 0
}

// discardQueued empties the terminal's input queue (tcflush TCIFLUSH): what was typed and
// not read yet, a line being typed included. It says whether a whole line was waiting.
func (t *terminalInput) discardQueued() bool {
	n, err := unix.IoctlGetInt(t.fd, unix.TIOCINQ)
	unix.IoctlSetInt(t.fd, unix.TCFLSH, unix.TCIFLUSH)
	return err == nil && n > 0
}

// wake makes wait return false, now and from now on.
func (t *terminalInput) wake() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.wakeW >= 0 {
		unix.Close(t.wakeW)
		t.wakeW = -1
	}
}

// close releases the wake pipe; called by the reader once it no longer waits.
func (t *terminalInput) close() {
	t.wake()
	unix.Close(t.wakeR)
}
