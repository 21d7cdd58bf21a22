package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// probeAgent runs probe under the spec of an agent, with tmp as its TMPDIR.
func probeAgent(t *testing.T, spec *AgentSpec, args ...string) map[string]string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	name, wrapped := spec.Wrap(exe, t.TempDir(), "env", append([]string{"PARLEY_SANDBOX_TEST=probe", exe}, args...))
	cmd := exec.Command(name, wrapped[1:]...) // the test binary has no subcommands
	cmd.Env = append(os.Environ(), "PARLEY_SANDBOX_TEST=exec")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	said := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		said[k] = v
	}
	return said
}

// TestAgentSpecDeniesSecretsAndOtherPorts: a denied directory and a denied file cannot
// be read, what lies beside them and beside the directories leading to them can; with
// Net set, only the granted port takes a connection.
func TestAgentSpecDeniesSecretsAndOtherPorts(t *testing.T) {
	abi := ABI()
	if abi == 0 {
		t.Skip("this kernel offers no Landlock")
	}
	home := t.TempDir()
	for name, content := range map[string]string{
		".ssh/id_ed25519": "KEY", ".docker/config.json": "AUTH", ".docker/other": "fine",
		".bashrc": "rc", "project/a": "a",
	} {
		path := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(path), 0o700)
		os.WriteFile(path, []byte(content), 0o600)
	}
	var ports []string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().String())
	}
	allowed, _ := strconv.Atoi(ports[0][strings.LastIndexByte(ports[0], ':')+1:])
	spec := &AgentSpec{
		Write: []string{filepath.Join(home, "project")}, DenyRead: []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".docker/config.json")},
		Net: []string{ports[0]}, Ports: []uint16{uint16(allowed)},
	}
	said := probeAgent(t, spec,
		"read", filepath.Join(home, ".ssh/id_ed25519"), "read", filepath.Join(home, ".docker/config.json"),
		"read", filepath.Join(home, ".docker/other"), "read", filepath.Join(home, ".bashrc"), "read", "/etc/hostname",
		"open", filepath.Join(home, "project/a"), "tcp", ports[0], "tcp", ports[1])
	t.Logf("Landlock ABI %d: %q", abi, said)
	for _, k := range []string{"read " + filepath.Join(home, ".ssh/id_ed25519"), "read " + filepath.Join(home, ".docker/config.json")} {
		if v := said[k]; v == "ok" || v == "" {
			t.Errorf("%s: %q, want it refused", k, v)
		}
	}
	for _, k := range []string{"read " + filepath.Join(home, ".docker/other"), "read " + filepath.Join(home, ".bashrc"), "read /etc/hostname", "open " + filepath.Join(home, "project/a"), "tcp " + ports[0]} {
		if v := said[k]; v != "ok" {
			t.Errorf("%s: %q, want ok", k, v)
		}
	}
	if v := said["tcp "+ports[1]]; abi >= abiNet && (v == "ok" || v == "") {
		t.Errorf("a port not granted took a connection: %q", v)
	}
}
