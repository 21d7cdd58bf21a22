package cli

import (
	"context"
	"fmt"
	"github.com/parley-acp/parley/internal/egress"
	"github.com/parley-acp/parley/internal/toolui"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/registry"
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/xdg"
)

// Every agent parley starts is confined (--sandbox auto, where the kernel offers
// Landlock, and on macOS with Seatbelt): it and everything it starts write only in the session's roots, a TMPDIR of
// its own, the user's cache, its state directories (its catalog profile, or what the
// configuration declares) and --sandbox-write; they read everything but the user's
// secrets (sandbox.DefaultSecrets, the other agents' credential files, config.json's
// sandbox.deny_read, less what --sandbox-read and read_secret grant back); with
// --sandbox-net they connect only where it says.

// confineRequest is what decides how one agent is confined.
type confineRequest struct {
	mode  string // --sandbox: auto or off
	name  string // the agent as the user chose it
	spec  agentproc.Spec
	roots []string
	cfg   *config.File
	// write, read and net are --sandbox-write, --sandbox-read and --sandbox-net.
	write, read, net []string
	// login says the agent is started to sign in: it may write its credentials (they are
	// in its state directories), and the start says so.
	login bool
	// listing: only to show it (parley agents): the state directories are not created.
	listing bool
}

// confinement is how an agent is confined (spec nil: not at all) and what its start
// says about it: a line describing it, and the lines of what cannot be enforced.
type confinement struct {
	spec     *sandbox.AgentSpec
	describe string
	warnings []string
}

// confineAgent works out the agent's confinement.
func confineAgent(r confineRequest) (confinement, error) {
	switch r.mode {
	case "auto", "":
	case "off":
		return confinement{warnings: []string{r.name + " is not confined (--sandbox off): it, and the commands it runs itself, can write and read wherever you can"}}, nil
	default:
		return confinement{}, fmt.Errorf("--sandbox: %q is not auto or off", r.mode)
	}
	if err := checkNet(r.net, "--sandbox-net"); err != nil {
		return confinement{}, err
	}
	own := catalog.SandboxOf(r.cfg, r.name)
	if own == nil {
		own = &config.AgentSandbox{}
	}
	if own.Off {
		return confinement{warnings: []string{r.name + ` is not confined: its configuration says "sandbox": {"off": true}; it, and the commands it runs itself, can write and read wherever you can`}}, nil
	}
	if err := checkNet(own.Net, "sandbox.net of "+r.name); err != nil {
		return confinement{}, err
	}
	if sandbox.Mechanism() == "" {
		why := "this kernel offers no Landlock"
		if !sandbox.Supported {
			why = "Landlock, which confines agents on Linux, is Linux's"
		}
		return confinement{warnings: []string{r.name + " is not confined: " + why + "; it, and the commands it runs itself, can write and read wherever you can"}}, nil
	}
	spec := agentSpec(r, own)
	c := confinement{spec: spec, warnings: spec.NotesHere()}
	if spec.Net != nil {
		ports, env, err := netGate(spec)
		if err != nil {
			return confinement{}, err
		}
		spec.Ports, spec.Env = ports, env
	}
	if !r.listing {
		makeStateDirs(r, own)
	}
	c.describe = describeConfinement(r.name, spec, r.roots, r.login)
	return c, nil
}

