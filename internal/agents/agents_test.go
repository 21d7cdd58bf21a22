package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"node agent.mjs --x", []string{"node", "agent.mjs", "--x"}},
		{`  a  'b c'  "d \"e\""  f\ g `, []string{"a", "b c", `d "e"`, "f g"}},
		{`x ''`, []string{"x", ""}},
	} {
		spec, err := parseCommand(tc.line, false)
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if got := append([]string{spec.Command}, spec.Args...); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.line, got, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", "a 'b", `a "b`} {
		if _, err := ParseCommand(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestLookupUnknownNamesTheKnownOnes(t *testing.T) {
	r, err := Load(filepath.Join(t.TempDir(), "missing.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Lookup("nope")
	if err == nil || !strings.Contains(err.Error(), "eliza") {
		t.Errorf("got %v", err)
	}
}

func TestConfigAddsAndReplacesAgents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"agent_servers":{
		"mine":{"command":"sh","args":["-c","exit 0"],"env":{"B":"2","A":"1"}},
		"codex":{"command":"no-such-codex-binary"}}}`), 0o600)
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := r.Lookup("mine")
	if err != nil {
		t.Fatal(err)
	}
	if mine.Spec.Command != "sh" || !slices.Equal(mine.Spec.Args, []string{"-c", "exit 0"}) || !slices.Equal(mine.Spec.Env, []string{"A=1", "B=2"}) || mine.Source != path {
		t.Errorf("mine = %+v", mine)
	}
	if _, err := r.Lookup("codex"); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("a configured agent that is not installed: %v", err)
	}
	if !slices.Contains(r.Names(), "eliza") {
		t.Error("built-ins are gone")
	}
}

func TestBadConfigIsAClearError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"agent_servers":{"x":{}}}`), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "agent_servers.x has no command") {
		t.Errorf("got %v", err)
	}
	os.WriteFile(path, []byte(`{`), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v", err)
	}
}

// On Windows a backslash is part of a path, not an escape.
func TestParseCommandOnWindows(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{`C:\tools\agent.exe --acp`, []string{`C:\tools\agent.exe`, "--acp"}},
		{`"C:\Program Files\nodejs\node.exe" C:\agents\main.mjs --dir "D:\my work\"`, []string{`C:\Program Files\nodejs\node.exe`, `C:\agents\main.mjs`, "--dir", `D:\my work\`}},
		{`npx -y @agentclientprotocol/codex-acp`, []string{"npx", "-y", "@agentclientprotocol/codex-acp"}},
		{`agent '--say "hi"'`, []string{"agent", `--say "hi"`}},
	} {
		spec, err := parseCommand(tc.line, true)
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if got := append([]string{spec.Command}, spec.Args...); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.line, got, tc.want)
		}
	}
}
