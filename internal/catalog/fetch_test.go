package catalog

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/registry"
	"github.com/parley-acp/parley/internal/testbin"
)

func TestMain(m *testing.M) {
	cleanup, err := testbin.Isolate() // New reads the installed agents under the data directory
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

func writePackage(t *testing.T, prefix, name, version string) {
	t.Helper()
	dir := filepath.Join(prefix, "node_modules", filepath.FromSlash(name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"`+name+`","version":"`+version+`"}`), 0o644)
}

// TestNeedsDownloadLooksWhereNpxLooks: npx's own cache (by the hash npx gives the
// command's packages), the project around the working directory, a pinned version.
func TestNeedsDownloadLooksWhereNpxLooks(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("npm_config_cache", cache)
	t.Setenv("npm_config_prefix", t.TempDir())
	a := Agent{Fetch: &Fetch{Runner: "npx", Package: "@scope/agent@1.2.0"}}
	work := t.TempDir()
	if !a.NeedsDownload(work) {
		t.Error("an empty cache has the package")
	}
	sum := sha512.Sum512([]byte("@scope/agent@1.2.0"))
	npxDir := filepath.Join(cache, "_npx", hex.EncodeToString(sum[:])[:16])
	writePackage(t, npxDir, "@scope/agent", "1.1.0")
	if !a.NeedsDownload(work) {
		t.Error("another version in npx's cache counts")
	}
	writePackage(t, npxDir, "@scope/agent", "1.2.0")
	if a.NeedsDownload(work) {
		t.Error("the package in npx's cache is not found")
	}

	b := Agent{Fetch: &Fetch{Runner: "npx", Package: "@scope/other@2.0.0"}}
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, "package.json"), []byte(`{}`), 0o644)
	writePackage(t, project, "@scope/other", "2.0.0")
	sub := filepath.Join(project, "src")
	os.Mkdir(sub, 0o755)
	if b.NeedsDownload(sub) {
		t.Error("the project's own node_modules is not found")
	}
	if !b.NeedsDownload(work) {
		t.Error("another directory's project counts")
	}
	if (Agent{}).NeedsDownload(work) {
		t.Error("an agent without a runner needs a download")
	}
}

func TestNeedsDownloadUvx(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("UV_CACHE_DIR", cache)
	t.Setenv("UV_TOOL_DIR", t.TempDir())
	a := Agent{Fetch: &Fetch{Runner: "uvx", Package: "my-agent==0.3.0"}}
	if !a.NeedsDownload("") {
		t.Error("an empty uv cache has the package")
	}
	os.MkdirAll(filepath.Join(cache, "archive-v0", "abc", "lib", "python3.12", "site-packages", "my_agent-0.3.0.dist-info"), 0o755)
	if a.NeedsDownload("") {
		t.Error("the package in uv's cache is not found")
	}
}

// TestInstalledAgentsAreKnown: an agent installed from the registry is known by its id,
// replaces a built-in of that name, and gives way to the user's configuration.
func TestInstalledAgentsAreKnown(t *testing.T) {
	dir := t.TempDir()
	in := &registry.Installer{Dir: dir}
	ctx := t.Context()
	for _, e := range []registry.Entry{
		{ID: "their-agent", Version: "1.0.0", Distribution: registry.Distribution{Npx: &registry.Package{Package: "their-agent@1.0.0", Args: []string{"--acp"}, Env: map[string]string{"MODE": "acp"}}}},
		{ID: "gemini", Version: "9.0.0", Distribution: registry.Distribution{Npx: &registry.Package{Package: "@google/gemini-cli@9.0.0", Args: []string{"--acp"}}}},
		{ID: "mine", Version: "1.0.0", Distribution: registry.Distribution{Npx: &registry.Package{Package: "mine@1.0.0"}}},
	} {
		if _, err := in.Install(ctx, e, "test"); err != nil {
			t.Fatal(err)
		}
	}
	c := NewIn(&config.File{AgentServers: map[string]config.AgentServer{"mine": {Command: "sh"}}}, dir)
	a, err := c.Lookup("their-agent")
	want := agentproc.Spec{Command: "npx", Args: []string{"--yes", "their-agent@1.0.0", "--acp"}, Env: []string{"MODE=acp"}}
	if err != nil && !strings.Contains(err.Error(), "npx") {
		t.Fatal(err)
	}
	if a.Spec.String() != want.String() || strings.Join(a.Spec.Env, " ") != "MODE=acp" || a.Fetch == nil || a.Fetch.Package != "their-agent@1.0.0" || a.Source != "registry 1.0.0" {
		t.Errorf("their-agent: %+v", a)
	}
	if g, _ := c.Lookup("gemini"); g.Installed == nil || g.Installed.Version != "9.0.0" {
		t.Errorf("the installed gemini does not replace the built-in: %+v", g)
	}
	if m, _ := c.Lookup("mine"); m.Installed != nil || m.Spec.Command != "sh" {
		t.Errorf("the configuration does not win: %+v", m)
	}
	os.WriteFile(filepath.Join(dir, "installed.json"), []byte("{"), 0o600)
	if c := NewIn(&config.File{}, dir); len(c.Warnings()) != 1 {
		t.Errorf("a broken record: warnings %q", c.Warnings())
	}
}

func TestFetchOf(t *testing.T) {
	for _, tc := range []struct {
		line, runner, pkg string
	}{
		{"npx -y @agentclientprotocol/claude-agent-acp", "npx", "@agentclientprotocol/claude-agent-acp"},
		{"npx --yes -p @google/gemini-cli gemini --acp", "npx", "@google/gemini-cli"},
		{"npx --package=@x/y@1.0.0 y --acp", "npx", "@x/y@1.0.0"},
		{"/usr/local/bin/npx --registry http://mirror some-agent@2", "npx", "some-agent@2"},
		{"uvx --from my-agent==0.3 my-agent acp", "uvx", "my-agent==0.3"},
		{"uvx --python 3.12 fast-agent-acp", "uvx", "fast-agent-acp"},
		{"node agent.mjs", "", ""},
		{"npx", "", ""},
	} {
		spec, err := ParseCommand(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		f := FetchOf(spec.Command, spec.Args)
		switch {
		case tc.runner == "" && f != nil:
			t.Errorf("%s: %+v, want none", tc.line, f)
		case tc.runner != "" && (f == nil || f.Runner != tc.runner || f.Package != tc.pkg):
			t.Errorf("%s: %+v, want %s %s", tc.line, f, tc.runner, tc.pkg)
		}
	}
}
