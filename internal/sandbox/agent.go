package sandbox

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// AgentSpec is how an agent process is confined, with everything it starts (its own
// shell commands included): it may write only Write (the session's workspace roots, its
// state directories, the cache) and a TMPDIR of its own, may not read DenyRead (the
// user's secrets), and, when Net is set, may connect only where Net says. The agent is
// started as `parley sandbox-exec RULES -- AGENT...` (Wrap); the kernel holds it there.
type AgentSpec struct {
	Write    []string
	DenyRead []string
	// Net are the HOST:PORT destinations the user allows (--sandbox-net); nil leaves the
	// network open. Ports and Env are how they are enforced, as the network gate worked
	// them out: the TCP ports Landlock lets the agent connect to, and variables for the
	// agent (a proxy's address).
	Net   []string
	Ports []uint16
	Env   []string
	// PTY lets the agent open pseudo-terminals (see Rules.PTY).
	PTY bool
}

// Rules are the spec as sandbox-exec carries it out, with tmp as the agent's TMPDIR.
func (s *AgentSpec) Rules(tmp string) Rules {
	return Rules{
		Write: append(slices.Clone(s.Write), tmp), DenyRead: slices.Clone(s.DenyRead), Tmp: tmp,
		LimitNet: s.Net != nil, ConnectTCP: slices.Clone(s.Ports), PTY: s.PTY,
	}
}

// Wrap returns the command line that runs command with args confined by the spec, with
// tmp as its TMPDIR, through exe (parley's own binary).
func (s *AgentSpec) Wrap(exe, tmp, command string, args []string) (string, []string) {
	return exe, wrapArgs(s.Rules(tmp), command, args)
}

// DefaultSecrets are the files no agent may read unless the user grants one back: keys,
// cloud and container credentials, keyrings and password stores, browser profiles (their
// cookies sign in as the user), and parley's own configuration, data and state (the
// remembered permission decisions, which an agent must not read or forge, and the logs
// of the other agents).
func DefaultSecrets(home string, parleyDirs []string) []string {
	var out []string
	for _, p := range []string{
		".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker/config.json",
		".netrc", ".git-credentials", ".pypirc",
		".local/share/keyrings", ".password-store", ".pki",
		".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge",
	} {
		out = append(out, filepath.Join(home, p))
	}
	return append(out, parleyDirs...)
}

// NotesHere are the notes of this machine's confinement: Notes of its Landlock ABI, or
// on macOS SeatbeltNotes.
func (s *AgentSpec) NotesHere() []string {
	if runtime.GOOS == "darwin" {
		return s.SeatbeltNotes()
	}
	return s.Notes(ABI())
}

// SeatbeltNotes say what of the spec Seatbelt, as SeatbeltProfile writes it, does not
// hold. Everything the spec names is expressed (the secrets within writable directories
// too: the profile denies them last); what the profile leaves open, starting from
// `(allow default)`, are macOS's services.
func (s *AgentSpec) SeatbeltNotes() []string {
	notes := []string{"it may still ask macOS's services to act for it (Apple Events and launchd's services are not confined: `open` starts an application outside the sandbox)"}
	if s.PTY {
		notes = append(notes, "it may open pseudo-terminals (its shell runs in one), and so reach your other terminals")
	}
	return notes
}

// Notes say what of the spec this kernel (Landlock ABI abi) cannot enforce, in words for
// the user: one line each, none when everything holds.
func (s *AgentSpec) Notes(abi int) []string {
	if abi == 0 {
		return []string{"this kernel offers no Landlock: the agent is not confined at all (it can write and read wherever you can)"}
	}
	var notes []string
	if open := unenforceable(s.DenyRead, s.Write); len(open) > 0 {
		names := open
		if len(open) > 3 {
			names = append(open[:3:3], fmt.Sprintf("%d more", len(open)-3))
		}
		notes = append(notes, fmt.Sprintf("some of your secrets stay readable (%s): a directory the agent may write holds them", strings.Join(names, ", ")))
	}
	if s.PTY {
		notes = append(notes, "it may open pseudo-terminals (its shell runs in one), and so reach your other terminals")
	}
	if s.Net != nil && abi < abiNet {
		notes = append(notes, fmt.Sprintf("--sandbox-net is not enforced: this kernel's Landlock (ABI %d) cannot limit connections (ABI 4 can)", abi))
	}
	switch {
	case abi >= abiResolveUnx:
	case socketFilterWritten():
	case abi >= abiScopes:
		notes = append(notes, "Unix sockets by path stay within the agent's reach on this architecture")
	default:
		notes = append(notes, "Unix socket servers (ssh-agent, the session bus, docker) stay within the agent's reach on this kernel")
	}
	if abi < abiScopes {
		notes = append(notes, "this kernel lets the agent signal your other processes")
	}
	return notes
}
