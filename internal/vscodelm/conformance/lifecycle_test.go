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
	stuck := c.Chat(fakeAgent("stuck-initialize"), []vscodelm.Message{user("hello")}, nil)
	if got := strings.TrimSpace(c.conversation(elizaTagged()).Turn(alike)); got != alikeReplies[0] {
		t.Errorf("Eliza while another agent starts: %q, want %q", got, alikeReplies[0])
	}
	// Stuck in session/new: the same.
	stuckSession := c.Chat(fakeAgent("stuck-session"), []vscodelm.Message{user("hello")}, nil)
	if got := strings.TrimSpace(c.conversation(elizaFlat()).Turn(alike)); got != alikeReplies[0] {
		t.Errorf("Eliza while another agent opens a session: %q, want %q", got, alikeReplies[0])
	}
	if code := c.Close(); code != 0 {
		t.Errorf("parley vscodelm exited with status %d, want 0", code)
	}
	for _, id := range []int64{stuck, stuckSession} {
		c.Fails(id, -32800) // answered as cancelled when the client went away
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
			err := c.Fails(c.Chat(fakeAgent(tt.mode), []vscodelm.Message{user("hello")}, nil), -32000)
			if !strings.Contains(err.Message, tt.call) || !strings.Contains(err.Message, "2s") {
				t.Errorf("error %q, want it to name %s and the 2s deadline", err.Message, tt.call)
			}
			if got := strings.TrimSpace(c.conversation(elizaTagged()).Turn(alike)); got != alikeReplies[0] {
				t.Errorf("Eliza afterwards: %q, want %q", got, alikeReplies[0])
			}
		})
	}
}

// Case 10: each agent's stderr is appended to $XDG_STATE_HOME/parley/logs/<agent>.log.
func TestAgentStderrIsLogged(t *testing.T) {
	c := start(t)
	c.conversation(fakeAgent("ok")).fakeTurn("stderr marker-4711")
	c.Close() // the agent has ended, and its stderr is all written
	data, err := os.ReadFile(filepath.Join(c.Home, "state", "parley", "logs", "fake-ok.log"))
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
	cv.Turn(alike)
	first := c.AwaitStderr("request=1", "conversation=")
	conversation := regexp.MustCompile(`conversation=(\S+)`).FindStringSubmatch(first)[1]
	for _, want := range []string{"new=1", "fresh=true"} {
		if !strings.Contains(first, want) {
			t.Errorf("log line %q lacks %s", first, want)
		}
	}
	cv.Turn(alike)
	c.AwaitStderr("request=2", "conversation="+conversation, "new=1", "fresh=false")
	id := cv.Send(user("slowly " + ticks("tick", 100)))
	c.WaitParts(id, 1)
	c.Cancel(id)
	c.Fails(id, -32800)
	c.AwaitStderr("request=3", "conversation="+conversation, "outcome=cancelled")
}

// Case 10: every line of --trace-dir carries its time and direction.
func TestTraceLinesCarryTimeAndDirection(t *testing.T) {
	dir := t.TempDir()
	c := start(t, "--trace-dir", dir, "vscodelm")
	c.conversation(elizaTagged()).Turn("flood 300") // many lines written together
	// Two requests in one write.
	a, b := c.NewID(), c.NewID()
	for _, id := range []int64{a, b} {
		c.Expect(id, "lm/provideTokenCount")
	}
	c.Write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"lm/provideTokenCount","params":{"text":"abcd"}}`+"\n"+
		`{"jsonrpc":"2.0","id":%d,"method":"lm/provideTokenCount","params":{"text":"abcdefgh"}}`, a, b))
	c.Await(a)
	c.Await(b)
	c.Close()
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
			if got := strings.TrimSpace(c.conversation(agent).Turn(alike)); got != alikeReplies[0] {
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
		ids = append(ids, cv.Send(user(fmt.Sprintf("flood %d", 20000+i))))
	}
	for i := range 20 {
		cv := c.conversation(elizaTagged())
		cv.Turn(fmt.Sprintf("I feel number %d", i))
		cv.Turn(alike)
	}
	for _, id := range ids {
		c.OK(id)
	}
}
