package interop

import (
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
	"github.com/parley-acp/parley/internal/testbin"
)

// TestClientDrivesParleyAgent drives `parley agent` (with a scripted model) with the SDK
// client: a command that needs approval (its permission request schema-checked, all
// four kinds offered, the rejection answered), then session/load replaying the turn and
// session/close.
func TestClientDrivesParleyAgent(t *testing.T) {
	requirePeers(t)
	args, _ := json.Marshal(map[string]string{"command": "rm -f build.log"})
	fake := fakellm.New(t,
		fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: "run_terminal_command", Arguments: args}}},
		fakellm.Reply{Content: []string{"I left build.log alone."}},
	)
	env := testbin.HomeEnv(tempDir(t))
	agent := "env " + strings.Join(env, " ") + " " + parleyBinary(t) + " agent --model ollama:m --base-url " + fake.URL()
	const prompt = "make a file"
	s := runClient(t, agent, "--permission", "reject_once", "--script", writeScript(t,
		map[string]any{"op": "prompt", "session": "a", "text": prompt},
		map[string]any{"op": "load", "session": "a"},
		map[string]any{"op": "close", "session": "a"},
	))
	s.requireClean(t, "parley agent")
	if !s.OK || len(s.Steps) != 3 {
		t.Fatalf("ok %v, %d steps, error %q\nagent stderr:\n%s", s.OK, len(s.Steps), s.Error, s.AgentStderr)
	}
	if !s.AgentCapabilities.LoadSession {
		t.Error("parley agent does not advertise loadSession")
	}
	turn, load := s.Steps[0], s.Steps[1]
	if turn.StopReason != "end_turn" || turn.Text != "I left build.log alone." {
		t.Errorf("turn: stopReason %q, text %q", turn.StopReason, turn.Text)
	}
	if len(turn.Permissions) != 1 {
		t.Fatalf("%d permission requests, want 1", len(turn.Permissions))
	}
	offered := slices.Compact(slices.Sorted(slices.Values(turn.Permissions[0].Offered)))
	if strings.Join(offered, ",") != "allow_always,allow_once,reject_always,reject_once" {
		t.Errorf("offered kinds %v, want the four spec kinds", offered)
	}
	if load.UserText != prompt || load.Text != turn.Text {
		t.Errorf("load replayed user %q and agent %q", load.UserText, load.Text)
	}
}
