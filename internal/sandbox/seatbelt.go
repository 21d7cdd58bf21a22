package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// SeatbeltPolicy is the macOS form of an agent's confinement, the policy Landlock
// enforces on Linux: reads stay as they are but for the secrets, writes only where the
// agent may write, and, when parley runs the network proxy, connections only to it.
// SeatbeltProfile turns it into a sandbox-exec profile; SeatbeltWrap (darwin) runs an
// agent under it.
type SeatbeltPolicy struct {
	// Write lists the directories (or files) the agent may write, each with everything
	// beneath it: the workspace roots, its temporary directory, its state.
	Write []string
	// DenyRead lists what the agent may neither read nor write, each with everything
	// beneath it (~/.ssh, ~/.aws…). It wins over Write.
	DenyRead []string
	// ProxyPort, when not 0, is the port of parley's proxy on 127.0.0.1 (internal/egress),
	// the only TCP or UDP destination the agent may then connect to. 0: the network is
	// not narrowed.
	ProxyPort int
	// LoopbackPorts are further ports on the loopback interface the agent may connect to
	// when ProxyPort narrows the network: parley's own servers (vscode_tools' bridge) and
	// the loopback destinations of --sandbox-net, which clients never send through a proxy.
	LoopbackPorts []int
	// Offline, with ProxyPort 0, refuses every TCP and UDP connection (sandbox-exec
	// --tcp-connect none).
	Offline bool
	// PTY lets the agent open pseudo-terminals (/dev/ptmx and the terminals it gets), and
	// so write to the user's other terminals as well: see Rules.PTY.
	PTY bool
}

// seatbeltDevices are the devices any program writes (discarded output, dtrace's
// helper, its own descriptors by name); the terminals are not among them.
var seatbeltDevices = []string{"/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/stdout", "/dev/stderr"}

// seatbeltSockets are the Unix sockets of the system's services a program needs:
// name resolution (mDNSResponder) and the system log.
var seatbeltSockets = []string{"/private/var/run/mDNSResponder", "/private/var/run/syslog"}

// SeatbeltProfile is the sandbox-exec profile (SBPL) of policy. It starts from
// `(allow default)`, as reads and everything but writes, the network and signals stay
// as they are, and denies the rest; Seatbelt applies the last rule that matches, so
// each exception follows what it excepts from, and the secrets come last.
//
// Unix sockets are refused but the system's (seatbeltSockets) and those in the
// directories the agent writes (its own servers): a user's servers (ssh-agent, docker,
// tmux) are out of reach. Signals reach only the agent's own processes.
//
// Paths must be absolute and as the kernel names them: Seatbelt compares the path of
// the file reached, with links resolved (/private/tmp, not /tmp), so SeatbeltWrap adds
// each path's resolved form. Each is written in Unicode's composed and decomposed forms
// when they differ (HFS+ stores names decomposed, APFS as they were created). A path
// with a control character is refused rather than escaped: sandbox-exec's reader is
// documented nowhere for them, and no directory parley confines to needs one.
func SeatbeltProfile(policy SeatbeltPolicy) (string, error) {
	write, err := seatbeltPaths(policy.Write)
	if err != nil {
		return "", fmt.Errorf("a directory the agent may write: %w", err)
	}
	secrets, err := seatbeltPaths(policy.DenyRead)
	if err != nil {
		return "", fmt.Errorf("a path the agent may not read: %w", err)
	}
	if policy.ProxyPort < 0 || policy.ProxyPort > 65535 {
		return "", fmt.Errorf("proxy port %d is not a port", policy.ProxyPort)
	}
	for _, port := range policy.LoopbackPorts {
		if port < 1 || port > 65535 || policy.ProxyPort == 0 {
			return "", fmt.Errorf("loopback port %d: not a port, or given without the proxy's", port)
		}
	}
	var b strings.Builder
	b.WriteString("(version 1)\n; parley: the confinement of an agent (internal/sandbox/seatbelt.go)\n(allow default)\n")

	b.WriteString("\n; Writes only in these, and the devices every program writes.\n(deny file-write*)\n(allow file-write*")
	for _, dir := range write {
		fmt.Fprintf(&b, "\n  (subpath %s)", dir)
	}
	for _, dev := range seatbeltDevices {
		fmt.Fprintf(&b, "\n  (literal %s)", sbplString(dev))
	}
	if policy.PTY {
		fmt.Fprintf(&b, "\n  (literal %s)\n  (regex #\"^/dev/ttys[0-9]+$\")", sbplString("/dev/ptmx"))
	}
	fmt.Fprintf(&b, "\n  (subpath %s))\n", sbplString("/dev/fd"))

	b.WriteString("\n; Signals only to its own processes.\n(deny signal)\n(allow signal (target same-sandbox))\n")

	switch {
	case policy.ProxyPort != 0:
		fmt.Fprintf(&b, "\n; The network: parley's proxy only.\n(deny network-outbound)\n(allow network-outbound (remote ip %s)",
			sbplString("localhost:"+strconv.Itoa(policy.ProxyPort)))
		for _, port := range policy.LoopbackPorts {
			fmt.Fprintf(&b, "\n  (remote ip %s)", sbplString("localhost:"+strconv.Itoa(port)))
		}
		b.WriteString(")\n")
	case policy.Offline:
		b.WriteString("\n; No network, but for the Unix sockets below.\n(deny network-outbound)\n")
	default:
		b.WriteString("\n; The network is open, but for Unix sockets.\n(deny network-outbound (remote unix-socket (path-regex #\"^/\")))\n")
	}
	b.WriteString("(allow network-outbound")
	for _, sock := range seatbeltSockets {
		fmt.Fprintf(&b, "\n  (remote unix-socket (subpath %s))", sbplString(sock))
	}
	for _, dir := range write {
		fmt.Fprintf(&b, "\n  (remote unix-socket (subpath %s))", dir)
	}
	b.WriteString(")\n")

	if len(secrets) > 0 {
		b.WriteString("\n; Secrets: neither read nor written, last so that no rule above lets them through.\n(deny file-read* file-write*")
		for _, path := range secrets {
			fmt.Fprintf(&b, "\n  (subpath %s)", path)
		}
		b.WriteString(")\n")
	}
	return b.String(), nil
}

