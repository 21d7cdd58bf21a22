package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/parley-acp/parley/internal/config"
)

// TestSignInSaysWhenNoCredentialsAreThere: an agent whose credential files are all
// absent, with no API key set (here or in its own env), may need a sign-in; its file, or
// a key, says otherwise; Eliza never needs one.
func TestSignInSaysWhenNoCredentialsAreThere(t *testing.T) {
	if _, err := exec.LookPath("env"); err != nil {
		t.Skip("no env program to stand for codex-acp")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"CODEX_HOME", "OPENAI_API_KEY", "CODEX_API_KEY"} {
		t.Setenv(k, "")
	}
	cfg := &config.File{AgentServers: map[string]config.AgentServer{
		"mine":       {Command: "env", Args: []string{"codex-acp"}},
		"mine-keyed": {Command: "env", Args: []string{"codex-acp"}, Env: map[string]string{"OPENAI_API_KEY": "sk-x"}},
	}}
	c := NewIn(cfg, t.TempDir())
	mine, keyed := c.agents["mine"], c.agents["mine-keyed"]
	if got := mine.SignIn(); got != "no sign-in found here: parley login --agent mine" {
		t.Errorf("codex with no auth.json: %q", got)
	}
	if got := keyed.SignIn(); got != "" {
		t.Errorf("codex with an API key in its env: %q", got)
	}
	t.Setenv("OPENAI_API_KEY", "sk-x")
	if got := mine.SignIn(); got != "" {
		t.Errorf("codex with an API key: %q", got)
	}
	t.Setenv("OPENAI_API_KEY", "")
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
	os.WriteFile(filepath.Join(home, ".codex", "auth.json"), []byte("{}"), 0o600)
	if got := mine.SignIn(); got != "" {
		t.Errorf("codex with its auth.json: %q", got)
	}
	// The built-ins have their profiles (resolve sets it on every return).
	for _, name := range []string{"eliza", "codex", "claude"} {
		if c.agents[name].Profile == nil {
			t.Errorf("the built-in %s has no profile", name)
		}
	}
	if got := c.agents["eliza"].SignIn(); got != "" {
		t.Errorf("eliza: %q", got)
	}
}
