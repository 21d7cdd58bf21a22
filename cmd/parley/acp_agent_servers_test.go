package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
)

// An agent defined only by --agent-servers (the VS Code extension's parley.agentServers
// setting) is one `parley acp` knows: a session with it runs it, and it is the default
// agent when --agent names it. Without the flag, the same name is unknown.
func TestACPAgentServersFlagDefinesAgents(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	servers := fmt.Sprintf(`{"my-eliza":{"command":%q,"args":["eliza"],"env":{}}}`, self(t))
	// In the environment, as the extension gives them (the flag is the same JSON).
	client := &acpClient{}
	conn, _ := startACP(t, w, client, acp.ClientCapabilities{}, []string{"PARLEY_AGENT_SERVERS=" + servers}, "--agent", "my-eliza")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	s, err := conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: w.dir, MCPServers: []acp.MCPServer{}, Meta: acp.Meta{"parley": []byte(`{"agent":"my-eliza"}`)}})
	if err != nil {
		t.Fatalf("a session with the agent of --agent-servers: %v", err)
	}
	resp, err := promptACP(t, conn, s.SessionID, acp.TextBlock("I am worried about my tests"))
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("a prompt to the agent of --agent-servers: %v, %v", resp, err)
	}

	out, err := parleyCmd(t, w, "acp", "--agent", "my-eliza", "--cwd", w.dir).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "my-eliza") {
		t.Errorf("without --agent-servers, --agent my-eliza should be refused naming it: %v\n%s", err, out)
	}
	out, err = parleyCmd(t, w, "acp", "--agent-servers", `{"x":{}}`, "--cwd", w.dir).CombinedOutput()
	if err == nil || !strings.Contains(string(out), `agent "x": needs a name and a command`) {
		t.Errorf("an agent without a command should be refused: %v\n%s", err, out)
	}
}

// parleyCmd is parley with args in w, its stdin empty.
func parleyCmd(t *testing.T, w workspaceFixture, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), self(t), args...)
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), w.env...)
	cmd.Dir = w.dir
	return cmd
}
