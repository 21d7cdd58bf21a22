//go:build !windows && !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package testbin

const getTermios = 0
