package safety

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

func TestDefaultFileRules(t *testing.T) {
	rules, err := WithDefaults(nil)
	if err != nil {
		t.Fatal(err)
	}
	sensitive := []string{
		".env", ".ENV", ".env.local", "config/.env.production", ".envrc", "deploy/prod.secrets.json",
		"keys/server.pem", "tls/Server.KEY", "id_rsa", ".ssh/id_ed25519.pub", "certs/ca.crt",
		"package.json", "web/package-lock.json", "yarn.lock", "go.mod", "go.sum", "Cargo.lock", "requirements-dev.txt",
		".github/workflows/ci.yml", ".GitHub/Workflows/release.yaml", ".gitlab-ci.yml",
		".vscode/settings.json", ".vscode/tasks.json", "proj.code-workspace", ".idea/workspace.xml",
		".git/config", ".git/hooks/pre-commit", "Dockerfile", "docker-compose.override.yml", "Makefile",
		"AGENTS.md", "sub/CLAUDE.md", ".npmrc", "tsconfig.json",
	}
	for _, p := range sensitive {
		if ok, _ := rules.Sensitive(p); !ok {
			t.Errorf("%s is not sensitive", p)
		}
	}
	for _, p := range []string{"main.go", "README.md", "docs/env.md", "src/environment.ts", "internal/keys.go", "gitignore.txt", "notes/.gitkeep-not"} {
		if ok, r := rules.Sensitive(p); ok {
			t.Errorf("%s is sensitive (%s)", p, r.Pattern)
		}
	}
}

// The last matching rule wins, so a user's rule after the defaults can loosen one of
// them, and a later one tighten it again.
func TestFileRulesLastMatchWins(t *testing.T) {
	rules, err := WithDefaults([]FileRule{
		{Pattern: "**/.env.example", Action: Allow},
		{Pattern: "docs/**", Action: Allow},
		{Pattern: "docs/private/**", Action: Ask},
		{Pattern: "**/*.GO", Action: Ask},
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		".env.example":        false,
		".env":                true,
		"docs/package.json":   false,
		"docs/private/a.md":   true,
		"main.go":             true, // the pattern is matched case-insensitively
		"internal/x/y.go":     true,
		"README.md":           false,
		"/home/u/.ssh/id_rsa": true,
	} {
		got, r := rules.Sensitive(path)
		if got != want {
			t.Errorf("Sensitive(%s) = %v (rule %q), want %v", path, got, r.Pattern, want)
		}
	}
	all, _ := WithDefaults([]FileRule{{Pattern: "**", Action: Allow}})
	if ok, _ := all.Sensitive(".env"); ok {
		t.Error(`a last "**" allow does not allow .env`)
	}
}

func TestSensitivePath(t *testing.T) {
	rules, _ := WithDefaults(nil)
	roots := []string{"/code/proj", "/code/lib"}
	for path, want := range map[string]bool{
		"/code/proj/.env":          true,
		"/code/lib/src/a.go":       false,
		"/code/proj/docs/.git/x":   true,
		"/home/u/.aws/credentials": true,
		"/etc/hosts":               false,
	} {
		if got, _ := rules.SensitivePath(path, roots); got != want {
			t.Errorf("SensitivePath(%s) = %v, want %v", path, got, want)
		}
	}
}

// Rules are written in plain words: "ask" or "allow", never a boolean.
func TestFileRulesConfiguration(t *testing.T) {
	var rules []FileRule
	if err := json.Unmarshal([]byte(`[{"pattern": "**/*.sql", "action": "ask"}, {"pattern": "seed.sql", "action": "allow"}]`), &rules); err != nil {
		t.Fatal(err)
	}
	f, err := NewFileRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := f.Sensitive("db/schema.sql"); !ok {
		t.Error("db/schema.sql is not sensitive")
	}
	if ok, _ := f.Sensitive("seed.sql"); ok {
		t.Error("seed.sql is sensitive")
	}
	for _, bad := range []string{
		`[{"pattern": "**/.env", "action": false}]`,
		`[{"pattern": "**/.env", "value": false}]`,
		`[{"pattern": "**/.env", "action": "deny"}]`,
		`[{"pattern": "", "action": "ask"}]`,
		`[{"pattern": "[", "action": "ask"}]`,
	} {
		var rules []FileRule
		if err := json.Unmarshal([]byte(bad), &rules); err != nil {
			continue
		}
		if _, err := NewFileRules(rules); err == nil {
			t.Errorf("%s was accepted", bad)
		} else if !strings.Contains(err.Error(), "rule 1") {
			t.Errorf("%s: the error %q does not say which rule", bad, err)
		}
	}
}

// Writing a sensitive file from a command is High.
func TestCommandsWritingSensitiveFiles(t *testing.T) {
	rules, _ := WithDefaults([]FileRule{{Pattern: "notes/*.txt", Action: Ask}})
	ctx := tableContext
	ctx.Files = rules
	for _, line := range []string{"echo x > notes/a.txt", "sed -i s/a/b/ .github/workflows/ci.yml", "rm -f go.sum", "cp x .env", "tee -a .vscode/settings.json"} {
		if a := Analyze(line, ctx); a.Tier != High || !strings.Contains(a.Reason(), "sensitive") {
			t.Errorf("%q is %s (%s), want high for a sensitive file", line, a.Tier, a.Reason())
		}
	}
}
