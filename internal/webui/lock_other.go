//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package webui

import "errors"

// lockFile has no lock to take on this system: changing the named tokens is refused
// rather than done without one (a lost revocation would be worse than none).
func lockFile(string) (func(), error) {
	return nil, errors.New("this system has no file locks parley knows how to take")
}
