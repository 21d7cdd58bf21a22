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

func TestChangesLimitsAndUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"changes":{"max_age_days":7,"max_mib":64,"max_fle_kib":5},"permisions":[]}`), 0o600)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	l := f.Changes.Limits()
	if l.MaxAge.Hours() != 7*24 || l.MaxBytes != 64<<20 || l.MaxFileBytes != 0 {
		t.Errorf("limits %+v", l)
	}
	got := strings.Join(f.Warnings, "\n")
	if len(f.Warnings) != 2 || !strings.Contains(got, `unknown key "permisions"`) || !strings.Contains(got, `unknown key "changes.max_fle_kib"`) {
		t.Errorf("warnings:\n%s", got)
	}
	os.WriteFile(path, []byte(`{"changes":{"max_mib":-1}}`), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "changes") {
		t.Errorf("a negative limit: %v", err)
	}
}
