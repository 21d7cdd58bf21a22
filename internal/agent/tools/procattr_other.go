//go:build !unix

package tools

import "os/exec"

func setProcessGroup(*exec.Cmd) {}
