package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	missing, err := Load(filepath.Join(dir, "none.json"))
	if err != nil || len(missing.AgentServers) != 0 || len(missing.Permissions) != 0 {
		t.Errorf("a missing file: %+v, %v; want an empty configuration", missing, err)
	}
	path := filepath.Join(dir, "config.json")
	for _, tc := range []struct{ body, wantErr string }{
		{`{"agent_servers":{"a":{"command":"x"}},"permissions":[{"tool":"read:*","action":"allow"}]}`, ""},
		{`{"agent_servers":{"a":{}}}`, "agent_servers.a has no command"},
		{`{"permissions":[{"tool":"*","action":"maybe"}]}`, `permissions[0]: action must be ask, allow or reject, not "maybe"`},
		{`{`, path},
		{`{"sensitive_files":[{"pattern":"**/secrets/**","action":"ask"},{"pattern":"**/package.json","action":"allow"}]}`, ""},
		{`{"sensitive_files":[{"pattern":"**/.env","action":true}]}`, "sensitive_files"},
		{`{"sensitive_files":[{"pattern":"**/.env","action":"sensitive"}]}`, `write "ask" or "allow"`},
		{`{"registry_url":"https://mirror.example/registry.json"}`, ""},
		{`{"registry_url":"/srv/mirror/registry.json"}`, ""},
		{`{"registry_url":"mirror/registry.json"}`, "registry_url must be"},
	} {
		os.WriteFile(path, []byte(tc.body), 0o600)
		_, err := Load(path)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.wantErr)
		}
	}
}

func TestSensitiveFilesComeAfterTheDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"sensitive_files":[{"pattern":"**/secrets/**","action":"ask"},{"pattern":"**/package.json","action":"allow"}]}`), 0o600)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := f.FileRules()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{".env": true, "src/secrets/key.txt": true, "package.json": false, "main.go": false} {
		if got, _ := rules.Sensitive(path); got != want {
			t.Errorf("%s sensitive = %v, want %v", path, got, want)
		}
	}
}

func TestLoadSaysWhereAndWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	os.WriteFile(path, []byte("{\n  \"agent_servers\": {\n    \"mine\": {\"command\": \"x\",}\n  }\n}\n"), 0o644)
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path+":3:") {
		t.Errorf("a syntax error does not name its line: %v", err)
	}
	os.WriteFile(path, []byte("{\"agent_servers\": {\"mine\": {\"command\": \"x\", \"argz\": [\"-v\"]}}, \"permisions\": []}"), 0o644)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 2 || !strings.Contains(f.Warnings[0], `"permisions"`) || !strings.Contains(f.Warnings[1], `agent_servers.mine: unknown key "argz"`) {
		t.Errorf("the unknown keys are not named: %q", f.Warnings)
	}
	os.WriteFile(path, []byte("{\"permissions\": {\"tool\": \"x\"}}"), 0o644)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path+":1:") {
		t.Errorf("a type error does not name its place: %v", err)
	}
}
