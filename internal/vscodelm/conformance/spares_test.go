package conformance

// Issue 9, item 7: no waiting for start-up. When the models are listed, the backend starts
// each agent the user configured or chose and opens one session ahead of time, bounded,
// closed when idle, never beside a live conversation of that agent and workspace; a new
// conversation takes it.

import (
	"fmt"
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
	c.T.Helper()
	_, result, err := c.Await(c.Request("lm/provideLanguageModelChatInformation", map[string]any{"agentServers": servers}))
	if err != nil {
		c.T.Fatal(err)
	}
	var res struct {
		Models []struct {
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Agent json.RawMessage `json:"agent"`
		} `json:"models"`
	}
	if err := json.Unmarshal(result, &res); err != nil {
		c.T.Fatal(err)
	}
	models := map[string]json.RawMessage{}
	for _, m := range res.Models {
		if len(m.Agent) == 0 {
			c.T.Errorf("model %s has no agent definition", m.ID)
		}
		models[m.ID] = m.Agent
	}
	return models
}

func fakeServer(mode string, env ...string) map[string]any {
	vars := map[string]string{fakeAgentEnv: mode}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		vars[name] = value
	}
	return map[string]any{"command": testBin, "args": []string{}, "env": vars}
}

// prepareSession sends the notification lm/prepareSession for agent, in cwd ("" for none:
// parley's own working directory, where the conversations of these tests work).
func (c *client) prepareSession(modelID string, agent json.RawMessage, cwd string) {
	c.T.Helper()
	params := map[string]any{"modelId": modelID, "agent": agent}
	if cwd != "" {
		params["cwd"] = cwd
	}
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "lm/prepareSession", "params": params})
	if err != nil {
		c.T.Fatal(err)
	}
	c.Write(string(line))
}

// barrier waits until the router has handled everything sent before it: a chat with Eliza
// whose end the router logs after all it did before (--log debug).
func (c *client) barrier() {
	c.T.Helper()
	id := c.conversation(elizaTagged()).Send(user(alike))
	c.OK(id)
	c.AwaitStderr("exchange ended", fmt.Sprintf("request=%d ", id))
}

func TestSpareSessions(t *testing.T) {
	t.Run("a new conversation takes the spare", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm")
		models := c.listModels(map[string]any{"fake": fakeServer("ok")})
		if models["fake"] == nil || models["eliza"] == nil {
			t.Fatalf("models %v, want the configured fake agent and the built-in eliza", models)
		}
		c.AwaitStderr("spare session ready", "agent=fake", "session=fake-1")
		if left := parleyProcesses("eliza"); len(left) > 0 {
			t.Errorf("listing the models started eliza, which the user neither configured nor used: %v", left)
		}

		first := c.conversation(models["fake"]).fakeTurn("hello")
		if first.session != "fake-1" || first.prompt != 1 {
			t.Errorf("the first conversation got session %s prompt %d, want the spare fake-1", first.session, first.prompt)
		}
		c.AwaitStderr("took a spare session", "agent=fake")
		// No spare beside a live conversation of the same agent and workspace: an agent
		// that keeps MCP servers per workspace would lose the first one's vscode_tools.
		second := c.conversation(models["fake"]).fakeTurn("hello again")
		if second.session != "fake-2" || second.prompt != 1 {
			t.Errorf("the second conversation got session %s prompt %d, want a new session fake-2", second.session, second.prompt)
		}
		c.AwaitStderr("exchange ended", "request=3")
		if n := c.CountStderr("opening a spare session", "agent=fake"); n != 1 {
			t.Errorf("%d spare sessions opened for fake, want 1 (none beside a live conversation)", n)
		}
		// Listed again while the conversations are open: still no spare beside them.
		c.listModels(map[string]any{"fake": fakeServer("ok")})
		c.conversation(elizaTagged()).Turn(alike)
		c.AwaitStderr("exchange ended", "request=5")
		if n := c.CountStderr("opening a spare session", "agent=fake"); n != 1 {
			t.Errorf("%d spare sessions opened for fake after listing again, want still 1", n)
		}
		if n := c.CountStderr("opening a spare session", "agent=eliza"); n > 0 {
			t.Errorf("a spare was opened for the built-in eliza, which the user neither configured nor used")
		}
	})
	t.Run("bounded", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--spares", "1")
		c.listModels(map[string]any{"fake": fakeServer("ok"), "other": fakeServer("stuck-session")})
		c.conversation(elizaTagged()).Turn(alike) // routed after the listing: its spares are decided
		c.AwaitStderr("exchange ended", "request=2")
		if n := c.CountStderr("opening a spare session"); n != 1 {
			t.Errorf("%d spare sessions opened, want 1 (--spares 1)", n)
		}
	})
	t.Run("closed when idle", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--idle-timeout", "200ms")
		c.listModels(map[string]any{"fake": fakeServer("ok")})
		c.AwaitStderr("opening a spare session", "agent=fake")
		c.AwaitStderr("closing an unused spare session", "agent=fake")
		if left := waitNoFakeAgent(); len(left) > 0 {
			t.Errorf("the fake agent still runs with no session: %v", left)
		}
	})
	t.Run("a used agent, once its conversations are gone", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--idle-timeout", "300ms")
		c.conversation(elizaTagged()).Turn(alike)
		c.AwaitStderr("closing an idle conversation")
		c.listModels(nil)
		c.AwaitStderr("opening a spare session", "agent=eliza")
	})
	t.Run("none when disabled", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--spares", "0")
		models := c.listModels(map[string]any{"fake": fakeServer("ok")})
		c.conversation(models["fake"]).fakeTurn("hello")
		c.AwaitStderr("exchange ended", "request=2")
		if n := c.CountStderr("spare session"); n != 0 {
			t.Errorf("%d log lines about spare sessions with --spares 0", n)
		}
	})
}

