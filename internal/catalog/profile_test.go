package catalog

import (
	"os"
	"testing"

	"github.com/parley-acp/parley/internal/agentproc"
)

func TestProfileOfRecognisesTheAgentInACommandLine(t *testing.T) {
	self, _ := os.Executable()
	for _, tc := range []struct {
		name string
		spec agentproc.Spec
		want string
	}{
		{"codex", agentproc.Spec{Command: "npx", Args: []string{"-y", "@agentclientprotocol/codex-acp@1.0"}}, "codex"},
		{"node /x/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js", agentproc.Spec{Command: "/n/node", Args: []string{"/x/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js"}}, "claude"},
		{"mine", agentproc.Spec{Command: "/opt/opencode-linux-x64/bin/opencode", Args: []string{"acp"}}, "opencode"},
		{"env …", agentproc.Spec{Command: "env", Args: []string{"X=1", self, "agent", "--model", "m"}}, "parley"},
		{"something", agentproc.Spec{Command: "my-agent"}, ""},
	} {
		got := ""
		if p := ProfileOf(tc.name, tc.spec); p != nil {
			got = p.Agent
		}
		if got != tc.want {
			t.Errorf("%s %v: profile %q, want %q", tc.name, tc.spec, got, tc.want)
		}
	}
}

func TestExpandPathsUsesTheAgentsEnvironment(t *testing.T) {
	home, _ := os.UserHomeDir()
	got := ExpandPaths([]string{"${CODEX_HOME:-~/.codex}", "~/.qwen", "$UNSET_FOR_SURE/x"}, []string{"CODEX_HOME=/elsewhere"})
	if len(got) != 2 || got[0] != "/elsewhere" || got[1] != home+"/.qwen" {
		t.Errorf("ExpandPaths = %q", got)
	}
}
