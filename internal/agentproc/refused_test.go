package agentproc

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/sandbox"
)

func TestRefusedWriteHintNamesThePath(t *testing.T) {
	spec := &sandbox.AgentSpec{Write: []string{"/ws", "/home/u/.codex"}, DenyRead: []string{"/home/u/.ssh"}}
	for _, tc := range []struct{ tail, want string }{
		{"Error: EACCES: permission denied, open '/home/u/.claude.json'", "--sandbox-write /home/u"},
		{"Error: Permission denied (os error 13) at /home/u/.local/state/x/log", "write to /home/u/.local/state/x/log"},
		{"cat: /home/u/.ssh/id_ed25519: Permission denied", "--sandbox-read /home/u/.ssh/id_ed25519"},
		{"EROFS: read-only file system, mkdir '/opt/thing'", "/opt/thing"},
		{"wrote /ws/a: permission denied", ""},             // inside the workspace: not the sandbox's doing
		{"could not open /home/u/.config/x", ""},           // no refusal
		{"EACCES: permission denied, open '/dev/tty'", ""}, // devices are not the user's to grant
	} {
		got := refusedWriteHint("starting\n"+tc.tail+"\nbye", spec)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%q: got %q, want %q in it", tc.tail, got, tc.want)
		}
	}
}
