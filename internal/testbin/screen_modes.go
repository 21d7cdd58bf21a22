//go:build !windows

package testbin

import (
	"errors"

	"golang.org/x/sys/unix"
)

// CursorHidden reports whether the program left the cursor hidden.
func (s *Screen) CursorHidden() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.CursorHidden()
}

// Cooked reports whether the terminal is in its ordinary line mode (canonical input and
// echo), as a shell leaves it and a full-screen program must give it back. It reads the
// pseudo-terminal's settings, which stay what the program last set once it has exited.
func (s *Screen) Cooked() (bool, error) {
	if getTermios == 0 {
		return false, errors.New("reading a terminal's settings is not supported here")
	}
	tio, err := unix.IoctlGetTermios(int(s.pty.Fd()), getTermios)
	if err != nil {
		return false, err
	}
	return tio.Lflag&unix.ICANON != 0 && tio.Lflag&unix.ECHO != 0, nil
}
