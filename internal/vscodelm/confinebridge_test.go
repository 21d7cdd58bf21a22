package vscodelm

import (
	"slices"
	"strconv"
	"testing"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/mcpbridge"
	"github.com/parley-acp/parley/internal/sandbox"
)

// With --sandbox-net an agent may still reach vscode_tools: the bridge's port is among
// those its confinement lets it connect to, beside the proxy's; with the network open, or
// unconfined, nothing changes.
func TestConfinedAgentReachesTheToolBridge(t *testing.T) {
	bridge, err := mcpbridge.New(mcpbridge.Options{Executable: "parley"})
	if err != nil {
		t.Fatal(err)
	}
	defer bridge.Close()
	port := bridge.Port()
	if port == 0 {
		t.Fatal("the bridge has no port")
	}
	specs := map[string]*sandbox.AgentSpec{
		"limited": {Write: []string{"/w"}, Net: []string{"api.example.com:443"}, Ports: []uint16{50123},
			Env: []string{"HTTPS_PROXY=http://127.0.0.1:50123", "NO_PROXY=", "no_proxy="}},
		"open": {Write: []string{"/w"}},
	}
	confine := confineWithBridge(func(name string, _ agentproc.Spec, _ []string) *sandbox.AgentSpec { return specs[name] }, port)

	got := confine("limited", agentproc.Spec{}, nil)
	if want := []uint16{50123, port}; !slices.Equal(got.Ports, want) {
		t.Errorf("limited network: ports %v, want %v", got.Ports, want)
	}
	p := strconv.Itoa(int(port))
	if want := []string{"HTTPS_PROXY=http://127.0.0.1:50123", "NO_PROXY=127.0.0.1:" + p + ",localhost:" + p, "no_proxy=127.0.0.1:" + p + ",localhost:" + p}; !slices.Equal(got.Env, want) {
		t.Errorf("limited network: env %q, want %q", got.Env, want)
	}
	if rules := got.Rules(t.TempDir()); !slices.Contains(rules.ConnectTCP, port) {
		t.Errorf("sandbox-exec's rules lack the bridge's port: %v", rules.ConnectTCP)
	}
	if len(specs["limited"].Ports) != 1 || specs["limited"].Env[1] != "NO_PROXY=" {
		t.Errorf("the spec confine returned was changed: %v", specs["limited"].Ports)
	}
	if open := confine("open", agentproc.Spec{}, nil); open.Ports != nil {
		t.Errorf("open network: ports %v, want none", open.Ports)
	}
	if confine("unconfined", agentproc.Spec{}, nil) != nil {
		t.Error("an unconfined agent came back confined")
	}
	if confineWithBridge(nil, port) != nil {
		t.Error("no confinement became one")
	}
}
