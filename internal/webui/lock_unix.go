//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package webui

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive lock on the file at path (made if missing), held until
// unlock. The kernel lets go of it when the process ends, so a crash leaves no stale lock.
// The wait is for another parley's read, change and write of a small file: milliseconds.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
