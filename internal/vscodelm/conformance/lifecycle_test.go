package conformance

// Issue 8, cases 8–12: slow and stuck agents, stopping, what the logs show, agent
// definitions with labels, and one owner for each piece of state.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/vscodelm"
)

// Case 8: an agent that is slow to start blocks no other conversation, and closing stdin
// while it starts still ends parley (and the agent) at once.
func TestSlowAgentBlocksNobody(t *testing.T) {
	c := start(t)
	stuck := c.chat(fakeAgent("stuck-initialize"), []vscodelm.Message{user("hello")}, nil)
	if got := strings.TrimSpace(c.conversation(elizaTagged()).turn(alike)); got != alikeReplies[0] {
		t.Errorf("Eliza while another agent starts: %q, want %q", got, alikeReplies[0])
	}
	// Stuck in session/new: the same.
	stuckSession := c.chat(fakeAgent("stuck-session"), []vscodelm.Message{user("hello")}, nil)
	if got := strings.TrimSpace(c.conversation(elizaFlat()).turn(alike)); got != alikeReplies[0] {
		t.Errorf("Eliza while another agent opens a session: %q, want %q", got, alikeReplies[0])
	}
	if code := c.close(); code != 0 {
		t.Errorf("parley vscodelm exited with status %d, want 0", code)
	}
	for _, id := range []int64{stuck, stuckSession} {
		c.fails(id, -32800) // answered as cancelled when the client went away
	}
}

// Case 8: every call to the agent has a deadline; when it passes, the request is answered
// with a -32000 error that says what the agent did not do.
func TestAgentCallsHaveDeadlines(t *testing.T) {
	for _, tt := range []struct{ mode, call string }{
		{"stuck-initialize", "initialize"},
		{"stuck-session", "session/new"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			// Long enough for Eliza to start on a busy machine under -race.
			c := start(t, "vscodelm", "--agent-timeout", "2s")
			err := c.fails(c.chat(fakeAgent(tt.mode), []vscodelm.Message{user("hello")}, nil), -32000)
			if !strings.Contains(err.Message, tt.call) || !strings.Contains(err.Message, "2s") {
				t.Errorf("error %q, want it to name %s and the 2s deadline", err.Message, tt.call)
			}
			if got := strings.TrimSpace(c.conversation(elizaTagged()).turn(alike)); got != alikeReplies[0] {
				t.Errorf("Eliza afterwards: %q, want %q", got, alikeReplies[0])
			}
		})
	}
}

// Case 10: each agent's stderr is appended to $XDG_STATE_HOME/parley/logs/<agent>.log.
func TestAgentStderrIsLogged(t *testing.T) {
	c := start(t)
	c.conversation(fakeAgent("ok")).fakeTurn("stderr marker-4711")
	c.close() // the agent has ended, and its stderr is all written
	data, err := os.ReadFile(filepath.Join(c.home, "state", "parley", "logs", "fake-ok.log"))
	if err != nil {
		t.Fatalf("the agent's log: %v", err)
	}
	if !strings.Contains(string(data), "marker-4711") {
		t.Errorf("the agent's log lacks what it wrote to stderr:\n%s", data)
	}
}

// Case 10: --log debug says, for each request, which conversation it matched, how many
// messages were new, and whether the exchange was cancelled.
func TestDebugLogSaysWhatHappens(t *testing.T) {
	c := start(t, "--log", "debug", "vscodelm")
	cv := c.conversation(elizaTagged())
	cv.turn(alike)
	first := c.awaitStderr("request=1", "conversation=")
	conversation := regexp.MustCompile(`conversation=(\S+)`).FindStringSubmatch(first)[1]
	for _, want := range []string{"new=1", "fresh=true"} {
		if !strings.Contains(first, want) {
			t.Errorf("log line %q lacks %s", first, want)
		}
	}
	cv.turn(alike)
	c.awaitStderr("request=2", "conversation="+conversation, "new=1", "fresh=false")
	id := cv.send(user("slowly " + ticks("tick", 100)))
	c.waitParts(id, 1)
	c.cancel(id)
	c.fails(id, -32800)
	c.awaitStderr("request=3", "conversation="+conversation, "outcome=cancelled")
}

// Case 10: every line of --trace-dir carries its time and direction.
func TestTraceLinesCarryTimeAndDirection(t *testing.T) {
	dir := t.TempDir()
	c := start(t, "--trace-dir", dir, "vscodelm")
	c.conversation(elizaTagged()).turn("flood 300") // many lines written together
	// Two requests in one write.
	a, b := c.newID(), c.newID()
	for _, id := range []int64{a, b} {
		c.mu.Lock()
		c.calls[fmt.Sprint(id)] = &call{id: fmt.Sprint(id), method: "lm/provideTokenCount"}
		c.mu.Unlock()
	}
	c.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"lm/provideTokenCount","params":{"text":"abcd"}}`+"\n"+
		`{"jsonrpc":"2.0","id":%d,"method":"lm/provideTokenCount","params":{"text":"abcdefgh"}}`, a, b))
	c.await(a)
	c.await(b)
	c.close()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Fatalf("trace files %v, want one", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<24)
	lines := map[string]int{}
	for s.Scan() {
		stamp, rest, _ := strings.Cut(s.Text(), " ")
		direction, msg, _ := strings.Cut(rest, " ")
		if _, err := time.Parse(time.RFC3339Nano, stamp); err != nil {
			t.Errorf("trace line without a time: %q", abbreviateLines([]string{s.Text()})[0])
			continue
		}
		if direction != "recv" && direction != "send" && direction != "stderr" {
			t.Errorf("trace line without a direction: %q", abbreviateLines([]string{s.Text()})[0])
			continue
		}
		if direction != "stderr" && !json.Valid([]byte(msg)) {
			t.Errorf("trace line is not one protocol message: %q", abbreviateLines([]string{s.Text()})[0])
		}
		lines[direction]++
	}
	if lines["recv"] < 3 || lines["send"] < 5 {
		t.Errorf("trace holds %v lines, want every line in both directions", lines)
	}
}

// Case 11: agent definitions with labels beside the variant are accepted.
func TestAgentDefinitionsWithLabels(t *testing.T) {
	mcpServer, _ := json.Marshal(map[string]any{"name": "eliza", "command": parleyBin, "args": []string{"eliza", "--deterministic"}, "env": []any{}})
	for name, agent := range map[string]json.RawMessage{
		"eliza":      json.RawMessage(`{"id":"x","name":"X","eliza":{"deterministic":true}}`),
		"mcp_server": json.RawMessage(`{"id":"y","name":"Y","mcp_server":` + string(mcpServer) + `}`),
	} {
		t.Run(name, func(t *testing.T) {
			c := start(t)
			if got := strings.TrimSpace(c.conversation(agent).turn(alike)); got != alikeReplies[0] {
				t.Errorf("reply %q, want %q", got, alikeReplies[0])
			}
		})
	}
}

// Case 12: the router and the workers share no state. Requests are matched while other
// conversations stream as fast as they can; under -race the binary is built with the race
// detector and a race ends it at once.
func TestStateHasOneOwner(t *testing.T) {
	c := start(t)
	flooding := []*conversation{c.conversation(elizaTagged()), c.conversation(elizaTagged())}
	var ids []int64
	for i, cv := range flooding {
		ids = append(ids, cv.send(user(fmt.Sprintf("flood %d", 20000+i))))
	}
	for i := range 20 {
		cv := c.conversation(elizaTagged())
		cv.turn(fmt.Sprintf("I feel number %d", i))
		cv.turn(alike)
	}
	for _, id := range ids {
		c.ok(id)
	}
}
