package cli

import "testing"

// The parley login line parley run suggests quotes what a shell would read otherwise in
// the agent command and directory it repeats: a single quote, a $, a newline, a control
// character.
func TestLoginCommandQuotesAwkwardWords(t *testing.T) {
	for _, tt := range []struct {
		opts sessionOptions
		want string
	}{
		{sessionOptions{agentName: "eliza"}, "parley login --agent eliza --method token"},
		{sessionOptions{agentCommand: "my-agent --acp", cwdFlag: "/srv/it's here"},
			`parley login --agent-command 'my-agent --acp' --cwd "/srv/it's here" --method token`},
		{sessionOptions{agentCommand: "agent --key=$KEY", cwdFlag: "a\nb\x1b[2K"},
			`parley login --agent-command 'agent --key=$KEY' --cwd $'a\nb\x1b[2K' --method token`},
	} {
		if got := loginCommand(tt.opts, "token"); got != tt.want {
			t.Errorf("loginCommand(%+v) = %s, want %s", tt.opts, got, tt.want)
		}
	}
}
