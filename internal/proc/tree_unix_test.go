//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// detach has cmd leave its parent's group and session, as a daemon does.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// sharesConsole: signals reach any process of the user's.
func sharesConsole() bool { return true }