// Issue 9, item 7, and the extension's lm/prepareSession: the model the user chose last in
// the workspace is the signal that its agent is wanted. It gets a spare session by the
// rules of the listing's spares (bounded, closed when idle, none beside a live
// conversation of that agent and workspace), before the spares of agents only configured.
func TestPrepareSession(t *testing.T) {
	t.Run("a new conversation takes the prepared session", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm")
		c.prepareSession("fake-ok", fakeAgent("ok"), "")
		c.AwaitStderr("spare session ready", "agent=fake-ok", "session=fake-1")
		first := c.conversation(fakeAgent("ok")).fakeTurn("hello")
		if first.session != "fake-1" || first.prompt != 1 {
			t.Errorf("the conversation got session %s prompt %d, want the prepared fake-1", first.session, first.prompt)
		}
		c.AwaitStderr("took a spare session", "agent=fake-ok")
	})
	t.Run("none beside a live conversation of that agent and workspace", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm")
		c.conversation(fakeAgent("ok")).fakeTurn("hello")
		c.prepareSession("fake-ok", fakeAgent("ok"), "")
		c.AwaitStderr("asked to prepare a session", "agent=fake-ok")
		c.barrier()
		if n := c.CountStderr("opening a spare session", "agent=fake-ok"); n != 0 {
			t.Errorf("%d spare sessions opened beside the live conversation, want none", n)
		}
	})
	t.Run("in the workspace it names", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm")
		elsewhere := t.TempDir()
		c.prepareSession("fake-ok", fakeAgent("ok"), elsewhere)
		c.AwaitStderr("spare session ready", "agent=fake-ok", "session=fake-1")
		// A conversation in parley's own directory is another workspace: a session of its own,
		// not the spare (whose id may recur: a confined agent runs a process per workspace).
		got := c.conversation(fakeAgent("ok")).fakeTurn("hello")
		c.barrier()
		if n := c.CountStderr("took a spare session", "agent=fake-ok"); n != 0 {
			t.Errorf("a conversation in another workspace took the spare session prepared in %s (it got %s)", elsewhere, got.session)
		}
	})
	t.Run("before the spares of agents only configured", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--spares", "1")
		c.listModels(map[string]any{"other": fakeServer("ok", "PARLEY_CONFORMANCE_OTHER=1")})
		c.AwaitStderr("spare session ready", "agent=other")
		c.prepareSession("fake-ok", fakeAgent("ok"), "")
		c.AwaitStderr("closing an unused spare session", "agent=other")
		c.AwaitStderr("spare session ready", "agent=fake-ok")
		if got := c.conversation(fakeAgent("ok")).fakeTurn("hello"); got.session != "fake-1" {
			t.Errorf("the chosen agent's conversation got session %s, want its spare fake-1", got.session)
		}
	})
	t.Run("none when disabled", func(t *testing.T) {
		c := start(t, "--log", "debug", "vscodelm", "--spares", "0")
		c.prepareSession("fake-ok", fakeAgent("ok"), "")
		c.AwaitStderr("asked to prepare a session", "agent=fake-ok")
		c.barrier()
		if n := c.CountStderr("spare session"); n != 0 {
			t.Errorf("%d log lines about spare sessions with --spares 0", n)
		}
	})
	t.Run("bad params are logged; the connection goes on", func(t *testing.T) {
		c := start(t)
		c.prepareSession("x", json.RawMessage(`{"foo":1}`), "")
		c.prepareSession("fake-ok", fakeAgent("ok"), "not/absolute")
		c.AwaitStderr("lm/prepareSession", "agent:")
		c.AwaitStderr("lm/prepareSession", "not an absolute path")
		if got := strings.TrimSpace(c.conversation(elizaTagged()).Turn(alike)); got != alikeReplies[0] {
			t.Errorf("chat after the bad notifications: %q, want %q", got, alikeReplies[0])
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

// The model list names every agent the user can choose: the built-in ones that can run
// here, and every agent the user configured (the configuration file's, and the client's
// agentServers), each with where it comes from and the definition to send back. One
// whose command is missing is still listed, saying why it cannot start, and never gets a
// spare session.
func TestModelsNameEveryAgent(t *testing.T) {
	c := start(t, "--log", "debug", "vscodelm")
	_, result, err := c.Await(c.Request("lm/provideLanguageModelChatInformation", map[string]any{
		"agentServers": map[string]any{
			"mine": map[string]any{"command": "/nonexistent/my-agent", "args": []string{"--acp"}, "env": map[string]string{"K": "V"}},
			"fake": fakeServer("ok"),
		},
		"cwd": c.Cmd.Dir,
	}))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Models []struct {
			ID, Name, Detail string
			Agent            json.RawMessage
		}
		AgentActionRefusals bool
	}
	if err := json.Unmarshal(result, &res); err != nil {
		t.Fatal(err)
	}
	if !res.AgentActionRefusals {
		t.Errorf("result %s lacks agentActionRefusals: true", result)
	}
	byID := map[string]int{}
	for i, m := range res.Models {
		byID[m.ID] = i
	}
	for _, want := range []struct{ id, name, detail string }{
		{"eliza", "Eliza (parley)", "built-in"},
		{"parley", "parley agent (parley)", "built-in"},
		{"fake", "fake (parley)", "from the parley.agentServers setting"},
		{"mine", "mine (parley)", "/nonexistent/my-agent is not installed or not on PATH"},
	} {
		i, ok := byID[want.id]
		if !ok {
			t.Errorf("no model %s in %s", want.id, result)
			continue
		}
		if m := res.Models[i]; m.Name != want.name || m.Detail != want.detail {
			t.Errorf("model %s: name %q, detail %q; want %q, %q", want.id, m.Name, m.Detail, want.name, want.detail)
		}
	}
	if i, ok := byID["mine"]; ok && !jsonEqual(res.Models[i].Agent, []byte(`{"id":"mine","name":"mine","command":"/nonexistent/my-agent","args":["--acp"],"env":[{"name":"K","value":"V"}]}`)) {
		t.Errorf("mine's agent definition %s, want the flat shape of its setting", res.Models[i].Agent)
	}
	c.AwaitStderr("spare session ready", "agent=fake")
	c.barrier()
	if n := c.CountStderr("opening a spare session", "agent=mine"); n != 0 {
		t.Errorf("a spare session was opened for an agent that cannot start")
	}
}
