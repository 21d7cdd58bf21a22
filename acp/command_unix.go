//go:build unix

package acp

import (
	"os/exec"
	"syscall"
)

// terminate asks the agent (its process group, when it has one of its own) to stop.
func terminate(cmd *exec.Cmd) error { return signal(cmd, syscall.SIGTERM) }

// kill ends the agent (its process group, when it has one of its own).
func kill(cmd *exec.Cmd) error { return signal(cmd, syscall.SIGKILL) }

func signal(cmd *exec.Cmd, sig syscall.Signal) error {
	if a := cmd.SysProcAttr; a != nil && a.Setpgid && a.Pgid == 0 {
		return syscall.Kill(-cmd.Process.Pid, sig)
	}
	return cmd.Process.Signal(sig)
}
