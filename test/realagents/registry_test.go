//go:build linux

package realagents

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// TestRegistryNpxAgent installs claude-agent-acp from an ACP registry served on 127.0.0.1
// as an npx distribution, and runs it by its id: the real npx resolves the package from
// the npm install the suite made (a workspace whose node_modules has it at the pinned
// version: npx runs a project's own packages without asking npm's registry), the agent
// answers through the scripted model. Where npx does not have the package, `parley
// agents` says it needs a download, and with npm offline the start fails with npx's own
// error.
func TestRegistryNpxAgent(t *testing.T) {
	parleyBinary(t)
	var claude *agentDef
	for _, a := range agentDefs {
		if a.name == "claude" {
			claude = a
		}
	}
	requireInstalled(t, claude)
	version := pinnedVersion(t, claude.pkg)
	spec := claude.pkg + "@" + version
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"version":"1.0.0","agents":[{"id":"claude-acp","name":"Claude Agent","version":%q,
			"description":"ACP wrapper for Anthropic's Claude","distribution":{"npx":{"package":%q,"env":{"NODE_OPTIONS":"--require /nonexistent.js"}}}}]}`, version, spec)
	}))
	defer srv.Close()

	model := newModel(t)
	sb := newSandbox(t, claude, model)
	// npm_config_offline: npm may use nothing but what is on this machine, as offline.
	sb.env = append(sb.env, "PARLEY_REGISTRY_URL="+srv.URL+"/registry.json", "npm_config_offline=true",
		"npm_config_cache="+filepath.Join(sb.root, "npm-cache"), "npm_config_update_notifier=false")
	// The workspace is a Node project that has the agent installed.
	sb.writeFile(filepath.Join(sb.workspace, "package.json"), `{"private":true,"dependencies":{"`+claude.pkg+`":"`+version+`"}}`)
	if err := os.Symlink(modules(), filepath.Join(sb.workspace, "node_modules")); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(sb.root, "elsewhere")
	os.MkdirAll(elsewhere, 0o700)

	out, errb, code := sb.parley(t, sb.workspace, "agents", "install", "claude-acp")
	if code != 0 || !strings.Contains(out, "Installed claude-acp "+version+": npx --yes "+spec) {
		t.Fatalf("install: exit %d\n%s%s", code, out, errb)
	}
	out, errb, _ = sb.parley(t, sb.workspace, "agents")
	if line := lineOf(out, "claude-acp "); !strings.Contains(line, "registry "+version) || !strings.HasSuffix(strings.TrimSpace(line), "yes") || strings.Contains(line, "NODE_OPTIONS") {
		t.Errorf("in the project that has it, parley agents says:\n%s\n%s", out, errb)
	}
	out, errb, _ = sb.parley(t, elsewhere, "agents")
	if line := lineOf(out, "claude-acp "); !strings.Contains(line, "needs a download ("+spec+" through npx") {
		t.Errorf("where npx does not have it, parley agents says:\n%s\n%s", out, errb)
	}

	out, errb, code = sb.parley(t, sb.workspace, "run", "--agent", "claude-acp", "--cwd", sb.workspace, markPlain+" Say hello.")
	if code != 0 || !strings.Contains(out, plainReply) {
		t.Errorf("run --agent claude-acp: exit %d\nstdout:\n%s\nstderr:\n%s%s", code, out, errb, sb.agentLog())
	}
	if strings.Contains(errb, "first downloads") {
		t.Errorf("a start that needs no download says it downloads:\n%s", errb)
	}

	out, errb, code = sb.parley(t, elsewhere, "run", "--agent", "claude-acp", "--cwd", elsewhere, markPlain+" Say hello.")
	t.Logf("offline, where npx must download: exit %d\n%s", code, errb)
	if code != 1 || !strings.Contains(errb, "npm error") || !strings.Contains(errb, "first downloads "+spec+" through npx") {
		t.Errorf("run where npx must download, offline: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
}

// parley runs parley in dir in the sandbox and returns its stdout, stderr and status.
func (sb *sandbox) parley(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, parleyBinary(t), args...)
	cmd.Env, cmd.Dir = sb.env, dir
	cmd.WaitDelay = 5 * time.Second
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("parley %v hung\n%s%s", args, out.String(), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func lineOf(text, prefix string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// pinnedVersion is the version agents/package.json pins pkg at.
func pinnedVersion(t *testing.T, pkg string) string {
	t.Helper()
	var pins struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	data, err := os.ReadFile(filepath.Join(repoDir(), "test", "realagents", "agents", "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &pins)
	}
	if err != nil || pins.Dependencies[pkg] == "" {
		t.Fatalf("reading the pinned version of %s: %v", pkg, err)
	}
	return pins.Dependencies[pkg]
}
