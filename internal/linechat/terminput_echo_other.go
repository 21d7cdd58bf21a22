//go:build !linux && !darwin

package linechat

import "errors"

func (*terminalInput) setEcho(bool) error {
	return errors.New("hiding what is typed is not written for this system")
}
