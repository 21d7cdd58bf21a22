package vscodelm

import (
	"slices"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/sandbox"
)

// confineWithBridge is confine with the tool bridge's port (bridgePort, on 127.0.0.1)
// added to the ports of every agent whose network is limited (--sandbox-net): the agent,
// or the stdio shim it starts, must reach vscode_tools there, and the bridge listens
// before any agent starts. The proxy's variables empty NO_PROXY, so the bridge is named
// there (bypassProxy): a client that would send even a loopback URL through the proxy
// (Node with NODE_USE_ENV_PROXY) would be refused by it. An agent left unconfined, or with its network open, is as
// confine says.
func confineWithBridge(confine func(string, agentproc.Spec, []string) *sandbox.AgentSpec, bridgePort uint16) func(string, agentproc.Spec, []string) *sandbox.AgentSpec {
	if confine == nil {
		return nil
	}
	return func(name string, spec agentproc.Spec, roots []string) *sandbox.AgentSpec {
		s := confine(name, spec, roots)
		if s == nil || s.Net == nil || slices.Contains(s.Ports, bridgePort) {
			return s
		}
		withPort := *s
		withPort.Ports = append(slices.Clone(s.Ports), bridgePort)
		withPort.Env = bypassProxy(s.Env, bridgePort)
		return &withPort
	}
}

// bypassProxy is env with NO_PROXY and no_proxy, where they are set, naming the bridge's
// address (host and port, both spellings), so that clients connect to it directly.
func bypassProxy(env []string, bridgePort uint16) []string {
	port := strconv.Itoa(int(bridgePort))
	out := slices.Clone(env)
	for i, kv := range out {
		if name, _, _ := strings.Cut(kv, "="); strings.EqualFold(name, "NO_PROXY") {
			out[i] = name + "=127.0.0.1:" + port + ",localhost:" + port
		}
	}
	return out
}
