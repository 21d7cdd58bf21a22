//go:build !linux && !darwin

package cli

import "errors"

func (*terminalInput) setEcho(bool) error {
	return errors.New("hiding what is typed is not written for this system")
}