// agentSpec is the policy of the request: what the agent may write, may not read, and
// where it may connect.
func agentSpec(r confineRequest, own *config.AgentSandbox) *sandbox.AgentSpec {
	env := r.spec.Env
	profile := catalog.ProfileOf(r.name, r.spec)
	write := slices.Clone(r.roots)
	if cache, err := os.UserCacheDir(); err == nil {
		write = append(write, cache)
	}
	var grantBack []string
	if profile != nil {
		pw, secrets, readSecret := profile.Expand(env)
		write = append(write, pw...)
		grantBack = append(append(grantBack, secrets...), readSecret...)
	}
	if filepath.Base(r.spec.Command) == "npx" || filepath.Base(r.spec.Command) == "npx.cmd" {
		write = append(write, catalog.NPMCache()) // npx keeps the agent's package there
	}
	write = append(write, catalog.ExpandPaths(append(append(slices.Clone(r.cfg.Sandbox.Write), own.Write...), r.write...), env)...)
	grantBack = append(grantBack, catalog.ExpandPaths(append(append(slices.Clone(r.cfg.Sandbox.ReadSecret), own.ReadSecret...), r.read...), env)...)

	home, _ := os.UserHomeDir()
	deny := sandbox.DefaultSecrets(home, parleySecrets())
	for _, p := range catalog.Profiles() {
		if profile == nil || p.Agent != profile.Agent {
			_, secrets, _ := p.Expand(env)
			deny = append(deny, secrets...)
		}
	}
	deny = append(deny, catalog.ExpandPaths(r.cfg.Sandbox.DenyRead, env)...)
	deny = slices.DeleteFunc(deny, func(d string) bool {
		return slices.ContainsFunc(grantBack, func(g string) bool { return sandbox.Within(d, g) })
	})
	spec := &sandbox.AgentSpec{Write: dedupe(write), DenyRead: dedupe(deny), PTY: profile != nil && profile.PTY}
	if nets := append(slices.Clone(r.net), own.Net...); len(nets) > 0 {
		spec.Net = dedupe(nets)
	}
	return spec
}

// parleySecrets are parley's own files no agent may read: its configuration (agents'
// variables may hold keys), its state (the other agents' logs) and its data but for the
// agents installed from the registry, which are run from there: the database of
// remembered decisions and whatever else appears beside it (unreadable once its
// directory is on the way to a denied path, see internal/sandbox).
func parleySecrets() []string {
	data := xdg.DataDir()
	out := []string{xdg.ConfigDir(), xdg.StateDir(), store.DefaultPath(), store.DefaultPath() + "-wal", store.DefaultPath() + "-shm"}
	entries, _ := os.ReadDir(data)
	for _, e := range entries {
		if p := filepath.Join(data, e.Name()); e.Name() != filepath.Base(registry.DefaultDir()) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// netGate is where --sandbox-net is enforced: it returns the TCP ports the agent may
// connect to and the variables it gets. Landlock limits connections by port only, so the
// agent may connect to one port, that of parley's proxy (internal/egress), which lets
// through only the destinations themselves (host and port) and resolves their names; the
// agent gets HTTPS_PROXY and the like pointing at it. A loopback destination's port is
// allowed directly as well: clients never send 127.0.0.1 or localhost through a proxy.
func netGate(spec *sandbox.AgentSpec) (ports []uint16, env []string, err error) {
	for _, dest := range spec.Net {
		host, port, err := net.SplitHostPort(dest)
		if err != nil {
			return nil, nil, fmt.Errorf("--sandbox-net %q: %v", dest, err)
		}
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return nil, nil, fmt.Errorf("--sandbox-net %q: the port must be a number from 1 to 65535", dest)
		}
		if ip := net.ParseIP(host); (host == "localhost" || ip != nil && ip.IsLoopback()) && !slices.Contains(ports, uint16(n)) {
			ports = append(ports, uint16(n))
		}
	}
	px, err := gates.proxy(spec.Net)
	if err != nil {
		return nil, nil, fmt.Errorf("--sandbox-net: parley's proxy: %w", err)
	}
	return append([]uint16{uint16(px.Port())}, ports...), px.Env(), nil
}

// gates are this process's --sandbox-net proxies, one per list of destinations, started
// when a confined agent first needs one; closeGates, when the command ends, stops them.
var gates = &gateSet{byAllow: map[string]*egress.Proxy{}}

type gateSet struct {
	mu      sync.Mutex
	byAllow map[string]*egress.Proxy
}

func (g *gateSet) proxy(allow []string) (*egress.Proxy, error) {
	key := strings.Join(allow, "\n")
	g.mu.Lock()
	defer g.mu.Unlock()
	if px := g.byAllow[key]; px != nil {
		return px, nil
	}
	px, err := egress.Start(context.Background(), egress.Config{
		Allow:  allow,
		Logger: slog.Default(),
		Refused: func(r egress.Refusal) {
			fmt.Fprintf(os.Stderr, "parley: the agent tried to reach %s, which --sandbox-net does not allow\n", toolui.SafeText(r.Destination))
		},
	})
	if err != nil {
		return nil, err
	}
	g.byAllow[key] = px
	return px, nil
}

// closeGates stops every proxy (their tunnels with them) and waits for them.
func closeGates() {
	gates.mu.Lock()
	defer gates.mu.Unlock()
	for key, px := range gates.byAllow {
		px.Close()
		delete(gates.byAllow, key)
	}
}

// checkNet checks destinations given as HOST:PORT.
func checkNet(dests []string, what string) error {
	for _, d := range dests {
		host, port, err := net.SplitHostPort(d)
		if err == nil {
			var n uint64
			if n, err = strconv.ParseUint(port, 10, 16); err == nil && (n == 0 || host == "") {
				err = fmt.Errorf("want HOST:PORT")
			}
		}
		if err != nil {
			return fmt.Errorf("%s %q is not HOST:PORT (such as api.openai.com:443): %v", what, d, err)
		}
	}
	return nil
}

// makeStateDirs creates the agent's state directories (its profile's, its configuration's
// "write") that do not exist yet: confined, it could not create them in the home
// directory itself. Files are left to the agent, but for its profile's EmptyJSON
// (~/.claude.json), created holding `{}`.
func makeStateDirs(r confineRequest, own *config.AgentSandbox) {
	var dirs []string
	if profile := catalog.ProfileOf(r.name, r.spec); profile != nil {
		dirs, _, _ = profile.Expand(r.spec.Env)
		for _, file := range catalog.ExpandPaths(profile.EmptyJSON, r.spec.Env) {
			if f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
				f.WriteString("{}\n")
				f.Close()
			}
		}
	}
	dirs = append(dirs, catalog.ExpandPaths(own.Write, r.spec.Env)...)
	for _, dir := range dirs {
		if base := filepath.Base(dir); strings.Contains(strings.TrimPrefix(base, "."), ".") {
			continue // a file: .claude.json
		}
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			os.MkdirAll(dir, 0o700)
		}
	}
}

