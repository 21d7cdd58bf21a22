package main

// The command line tried as a new user would (issue 21, item 7).

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestHelpShowsEachCommandOnce(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "--help")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, name := range []string{"chat", "run", "agents", "permissions", "vscodelm", "agent", "eliza"} {
		re := regexp.MustCompile(`(?m)^\s+` + name + `\s`)
		if n := len(re.FindAllString(r.stdout, -1)); n != 1 {
			t.Errorf("%q is listed %d times:\n%s", name, n, r.stdout)
		}
	}
}

func TestFlagsShowTheirRealPlaceholders(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"chat", "run", "agent", "vscodelm", "permissions", "login", "changes", "undo"} {
		r := parley(t, "", cmd, "--help")
		if r.code != 0 {
			t.Fatalf("%s --help: exit %d", cmd, r.code)
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || !strings.HasPrefix(f[0], "--") {
				continue
			}
			switch f[1] {
			case "string", "strings", "stringArray", "int", "parley":
				t.Errorf("%s --help: %s has no real placeholder: %q", cmd, f[0], line)
			}
		}
	}
	r := parley(t, "", "chat", "--help")
	if !strings.Contains(r.stdout, "--agent NAME") {
		t.Errorf("chat --help does not say --agent NAME:\n%s", r.stdout)
	}
}

func TestMissingArgumentPrintsTheUsage(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run")
	if r.code != 2 || !strings.Contains(r.stderr, "needs the PROMPT") || !strings.Contains(r.stderr, "Usage:\n  parley run [flags] PROMPT...") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = parley(t, "", "agents", "install")
	if r.code != 2 || !strings.Contains(r.stderr, "needs the ID") || !strings.Contains(r.stderr, "Usage:\n  parley agents install ID...") {
		t.Errorf("agents install: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestBadAgentSettingsAreErrors(t *testing.T) {
	t.Parallel()
	r := parleyIn(t, t.TempDir(), append(isolatedXDG(t), "PARLEY_INIT_TIMEOUT=soon"), "", "run", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `PARLEY_INIT_TIMEOUT="soon" is not a positive duration`) {
		t.Errorf("a bad PARLEY_INIT_TIMEOUT: exit %d, stderr %q", r.code, r.stderr)
	}
	r = parley(t, "", "run", "--agent-command", "  ", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "--agent-command is empty") {
		t.Errorf("an empty --agent-command: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestConfigErrorsNameTheirPlace(t *testing.T) {
	t.Parallel()
	env := isolatedXDG(t)
	dir := parleyConfigDir(env)
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, "config.json")
	os.WriteFile(path, []byte("{\n  \"permissions\": [\n    {\"tool\": \"x\" \"action\": \"ask\"}\n  ]\n}\n"), 0o600)
	r := parleyIn(t, t.TempDir(), env, "", "run", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, path+":3:") {
		t.Errorf("a syntax error: exit %d, stderr %q", r.code, r.stderr)
	}
	os.WriteFile(path, []byte(`{"agent_server": {}}`), 0o600)
	r = parleyIn(t, t.TempDir(), env, "", "run", "hi")
	if r.code != 0 || !strings.Contains(r.stderr, path+`: unknown key "agent_server" is ignored`) {
		t.Errorf("an unknown key: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestAgentLogOfACommandHasAShortName(t *testing.T) {
	t.Parallel()
	env := isolatedXDG(t)
	r := parleyIn(t, t.TempDir(), env, "", "run", "--agent-command", fakeAgentCommand(t, "scripted"), "say \"hi\"")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var state string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			state = v
		}
	}
	logs, _ := filepath.Glob(filepath.Join(state, "parley", "logs", "*.log"))
	if len(logs) != 1 || !regexp.MustCompile(`^cmd-parley\.test-[0-9a-f]{8}\.log$`).MatchString(filepath.Base(logs[0])) {
		t.Errorf("the logs are %q", logs)
	}
}
