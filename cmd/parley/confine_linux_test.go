package main

// Issue 27: the agent itself is confined, not only the commands that pass through parley.
// The escape agent (escape_agent_test.go) never asks parley for anything and tries, itself
// and in shell commands of its own, to write outside its workspace, read the user's
// secrets, reach the user's servers and connect where --sandbox-net does not allow.

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/parley-acp/parley/internal/testbin"
)

// listen is a listener the test serves on network (tcp on 127.0.0.1, or unix at addr),
// closed when the test ends.
func listen(t *testing.T, network, addr string) string {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().String()
}

// attempts are what the escape agent said of each attempt: "ok" or "refused (…)".
func attempts(stdout string) map[string]string {
	said := map[string]string{}
	for _, line := range strings.Split(stdout, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			said[k] = v
		}
	}
	return said
}

// TestConfinedAgentCannotEscape: with default settings (and --sandbox-net), the agent and
// its own commands cannot write ~/.bashrc, another project or /tmp outside its own, cannot
// read a planted SSH key or AWS credentials, cannot reach a Unix socket server of the
// user's, and cannot connect to another 127.0.0.1 port; it still writes its workspace and
// its TMPDIR, runs Node children (socketpairs), and connects where it was allowed. With
// --sandbox off every attempt succeeds: the attempts are real.
func TestConfinedAgentCannotEscape(t *testing.T) {
	if sandbox.ABI() == 0 {
		t.Skip("this kernel offers no Landlock: agents cannot be confined here")
	}
	env := isolatedXDG(t)
	home := homeOf(t, env)
	ws, other, outside := t.TempDir(), t.TempDir(), t.TempDir()
	secrets := map[string]string{
		filepath.Join(home, ".ssh", "id_ed25519"):   "-----BEGIN OPENSSH PRIVATE KEY-----",
		filepath.Join(home, ".aws", "credentials"):  "[default]\naws_secret_access_key = x",
		filepath.Join(home, ".bashrc"):              "# mine\n",
		filepath.Join(other, "main.go"):             "package main\n",
		filepath.Join(home, ".config", "app", "ok"): "readable",
		filepath.Join(ws, "notes.txt"):              "hello\n",
	}
	plant(t, secrets)
	sock := listen(t, "unix", filepath.Join(t.TempDir(), "user.sock"))
	allowed, forbidden := listen(t, "tcp", "127.0.0.1:0"), listen(t, "tcp", "127.0.0.1:0")

	escapes := []string{
		"write:" + filepath.Join(home, ".bashrc"), "write:" + filepath.Join(other, "main.go"), "write:" + filepath.Join(outside, "x"),
		"read:" + filepath.Join(home, ".ssh", "id_ed25519"), "read:" + filepath.Join(home, ".aws", "credentials"),
		"unix:" + sock, "tcp:" + forbidden,
	}
	allowedWork := []string{"write:" + filepath.Join(ws, "notes.txt"), "tmp:-", "read:" + filepath.Join(home, ".config", "app", "ok"), "tcp:" + allowed}
	if _, err := exec.LookPath("node"); err == nil {
		allowedWork = append(allowedWork, "node:-")
	}
	prompt := strings.Join(append(append([]string(nil), escapes...), allowedWork...), " ")
	// Through the proxy parley gives a confined agent: a tunnel only to what
	// --sandbox-net allows, host and port (Landlock alone knows ports only).
	proxied := map[string]bool{"proxy:" + allowed: true, "proxy:" + forbidden: false, "proxy:" + strings.Replace(allowed, "127.0.0.1", "127.0.0.2", 1): false}
	confinedPrompt := prompt
	for a := range proxied {
		confinedPrompt += " " + a
	}

	r := parleyIn(t, ws, env, "", "run", "--agent-command", fakeAgentCommand(t, "escape"), "--sandbox-net", allowed, confinedPrompt)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	said := attempts(r.stdout)
	t.Logf("confined (Landlock ABI %d):\n%s", sandbox.ABI(), r.stdout)
	for _, a := range escapes {
		if v := said[a]; !strings.HasPrefix(v, "refused") {
			t.Errorf("%s: %q, want it refused", a, v)
		}
	}
	for _, a := range allowedWork {
		if v := said[a]; v != "ok" {
			t.Errorf("%s: %q, want ok", a, v)
		}
	}
	for a, ok := range proxied {
		if v := said[a]; ok != (v == "ok") {
			t.Errorf("%s: %q, want it allowed: %v", a, v, ok)
		}
	}
	if !strings.Contains(r.stderr, "the agent tried to reach "+forbidden+", which --sandbox-net does not allow") {
		t.Errorf("parley did not say which destination it refused; stderr:\n%s", r.stderr)
	}
	for path, content := range secrets {
		if b, _ := os.ReadFile(path); string(b) != content && path != filepath.Join(ws, "notes.txt") {
			t.Errorf("%s changed: %q", path, b)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Errorf("the agent created a file in another temporary directory")
	}

	r = parleyIn(t, ws, env, "", "run", "--sandbox", "off", "--agent-command", fakeAgentCommand(t, "escape"), prompt)
	if r.code != 0 || !strings.Contains(r.stderr, "is not confined (--sandbox off)") {
		t.Fatalf("--sandbox off: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	said = attempts(r.stdout)
	for _, a := range append(escapes, allowedWork...) {
		if v := said[a]; v != "ok" {
			t.Errorf("--sandbox off: %s: %q, want ok (the attempt itself must work)", a, v)
		}
	}
}

// TestConfinedAgentStateIsDeclaredInConfig: an agent of agent_servers that keeps its
// state in its own directory fails confined, and parley names the path and how to grant
// it; declared in its "sandbox" entry, the agent starts, and parley agents --json shows
// what it may write and may not read.
func TestConfinedAgentStateIsDeclaredInConfig(t *testing.T) {
	if sandbox.ABI() == 0 {
		t.Skip("this kernel offers no Landlock: agents cannot be confined here")
	}
	env := isolatedXDG(t)
	home := homeOf(t, env)
	ws := t.TempDir()
	writeConfig := func(sandboxEntry string) {
		t.Helper()
		plant(t, map[string]string{filepath.Join(parleyConfigDir(env), "config.json"): `{"agent_servers": {"mine": {"command": "env", "args": ["PARLEY_TEST_ROLE=fake-agent", "` + self(t) + `", "writes-state"]` + sandboxEntry + `}}}`})
	}
	state := filepath.Join(home, ".myagent", "state.json")

	writeConfig("")
	r := parleyIn(t, ws, env, "", "run", "--agent", "mine", "tmp:-")
	if r.code != 1 || !strings.Contains(r.stderr, "refused the agent a write to "+state) || !strings.Contains(r.stderr, "--sandbox-write "+filepath.Dir(state)) {
		t.Errorf("a refused write: exit %d; stderr:\n%s", r.code, r.stderr)
	}

	writeConfig(`, "sandbox": {"write": ["~/.myagent"]}`)
	r = parleyIn(t, ws, env, "", "run", "--agent", "mine", "tmp:-")
	if r.code != 0 || !strings.Contains(r.stdout, "tmp:- ok") {
		t.Fatalf("declared: exit %d; stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(state); err != nil {
		t.Errorf("the agent's state was not written: %v", err)
	}

	r = parleyIn(t, ws, env, "", "agents", "--json")
	var list []struct {
		Name        string
		Confinement struct {
			Confined bool
			Write    []string
			DenyRead []string `json:"deny_read"`
			Net      any
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("parley agents --json: %v\n%s", err, r.stdout)
	}
	found := false
	for _, a := range list {
		if a.Name != "mine" {
			continue
		}
		found = true
		c := a.Confinement
		if !c.Confined || !slices.Contains(c.Write, filepath.Join(home, ".myagent")) || !slices.Contains(c.DenyRead, filepath.Join(home, ".ssh")) || c.Net != "open" {
			t.Errorf("mine's confinement: %+v", c)
		}
	}
	if !found {
		t.Errorf("parley agents --json does not list mine:\n%s", r.stdout)
	}
}

// BenchmarkAgentStartConfined: what confinement adds to an agent's start, as the user
// sees it: `parley run --agent eliza` (start, one turn, stop) confined and with
// --sandbox off, alternating in the same process; the ratio is confined over off. The
// denied paths' walk grows with the entries beside them (the home directory's, /'s):
// here HOME is a temporary directory, so /tmp's entries count.
func BenchmarkAgentStartConfined(b *testing.B) {
	if sandbox.ABI() == 0 {
		b.Skip("this kernel offers no Landlock: agents cannot be confined here")
	}
	env := testbin.HomeEnv(b.TempDir())
	dir := b.TempDir()
	run := func(args ...string) time.Duration {
		cmd := exec.Command(self(b), append([]string{"run", "--agent", "eliza"}, append(args, "I am worried")...)...)
		cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), env...)
		cmd.Dir = dir
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return time.Since(start)
	}
	var confined, off time.Duration
	n := 0
	for b.Loop() {
		off += run("--sandbox", "off")
		confined += run()
		n++
	}
	b.ReportMetric(float64(confined.Milliseconds())/float64(n), "confined-ms/op")
	b.ReportMetric(float64(off.Milliseconds())/float64(n), "off-ms/op")
	b.ReportMetric(float64(confined)/float64(off), "ratio")
}
