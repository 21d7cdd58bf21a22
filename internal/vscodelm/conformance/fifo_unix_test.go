//go:build unix

package conformance

import "syscall"

// mkfifo makes a named pipe, which tests use as a gate a fake agent waits on.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
