package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/sandbox"
)

func TestAgentSpecComposesProfileConfigAndFlags(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("CODEX_HOME", "")
	cfg := &config.File{Sandbox: config.Sandbox{DenyRead: []string{"~/private/secrets"}, ReadSecret: []string{"~/.aws"}}}
	r := confineRequest{name: "codex", spec: agentproc.Spec{Command: "codex-acp"}, roots: []string{"/ws"}, cfg: cfg,
		write: []string{"~/go"}, read: []string{"~/.kube"}, net: []string{"api.openai.com:443", "127.0.0.1:8080"}}
	spec := agentSpec(r, &config.AgentSandbox{Write: []string{"~/.codex-extra"}})
	in := func(list []string, p string) bool { return slices.Contains(list, filepath.Join(home, p)) }
	for _, w := range []string{".codex", ".cache", "go", ".codex-extra"} {
		if !in(spec.Write, w) {
			t.Errorf("write %v lacks ~/%s", spec.Write, w)
		}
	}
	for _, d := range []string{".ssh", "private/secrets", ".claude/.credentials.json", ".gemini/oauth_creds.json"} {
		if !in(spec.DenyRead, d) {
			t.Errorf("deny_read %v lacks ~/%s", spec.DenyRead, d)
		}
	}
	for _, d := range []string{".aws", ".kube", ".codex/auth.json"} { // granted back, and codex's own
		if in(spec.DenyRead, d) {
			t.Errorf("deny_read %v holds ~/%s", spec.DenyRead, d)
		}
	}
	ports, env, err := netGate(spec) // the proxy's port, and the loopback destination's (clients never proxy it)
	t.Cleanup(closeGates)
	if err != nil || len(ports) != 2 || ports[1] != 8080 || !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "HTTPS_PROXY=http://") }) {
		t.Errorf("netGate = %v, %v, %v", ports, env, err)
	}
	if got := sandbox.FormatPorts([]uint16{443, 8080}); got != "443,8080" {
		t.Errorf("FormatPorts = %q", got)
	}
}

func TestConfineAgentOffAndBadFlags(t *testing.T) {
	cfg := &config.File{Sandbox: config.Sandbox{Agents: map[string]config.AgentSandbox{"mine": {Off: true}}}}
	for _, tc := range []struct {
		r    confineRequest
		want string
	}{
		{confineRequest{mode: "off", name: "eliza", cfg: cfg}, "not confined (--sandbox off)"},
		{confineRequest{mode: "auto", name: "mine", cfg: cfg}, `its configuration says "sandbox": {"off": true}`},
	} {
		c, err := confineAgent(tc.r)
		if err != nil || c.spec != nil || len(c.warnings) != 1 || !strings.Contains(c.warnings[0], tc.want) {
			t.Errorf("%+v: %+v, %v; want unconfined, saying %q", tc.r, c, err, tc.want)
		}
	}
	for _, bad := range []confineRequest{{mode: "strict", cfg: cfg}, {mode: "auto", cfg: cfg, net: []string{"example.com"}}, {mode: "auto", cfg: cfg, net: []string{":443"}}} {
		if _, err := confineAgent(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// A fresh user has no ~/.claude.json, which Landlock cannot grant: the start creates it
// holding `{}` (which claude takes), with ~/.claude, and leaves an existing one as it is.
func TestMakeStateDirsCreatesClaudeJSON(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	r := confineRequest{name: "claude", spec: agentproc.Spec{Command: "claude-agent-acp"}, cfg: &config.File{}}
	makeStateDirs(r, &config.AgentSandbox{})
	state := filepath.Join(home, ".claude.json")
	got, err := os.ReadFile(state)
	if err != nil || string(got) != "{}\n" {
		t.Fatalf("~/.claude.json: %q, %v; want {}", got, err)
	}
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("~/.claude.json mode: %v, %v; want 0600", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(home, ".claude")); err != nil || !fi.IsDir() {
		t.Errorf("~/.claude: %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json.backup")); !os.IsNotExist(err) {
		t.Errorf("~/.claude.json.backup was created: %v", err)
	}
	os.WriteFile(state, []byte(`{"userID":"x"}`), 0o600)
	makeStateDirs(r, &config.AgentSandbox{})
	if got, _ := os.ReadFile(state); string(got) != `{"userID":"x"}` {
		t.Errorf("an existing ~/.claude.json was rewritten: %q", got)
	}
	codex := confineRequest{name: "codex", spec: agentproc.Spec{Command: "codex-acp"}, cfg: &config.File{}}
	os.Remove(state)
	makeStateDirs(codex, &config.AgentSandbox{})
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("codex's start created ~/.claude.json: %v", err)
	}
}
