// Package sandbox confines the commands parley's coding agent runs on this machine with
// Landlock, where the kernel offers it (Linux only; see Supported): a confined command reads and runs what the user
// can, but writes only inside the session's workspace roots, a temporary directory of
// its own (its TMPDIR), the user's cache directory (build caches) and whatever else the
// user named.
//
// Landlock restricts a process and everything it starts, and cannot be lifted. The agent
// itself must stay free (it writes its database and logs), so a command is not confined
// in the agent's process: Wrap turns it into `parley sandbox-exec --write DIR... --
// COMMAND ARGS...`, and Exec, run by that subcommand, confines its own process and then
// replaces itself with the command.
package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// Policy is how commands are confined: which binary confines them, and what they may
// write besides the workspace.
type Policy struct {
	exe      string   // parley's own binary, which has the sandbox-exec subcommand
	tmp      string   // the commands' TMPDIR
	writable []string // beyond the workspace roots, tmp included
}

// New returns the policy that confines commands through exe (parley's own binary),
// letting them write tmp (which becomes their TMPDIR: the system's shared temporary
// directory is not theirs to write), the user's cache directory and extra.
func New(exe, tmp string, extra []string) *Policy {
	p := &Policy{exe: exe, tmp: tmp}
	p.writable = append(p.writable, tmp)
	if cache, err := os.UserCacheDir(); err == nil {
		p.writable = append(p.writable, cache)
	}
	for _, dir := range extra {
		if abs, err := filepath.Abs(dir); err == nil {
			p.writable = append(p.writable, abs)
		}
	}
	return p
}

// Writable is what a confined command may write besides the workspace.
func (p *Policy) Writable() []string { return append([]string(nil), p.writable...) }

// Wrap returns the command line that runs command with args, confined to writing in
// roots and the policy's directories.
func (p *Policy) Wrap(roots []string, command string, args []string) (string, []string) {
	argv := []string{"sandbox-exec", "--tmp", p.tmp}
	for _, dir := range append(append([]string(nil), roots...), p.writable...) {
		argv = append(argv, "--write", dir)
	}
	argv = append(argv, "--", command)
	return p.exe, append(argv, args...)
}

// Supported reports whether this platform can confine commands at all: Landlock is
// Linux's, and macOS and Windows offer nothing parley uses instead, so there commands are
// never confined.
const Supported = runtime.GOOS == "linux"

// ErrUnavailable is Exec's answer where the kernel offers no Landlock.
var ErrUnavailable = errors.New("this kernel offers no Landlock")
