package main

import (
	"syscall"
	"unsafe"
)

// stdinHasData reports whether this process's stdin, a pipe, holds unread bytes.
func stdinHasData() bool {
	var n int32
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, 0, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	return errno == 0 && n > 0
}
