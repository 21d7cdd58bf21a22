//go:build !unix

package acp

import "os/exec"

// terminate cannot ask politely here: it kills the agent.
func terminate(cmd *exec.Cmd) error { return cmd.Process.Kill() }

func kill(cmd *exec.Cmd) error { return cmd.Process.Kill() }
