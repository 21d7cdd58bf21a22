package cli

import "golang.org/x/sys/unix"

// setEcho turns the terminal's echo of what is typed on or off (line editing stays): a
// secret is typed without being shown.
func (t *terminalInput) setEcho(on bool) error {
	tio, err := unix.IoctlGetTermios(t.fd, unix.TCGETS)
	if err != nil {
		return err
	}
	if on {
		tio.Lflag |= unix.ECHO
	} else {
		tio.Lflag &^= unix.ECHO
	}
	return unix.IoctlSetTermios(t.fd, unix.TCSETS, tio)
}
