//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package testbin

import "golang.org/x/sys/unix"

const getTermios = unix.TIOCGETA
