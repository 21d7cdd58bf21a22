package webui

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive lock on the file at path (made if missing), held until
// unlock. Windows lets go of it when the process ends, so a crash leaves no stale lock.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	var ol windows.Overlapped
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		windows.UnlockFileEx(h, 0, 1, 0, &ol)
		f.Close()
	}, nil
}
