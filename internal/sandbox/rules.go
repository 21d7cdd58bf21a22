package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// Rules are what one confined process, and everything it starts, may do: the flags of
// `parley sandbox-exec`, which Exec carries out. A command of parley's terminals gets
// Write (its roots, its TMPDIR, the cache) and Tmp; an agent gets DenyRead and the network
// limits too (AgentSpec.Rules).
type Rules struct {
	Write    []string // files and directories it may write (and read)
	DenyRead []string // files and directories it may not read (nor what they hold)
	Tmp      string   // its TMPDIR; "" keeps the one it has
	// LimitNet confines TCP connections to the ports of ConnectTCP (none when empty);
	// without it the network is open.
	LimitNet   bool
	ConnectTCP []uint16
	// PTY lets it open pseudo-terminals (/dev/ptmx, /dev/pts): an agent whose shell runs
	// in one (gemini's node-pty) needs it, and can then reach the user's other terminals.
	PTY bool
}

// Args are the rules as sandbox-exec's flags, in the order ParseNetFlag and the other
// flags read them back.
func (r Rules) Args() []string {
	var argv []string
	if r.Tmp != "" {
		argv = append(argv, "--tmp", r.Tmp)
	}
	for _, dir := range r.Write {
		argv = append(argv, "--write", dir)
	}
	for _, p := range r.DenyRead {
		argv = append(argv, "--deny-read", p)
	}
	if r.PTY {
		argv = append(argv, "--pty")
	}
	if r.LimitNet {
		argv = append(argv, "--tcp-connect", FormatPorts(r.ConnectTCP))
	}
	return argv
}

// FormatPorts is ports as --tcp-connect takes them: "443,8080", or "none".
func FormatPorts(ports []uint16) string {
	if len(ports) == 0 {
		return "none"
	}
	words := make([]string, len(ports))
	for i, p := range ports {
		words[i] = strconv.Itoa(int(p))
	}
	return strings.Join(words, ",")
}

// ParsePorts reads what FormatPorts wrote.
func ParsePorts(s string) ([]uint16, error) {
	if s == "none" {
		return nil, nil
	}
	var ports []uint16
	for _, w := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(w), 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("--tcp-connect: %q is not a port (1-65535) or none", w)
		}
		ports = append(ports, uint16(n))
	}
	return ports, nil
}
