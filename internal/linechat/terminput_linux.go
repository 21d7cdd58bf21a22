package linechat

import "golang.org/x/sys/unix"

const (
	getTermios = unix.TCGETS
	setTermios = unix.TCSETS
)

func wakePipe() ([2]int, error) {
	var p [2]int
	err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK)
	return p, err
}

// queuedInput counts the bytes typed and not read yet (in canonical mode, of whole lines).
func queuedInput(fd int) (int, error) { return unix.IoctlGetInt(fd, unix.TIOCINQ) }

// flushInput discards them (tcflush TCIFLUSH).
func flushInput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }

// readable reports whether fd, and wake unless it is -1, can be read (a hang-up counts:
// the read says so); it waits for one of them when block is set, else only looks.
func readable(fd, wake int, block bool) (ready, woken bool, err error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if wake >= 0 {
		fds = append(fds, unix.PollFd{Fd: int32(wake), Events: unix.POLLIN})
	}
	timeout := 0
	if block {
		timeout = -1
	}
	if _, err := unix.Poll(fds, timeout); err != nil {
		return false, false, err
	}
	if fds[0].Revents&unix.POLLNVAL != 0 {
		return false, false, unix.EBADF
	}
	return fds[0].Revents != 0, wake >= 0 && fds[1].Revents != 0, nil
}
