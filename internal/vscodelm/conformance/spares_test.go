package conformance

// Issue 9, item 7: no waiting for start-up. When the models are listed, the backend starts
// each agent the user configured or chose and opens one session ahead of time, bounded,
// closed when idle, never beside a live conversation of that agent and workspace; a new
// conversation takes it.

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// listModels asks for the models with the given agentServers setting and returns them by
// id, each with the agent definition to send back.
func (c *client) listModels(servers map[string]any) map[string]json.RawMessage {
	c.t.Helper()
	_, result, err := c.await(c.request("lm/provideLanguageModelChatInformation", map[string]any{"agentServers": servers}))
	if err != nil {
		c.t.Fatal(err)
	}
	var res struct {
		Models []struct {
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Agent json.RawMessage `json:"agent"`
		} `json:"models"`
	}
	if err := json.Unmarshal(result, &res); err != nil {
		c.t.Fatal(err)
	}
	models := map[string]json.RawMessage{}
	for _, m := range res.Models {
		if len(m.Agent) == 0 {
			c.t.Errorf("model %s has no agent definition", m.ID)
		}
		models[m.ID] = m.Agent
	}
	return models
}

func fakeServer(mode string) map[string]any {
	return map[string]any{"command": testBin, "args": []string{}, "env": map[string]string{fakeAgentEnv: mode}}
}

func TestSpareSessions(t *testing.T) {
	t.Run("a new conversation takes the spare", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm")
		models := c.listModels(map[string]any{"fake": fakeServer("ok")})
		if models["fake"] == nil || models["eliza"] == nil {
			t.Fatalf("models %v, want the configured fake agent and the built-in eliza", models)
		}
		c.awaitStderr("spare session ready", "agent=fake", "session=fake-1")
		if left := parleyProcesses("eliza"); len(left) > 0 {
			t.Errorf("listing the models started eliza, which the user neither configured nor used: %v", left)
		}

		first := c.conversation(models["fake"]).fakeTurn("hello")
		if first.session != "fake-1" || first.prompt != 1 {
			t.Errorf("the first conversation got session %s prompt %d, want the spare fake-1", first.session, first.prompt)
		}
		c.awaitStderr("took a spare session", "agent=fake")
		// No spare beside a live conversation of the same agent and workspace: an agent
		// that keeps MCP servers per workspace would lose the first one's vscode_tools.
		second := c.conversation(models["fake"]).fakeTurn("hello again")
		if second.session != "fake-2" || second.prompt != 1 {
			t.Errorf("the second conversation got session %s prompt %d, want a new session fake-2", second.session, second.prompt)
		}
		c.awaitStderr("exchange ended", "request=3")
		if n := c.countStderr("opening a spare session", "agent=fake"); n != 1 {
			t.Errorf("%d spare sessions opened for fake, want 1 (none beside a live conversation)", n)
		}
		// Listed again while the conversations are open: still no spare beside them.
		c.listModels(map[string]any{"fake": fakeServer("ok")})
		c.conversation(elizaTagged()).turn(alike)
		c.awaitStderr("exchange ended", "request=5")
		if n := c.countStderr("opening a spare session", "agent=fake"); n != 1 {
			t.Errorf("%d spare sessions opened for fake after listing again, want still 1", n)
		}
		if n := c.countStderr("opening a spare session", "agent=eliza"); n > 0 {
			t.Errorf("a spare was opened for the built-in eliza, which the user neither configured nor used")
		}
	})
	t.Run("bounded", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--spares", "1")
		c.listModels(map[string]any{"fake": fakeServer("ok"), "other": fakeServer("stuck-session")})
		c.conversation(elizaTagged()).turn(alike) // routed after the listing: its spares are decided
		c.awaitStderr("exchange ended", "request=2")
		if n := c.countStderr("opening a spare session"); n != 1 {
			t.Errorf("%d spare sessions opened, want 1 (--spares 1)", n)
		}
	})
	t.Run("closed when idle", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--idle-timeout", "200ms")
		c.listModels(map[string]any{"fake": fakeServer("ok")})
		c.awaitStderr("opening a spare session", "agent=fake")
		c.awaitStderr("closing an unused spare session", "agent=fake")
		if left := waitNoFakeAgent(); len(left) > 0 {
			t.Errorf("the fake agent still runs with no session: %v", left)
		}
	})
	t.Run("a used agent, once its conversations are gone", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--idle-timeout", "300ms")
		c.conversation(elizaTagged()).turn(alike)
		c.awaitStderr("closing an idle conversation")
		c.listModels(nil)
		c.awaitStderr("opening a spare session", "agent=eliza")
	})
	t.Run("none when disabled", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--spares", "0")
		models := c.listModels(map[string]any{"fake": fakeServer("ok")})
		c.conversation(models["fake"]).fakeTurn("hello")
		c.awaitStderr("exchange ended", "request=2")
		if n := c.countStderr("spare session"); n != 0 {
			t.Errorf("%d log lines about spare sessions with --spares 0", n)
		}
	})
}

// waitNoFakeAgent waits, under the hang guard, until no fake agent (this test binary,
// started by parley) runs. Process exit has no event to wait on, so this polls /proc.
func waitNoFakeAgent() []string {
	deadline := time.Now().Add(*hangGuard)
	for {
		var left []string
		for pid := range parleyProcesses("") {
			if argv0(pid) == testBin {
				left = append(left, strconv.Itoa(pid))
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond) // polling the process table, not synchronising with parley
	}
}

func argv0(pid int) string {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	return strings.Split(string(cmdline), "\x00")[0]
}
