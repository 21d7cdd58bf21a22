//go:build unix

package cli

import (
	"io"
	"os"
	"syscall"
)

// interruptibleStdin makes a pipe or socket on stdin readable through Go's poller, so that
// closing it ends a read in progress: on a signal, parley stops without waiting for the
// client to close its end. A terminal is left as it is (its mode is shared with the shell).
func interruptibleStdin(in io.ReadCloser) io.ReadCloser {
	f, ok := in.(*os.File)
	if !ok {
		return in
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return in
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return in
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return in
	}
	return os.NewFile(uintptr(fd), f.Name())
}