// describeConfinement is the line a start says about the agent's confinement.
func describeConfinement(name string, spec *sandbox.AgentSpec, roots []string, login bool) string {
	home, _ := os.UserHomeDir()
	var extra []string
	for _, w := range spec.Write {
		if !slices.Contains(roots, w) {
			extra = append(extra, tildePath(w, home))
		}
	}
	net := "its network is open (--sandbox-net HOST:PORT limits it)"
	if spec.Net != nil {
		net = "it may connect only to " + strings.Join(spec.Net, ", ") + " (TCP ports " + sandbox.FormatPorts(spec.Ports) + ")"
	}
	s := fmt.Sprintf("%s is confined: it and the commands it runs may write only in the workspace, their TMPDIR and %s; they may not read your secrets (%s; parley agents lists them all); %s",
		name, strings.Join(extra, ", "), secretsSummary(spec.DenyRead, home), net)
	if login {
		s += ". Signing in, it may write its credentials where it keeps them (among those directories)"
	}
	return s
}

// secretsSummary names the first few denied paths and counts the rest.
func secretsSummary(deny []string, home string) string {
	const shown = 4
	var names []string
	for i, d := range deny {
		if i == shown {
			names = append(names, fmt.Sprintf("%d more", len(deny)-shown))
			break
		}
		names = append(names, tildePath(d, home))
	}
	return strings.Join(names, ", ")
}

// tildePath writes a path in the home directory as ~/…
func tildePath(p, home string) string {
	if home != "" && sandbox.Within(p, home) && p != home {
		return "~" + strings.TrimPrefix(p, home)
	}
	return p
}

func dedupe(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
