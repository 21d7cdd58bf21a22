//go:build unix

package acp

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

func stdio() io.ReadWriteCloser {
	in, restore := pollableStdin()
	return &stdioStream{in: in, out: os.Stdout, restore: restore}
}

// pollableStdin returns a non-blocking duplicate of stdin when stdin is a pipe or a
// socket, so that closing it ends a read in progress (the runtime's poller serves
// non-blocking descriptors; a blocking read of fd 0 cannot be interrupted), and a
// function that puts stdin back in blocking mode once the duplicate is closed. A
// terminal or a file is left alone: other processes may share it.
func pollableStdin() (io.ReadCloser, func()) {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		return os.Stdin, nil
	}
	if kind := st.Mode & unix.S_IFMT; kind != unix.S_IFIFO && kind != unix.S_IFSOCK {
		return os.Stdin, nil
	}
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 0) // not inherited by what the agent runs
	if err != nil {
		return os.Stdin, nil
	}
	if err := unix.SetNonblock(fd, true); err != nil { // the flag is the pipe's: fd 0 shares it
		unix.Close(fd)
		return os.Stdin, nil
	}
	return os.NewFile(uintptr(fd), "/dev/stdin"), func() { unix.SetNonblock(0, false) }
}