// seatbeltPaths checks paths and returns them as SBPL strings, each in its composed
// and decomposed forms, without duplicates.
func seatbeltPaths(paths []string) ([]string, error) {
	var out []string
	for _, path := range paths {
		if !strings.HasPrefix(path, "/") {
			return nil, fmt.Errorf("%q is not an absolute path", path)
		}
		if !utf8.ValidString(path) {
			return nil, fmt.Errorf("%q is not UTF-8", path)
		}
		if i := strings.IndexFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
			return nil, fmt.Errorf("%q has a control character, which a Seatbelt profile cannot be trusted to read", path)
		}
		clean := strings.TrimSuffix(path, "/")
		if clean == "" {
			clean = "/"
		}
		for _, form := range []string{clean, norm.NFC.String(clean), norm.NFD.String(clean)} {
			if s := sbplString(form); !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// sbplString is s as an SBPL (Scheme) string literal: backslashes and double quotes
// escaped, everything else (UTF-8 included) as it is. The callers have refused control
// characters.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// withResolved adds to each path of policy its form with links resolved by eval
// (filepath.EvalSymlinks), when that differs: Seatbelt sees the resolved one, and the
// given one stays in case a link changes later. A path that does not exist yet is
// resolved as far as it exists (~/.aws missing under a linked home still becomes the
// home's real path and .aws).
func (policy SeatbeltPolicy) withResolved(eval func(string) (string, error)) SeatbeltPolicy {
	resolve := func(paths []string) []string {
		var out []string
		for _, path := range paths {
			if !slices.Contains(out, path) {
				out = append(out, path)
			}
			if real := resolveExisting(path, eval); real != path && !slices.Contains(out, real) {
				out = append(out, real)
			}
		}
		return out
	}
	policy.Write = resolve(policy.Write)
	policy.DenyRead = resolve(policy.DenyRead)
	return policy
}

// resolveExisting is path with the links of its longest existing prefix resolved.
func resolveExisting(path string, eval func(string) (string, error)) string {
	rest := ""
	for dir := filepath.Clean(path); ; {
		if real, err := eval(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return path
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// SeatbeltPolicyOf is r as Seatbelt carries it out on macOS (Exec there): the same
// writes (TMPDIR among them) and secrets, and with r.LimitNet connections only to the
// ports of r.ConnectTCP on the loopback interface, which is where they all are: the
// first is the proxy's (netGate in internal/cli puts it first), the others loopback
// destinations and parley's own servers. Landlock lets a port through to every host;
// Seatbelt, which can name localhost, lets through only that.
func SeatbeltPolicyOf(r Rules) SeatbeltPolicy {
	policy := SeatbeltPolicy{Write: slices.Clone(r.Write), DenyRead: slices.Clone(r.DenyRead), PTY: r.PTY}
	if r.Tmp != "" && !slices.Contains(policy.Write, r.Tmp) {
		policy.Write = append(policy.Write, r.Tmp)
	}
	if r.LimitNet {
		if len(r.ConnectTCP) == 0 {
			policy.Offline = true
		}
		for i, port := range r.ConnectTCP {
			if i == 0 {
				policy.ProxyPort = int(port)
			} else if int(port) != policy.ProxyPort && !slices.Contains(policy.LoopbackPorts, int(port)) {
				policy.LoopbackPorts = append(policy.LoopbackPorts, int(port))
			}
		}
	}
	return policy
}
