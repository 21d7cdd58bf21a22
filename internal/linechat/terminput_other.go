//go:build !linux && !darwin

package linechat

import (
	"errors"
	"os"
)

// terminalInput has no implementation here yet (see terminput_unix.go): the prompter
// reads the terminal as a stream, and a question cannot discard what was typed before.
type terminalInput struct{}

func openTerminalInput(*os.File) (*terminalInput, error) {
	return nil, errors.New("reading a terminal line by line is not written for this system")
}

func (*terminalInput) wait() bool                   { return false }
func (*terminalInput) readReady([]byte) (int, bool) { return 0, true }
func (*terminalInput) discardQueued() bool          { return false }
func (*terminalInput) wake()                        {}
func (*terminalInput) Close()                       {}
