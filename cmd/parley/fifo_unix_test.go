//go:build unix

package main

import "syscall"

// mkfifo makes a named pipe: tests use them as gates and signals, never time.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
