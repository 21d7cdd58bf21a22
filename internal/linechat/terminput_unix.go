//go:build linux || darwin

package linechat

// The system calls behind reading a terminal (see prompter.go), through
// golang.org/x/sys/unix; what differs between Linux and macOS (the wake pipe, counting and
// flushing the input queue, the termios requests) is in terminput_linux.go and
// terminput_darwin.go.

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
	p, err := wakePipe()
	if err != nil {
		return nil, err
	}
	return &terminalInput{fd: int(f.Fd()), wakeR: p[0], wakeW: p[1]}, nil
}

// wait blocks until the terminal has something to read (or has hung up); false once
// wake was called or the terminal cannot be waited on.
func (t *terminalInput) wait() bool {
	for {
		ready, woken, err := readable(t.fd, t.wakeR, true)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || woken {
			return false
		}
		if ready {
			return true
		}
	}
}

// readReady reads what the terminal has ready now, without blocking (in canonical mode,
// one line); end is true at the end of the input (Ctrl-D on an empty line, a hang-up).
func (t *terminalInput) readReady(buf []byte) (n int, end bool) {
	if ready, _, err := readable(t.fd, -1, false); err != nil || !ready {
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
	n, err := queuedInput(t.fd)
	flushInput(t.fd)
	return err == nil && n > 0
}

// setEcho turns the terminal's echo of what is typed on or off (line editing stays): a
// secret is typed without being shown.
func (t *terminalInput) setEcho(on bool) error {
	tio, err := unix.IoctlGetTermios(t.fd, getTermios)
	if err != nil {
		return err
	}
	if on {
		tio.Lflag |= unix.ECHO
	} else {
		tio.Lflag &^= unix.ECHO
	}
	return unix.IoctlSetTermios(t.fd, setTermios, tio)
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
func (t *terminalInput) Close() {
	t.wake()
	unix.Close(t.wakeR)
}
