package linechat

import "golang.org/x/sys/unix"

const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
	fionread   = 0x4004667f // _IOR('f', 127, int), which x/sys/unix does not name for darwin
	fread      = 0x1        // TIOCFLUSH's "the input queue"
)

func wakePipe() ([2]int, error) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return p, err
	}
	for _, fd := range p {
		unix.CloseOnExec(fd)
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			return p, err
		}
	}
	return p, nil
}

// queuedInput counts the bytes typed and not read yet (in canonical mode, of whole lines).
func queuedInput(fd int) (int, error) { return unix.IoctlGetInt(fd, fionread) }

// flushInput discards them (tcflush TCIFLUSH).
func flushInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) }

// readable reports whether fd, and wake unless it is -1, can be read (a hang-up counts:
// the read says so); it waits for one of them when block is set, else only looks. select,
// not poll: macOS's poll does not wait on terminals.
func readable(fd, wake int, block bool) (ready, woken bool, err error) {
	var r unix.FdSet
	r.Set(fd)
	n := fd
	if wake >= 0 {
		r.Set(wake)
		n = max(n, wake)
	}
	var timeout *unix.Timeval
	if !block {
		timeout = &unix.Timeval{}
	}
	if _, err := unix.Select(n+1, &r, nil, nil, timeout); err != nil {
		return false, false, err
	}
	return r.IsSet(fd), wake >= 0 && r.IsSet(wake), nil
}
