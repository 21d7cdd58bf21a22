package vscodelm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// The sign-in command names an agent parley knows by its name, and any other by its
// command line, never with the values of its variables.
func TestLoginArgs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	cfg := `{"agent_servers":{"mine":{"command":"/opt/mine/agent","args":["--acp"],"env":{"MINE_TOKEN":"s3cret"}}}}`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	def := func(raw string) AgentDef {
		d, err := ParseAgent(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	s := &Server{config: func() (*config.File, error) { return config.Load(path) }}
	for _, tt := range []struct {
		name string
		def  AgentDef
		want []string
	}{
		{"configured, the same command", def(`{"id":"mine","command":"/opt/mine/agent","args":["--acp"],"env":[{"name":"MINE_TOKEN","value":"s3cret"}]}`),
			[]string{"login", "--agent", "mine", "--method", "token"}},
		{"configured name, another command", def(`{"id":"mine","command":"/opt/mine/agent","args":["--other"],"env":[]}`),
			[]string{"login", "--agent-command", "/opt/mine/agent --other", "--method", "token"}},
		{"not configured", def(`{"id":"yours","command":"/opt/your agent","args":["--acp"],"env":[{"name":"K","value":"secret-value"}]}`),
			[]string{"login", "--agent-command", "'/opt/your agent' --acp", "--method", "token"}},
		{"eliza", def(`{"eliza":{"deterministic":true}}`), []string{"login", "--agent", "eliza", "--method", "token"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := s.loginArgs(tt.def, "token")
			if !slices.Equal(got, tt.want) {
				t.Errorf("loginArgs = %q, want %q", got, tt.want)
			}
			if strings.Contains(strings.Join(got, " "), "secret") {
				t.Errorf("loginArgs %q shows a variable's value", got)
			}
		})
	}
}

// The sign-in command line VS Code shows quotes what a shell would read otherwise: a
// single quote, a $, a newline or a control character in the agent's command.
func TestSignInCommandQuotesAwkwardWords(t *testing.T) {
	def, err := ParseAgent(json.RawMessage(`{"id":"odd","command":"/opt/it's agent","args":["--key=$KEY","a\nb","\u001b[2K"],"env":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{}
	got := s.loginArgs(def, "token")
	want := []string{"login", "--agent-command", `"/opt/it's agent" '--key=$KEY' $'a\nb' $'\x1b[2K'`, "--method", "token"}
	if !slices.Equal(got, want) {
		t.Errorf("loginArgs = %q, want %q", got, want)
	}
	text := signInText("odd", []parleyapi.SignInMethod{{Name: "Token", Command: got}})
	// The joined command is one word again, quoted in turn: a shell gives back exactly
	// what loginArgs returned.
	if line := "`parley login --agent-command " + `"\"/opt/it's agent\" '--key=\$KEY' \$'a\\nb' \$'\\x1b[2K'" --method token` + "`"; !strings.Contains(text, line) {
		t.Errorf("the sign-in text lacks %s:\n%s", line, text)
	}
}
