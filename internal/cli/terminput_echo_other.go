//go:build !linux

package cli

import "errors"

func (*terminalInput) setEcho(bool) error {
	return errors.New("hiding what is typed is not written for this system")
}
