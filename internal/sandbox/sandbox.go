// Package sandbox confines the commands parley's coding agent runs on this machine, and
// those agents run in parley's terminals, with Landlock, where the kernel offers it (on
// Linux), or Seatbelt (on macOS; see Mechanism and seatbelt.go): a
// confined command reads and runs what the user can, but writes only inside the session's
// workspace roots, a temporary directory of its own (its TMPDIR), the user's cache
// directory (build caches) and whatever else the user named. It cannot open a terminal
// (the user's included) or an input device, and cannot ask a server outside the sandbox to
// act for it through a Unix socket (tmux, screen, the session bus, ssh-agent, docker), nor
// signal a process outside it, as far as the kernel allows: see Exec.
//
// Every agent parley starts is confined the same way (AgentSpec, agent.go), and more: it
// may not read the user's secrets (denyread.go says how Landlock, which only grants, is
// made to), and with a network limit it connects over TCP only to the ports it was
// given.
//
// Landlock restricts a process and everything it starts, and cannot be lifted. The agent
// itself must stay free (it writes its database and logs), so a command is not confined
// in the agent's process: Wrap turns it into `parley sandbox-exec --write DIR... --
// COMMAND ARGS...`, and Exec, run by that subcommand, confines its own process and then
// replaces itself with the command.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
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
	r := Rules{Tmp: p.tmp, Write: append(append([]string(nil), roots...), p.writable...)}
	return p.exe, wrapArgs(r, command, args)
}

// wrapArgs is the sandbox-exec command line that runs command with args under r.
func wrapArgs(r Rules, command string, args []string) []string {
	argv := append([]string{"sandbox-exec"}, r.Args()...)
	argv = append(argv, "--", command)
	return append(argv, args...)
}

// Landlock ABI versions that bring what Exec uses.
const (
	abiRefer      = 2 // moving files between directories
	abiNet        = 4 // TCP bind and connect by port
	abiIoctlDev   = 5 // ioctl on devices is a right of its own
	abiScopes     = 6 // abstract Unix sockets and signals reach only the same domain
	abiResolveUnx = 9 // connecting to a Unix socket by its path is a right of its own
)

// Supported reports whether this platform can confine commands at all: Linux with
// Landlock (where the kernel offers it), macOS with Seatbelt (Exec runs the command under
// /usr/bin/sandbox-exec); Windows offers nothing parley uses, so there commands are
// never confined.
const Supported = runtime.GOOS == "linux" || runtime.GOOS == "darwin"

// Mechanism names what confines commands on this machine: "landlock ABI N", "seatbelt"
// on macOS, or "" where nothing does (and Exec fails). Where parley decides whether to
// confine, it asks this.
func Mechanism() string {
	if runtime.GOOS == "darwin" {
		return "seatbelt"
	}
	if abi := ABI(); abi > 0 {
		return fmt.Sprintf("landlock ABI %d", abi)
	}
	return ""
}

// ErrUnavailable is Exec's answer where the kernel offers no Landlock.
var ErrUnavailable = errors.New("this kernel offers no Landlock")

// serverVariables name servers a confined command cannot reach (their sockets are refused
// where the kernel allows) or should not be told about (some listen on TCP, which is
// not confined): terminal multiplexers and terminals with remote control, desktop buses,
// agents holding keys, display servers, editors, container engines.
var serverVariables = []string{
	"TMUX", "TMUX_PANE", "STY", "ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID",
	"KITTY_LISTEN_ON", "WEZTERM_UNIX_SOCKET", "ALACRITTY_SOCKET",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "GNOME_KEYRING_CONTROL",
	"DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "XAUTHORITY", "SWAYSOCK", "I3SOCK",
	"HYPRLAND_INSTANCE_SIGNATURE", "PULSE_SERVER",
	"NVIM", "NVIM_LISTEN_ADDRESS", "EMACS_SOCKET_NAME", "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE",
	"DOCKER_HOST", "CONTAINER_HOST",
}

// confinedEnv is env without serverVariables, with TMPDIR set to tmp when it is not "".
func confinedEnv(env []string, tmp string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		// getenv takes the first of duplicates, so the old TMPDIR must go, not be shadowed.
		return slices.Contains(serverVariables, name) || (tmp != "" && name == "TMPDIR")
	})
	if tmp != "" {
		out = append(out, "TMPDIR="+tmp)
	}
	return out
}

// Reach says, for --help, what confined commands cannot reach on a kernel with Landlock
// ABI abi (beyond writing outside their directories), and what they still can.
func Reach(abi int) string {
	var b strings.Builder
	b.WriteString("Confined commands cannot open a terminal or an input device, and get no variable naming a server (TMUX, SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS…). ")
	switch {
	case abi >= abiResolveUnx:
		b.WriteString("No Unix socket server and no process outside their sandbox is within their reach.")
	case socketFilterWritten():
		b.WriteString("They cannot create Unix sockets at all (a Unix socket server of their own fails too; socketpair works).")
	case abi >= abiScopes:
		b.WriteString("Abstract Unix sockets outside their sandbox are out of their reach, but on this architecture Unix sockets by path are not.")
	default:
		b.WriteString("On this kernel and architecture, Unix socket servers outside stay within their reach.")
	}
	if abi >= abiScopes {
		b.WriteString(" They cannot signal a process outside their sandbox.")
	} else {
		b.WriteString(" This kernel lets them signal your other processes.")
	}
	b.WriteString(" Servers on TCP or UDP ports stay reachable: the network is not confined.")
	return b.String()
}
