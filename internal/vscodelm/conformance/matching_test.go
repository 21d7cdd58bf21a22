package conformance

// Issue 8, cases 1–4: which conversation (ACP session) a request continues, and what the
// agent is sent after a retry, a cancel or a decline.

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/vscodelm"
)

// reply is what the fake agent said in one turn: the header it starts every reply with,
// and the rest.
type reply struct {
	session    string
	prompt     int    // how many prompts the session has had, this one included
	permission string // the outcome of the session's last permission request before this turn
	text       string
}

var headerLine = regexp.MustCompile(`session=(\S+) prompt=(\d+) permission=(\S+)`)

// fakeReply reads the fake agent's reply from the text parts.
func fakeReply(t testing.TB, parts []vscodelm.ContentPart) reply {
	t.Helper()
	text := textOf(parts)
	m := headerLine.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no header in the fake agent's reply %q", text)
	}
	n, _ := strconv.Atoi(m[2])
	return reply{session: m[1], prompt: n, permission: m[3], text: text}
}

// fakeTurn sends a user message, awaits a successful reply, records it and reads it.
func (cv *conversation) fakeTurn(text string) reply {
	cv.C.T.Helper()
	parts := cv.C.OK(cv.Send(user(text)))
	cv.Record(parts)
	return fakeReply(cv.C.T, parts)
}

// Case 1: the conversation that shares the longest history with the request wins;
// recency only breaks ties. B starts like A (same first message, and Eliza being
// deterministic, the same first reply); A's fourth request must still go to A.
func TestLongestHistoryWins(t *testing.T) {
	c := start(t)
	a := c.conversation(elizaTagged())
	for i := range 3 {
		if got := strings.TrimSpace(a.Turn(alike)); got != alikeReplies[i] {
			t.Fatalf("A, turn %d: %q, want %q", i+1, got, alikeReplies[i])
		}
	}
	b := c.conversation(elizaTagged())
	if got := strings.TrimSpace(b.Turn(alike)); got != alikeReplies[0] {
		t.Fatalf("B, turn 1: %q, want %q (a session of its own)", got, alikeReplies[0])
	}
	if got := strings.TrimSpace(a.Turn(alike)); got != alikeReplies[3] {
		t.Errorf("A, turn 4: %q, want %q (A's own session, its fourth alike)", got, alikeReplies[3])
	}
	if got := strings.TrimSpace(b.Turn(alike)); got != alikeReplies[1] {
		t.Errorf("B, turn 2: %q, want %q (B's own session, its second alike)", got, alikeReplies[1])
	}
}

// Case 2: a request that repeats a conversation's last user message with nothing new (a
// regenerate, or a second chat opened with the same first message) gets an agent context
// that has not seen that message: a new session, given the earlier turns as context.
func TestRetryNeverInheritsAUsedContext(t *testing.T) {
	t.Run("regenerate", func(t *testing.T) {
		c := start(t)
		cv := c.conversation(fakeAgent("ok"))
		first := cv.fakeTurn("first question")
		second := cv.fakeTurn("second question")
		if second.session != first.session || second.prompt != 2 {
			t.Fatalf("turn 2: %+v, want prompt 2 of session %s", second, first.session)
		}
		cv.DropLast(1) // regenerate: the reply goes, the question is sent again
		again := fakeReply(t, c.OK(cv.Send()))
		if again.session == first.session || again.prompt != 1 {
			t.Errorf("regenerated turn answered by session %s prompt %d; want a new session's first prompt (%s has seen the question)", again.session, again.prompt, first.session)
		}
		if n := strings.Count(again.text, "second question"); n != 1 {
			t.Errorf("the new session got the question %d times, want once:\n%s", n, again.text)
		}
		if !strings.Contains(again.text, "first question") {
			t.Errorf("the new session was not given the earlier turn as context:\n%s", again.text)
		}
	})
	t.Run("second chat with the same first message", func(t *testing.T) {
		c := start(t)
		x := c.conversation(fakeAgent("ok"))
		y := c.conversation(fakeAgent("ok"))
		xr := x.fakeTurn("hello")
		yr := y.fakeTurn("hello")
		if yr.session == xr.session || yr.prompt != 1 {
			t.Errorf("the second chat was answered by session %s prompt %d; want a new session's first prompt", yr.session, yr.prompt)
		}
		if again := x.fakeTurn("more"); again.session != xr.session || again.prompt != 2 {
			t.Errorf("the first chat went on in session %s prompt %d; want %s prompt 2", again.session, again.prompt, xr.session)
		}
	})
}

// Case 3: VS Code drops a cancelled turn, a declined tool call and a declined agent action
// from the history; the next request [..., U1, U2] continues the same session and the agent
// receives only U2.
func TestNothingIsSentTwice(t *testing.T) {
	t.Run("after a cancel", func(t *testing.T) {
		c := start(t)
		cv := c.conversation(fakeAgent("ok"))
		first := cv.fakeTurn("zero")
		id := cv.Send(user("hang"))
		c.WaitParts(id, 1)
		c.Cancel(id)
		wantCancelled(t, c.Fails(id, -32800))
		next := cv.fakeTurn("after")
		wantOnly(t, next, first.session, 3, "after", "hang")
	})
	t.Run("after a declined tool call", func(t *testing.T) {
		c := start(t)
		cv := c.conversation(fakeAgent("ok"), threeTools...)
		first := cv.fakeTurn("zero")
		parts := c.OK(cv.Send(user(`call a {"x":1}`)))
		if calls := toolCalls(parts); len(calls) != 1 || calls[0].ToolName != "a" {
			t.Fatalf("tool calls %+v, want one of a", calls)
		}
		// Declined: VS Code keeps the user message, drops the call.
		parts = c.OK(cv.Send(user("after")))
		if calls := toolCalls(parts); len(calls) > 0 {
			t.Errorf("the declined call was made again: %+v", calls)
		}
		wantOnly(t, fakeReply(t, parts), first.session, 3, "after", "call a")
	})
	t.Run("after a declined agent action", func(t *testing.T) {
		c := start(t)
		cv := c.conversation(fakeAgent("ok"), agentActionTool("parley-agent-action"))
		first := cv.fakeTurn("zero")
		parts := c.OK(cv.Send(user("perm deploy")))
		if calls := toolCalls(parts); len(calls) != 1 || calls[0].ToolName != "parley-agent-action" {
			t.Fatalf("tool calls %+v, want one of parley-agent-action", calls)
		}
		parts = c.OK(cv.Send(user("after")))
		if calls := toolCalls(parts); len(calls) > 0 {
			t.Errorf("the declined permission was asked again: %+v", calls)
		}
		wantOnly(t, fakeReply(t, parts), first.session, 3, "after", "perm deploy")
	})
}

// wantOnly checks that session's prompt number prompt received got and not old.
func wantOnly(t *testing.T, r reply, session string, prompt int, got, old string) {
	t.Helper()
	if r.session != session || r.prompt != prompt {
		t.Errorf("answered by session %s prompt %d, want %s prompt %d (the same session)", r.session, r.prompt, session, prompt)
	}
	if !strings.Contains(r.text, "got: "+got) {
		t.Errorf("the agent did not receive %q:\n%s", got, r.text)
	}
	if strings.Contains(r.text, old) {
		t.Errorf("the agent received %q again:\n%s", old, r.text)
	}
}

// Case 4: a declined agent action is answered with the agent's reject_once option, never
// "cancelled", before its turn is cancelled. Each decline below is followed by another
// permission request, so one conversation shows several in a row.
func TestDeclinedAgentActionIsARejection(t *testing.T) {
	c := start(t)
	cv := c.conversation(fakeAgent("ok"), agentActionTool("parley-agent-action"))
	cv.fakeTurn("zero")
	parts := c.OK(cv.Send(user("perm step-1")))
	for i := 2; i <= 6; i++ {
		if calls := toolCalls(parts); len(calls) != 1 || calls[0].ToolName != "parley-agent-action" {
			t.Fatalf("round %d: tool calls %+v, want one of parley-agent-action", i, calls)
		}
		// Declined: VS Code drops the call from the history (it is not recorded).
		parts = c.OK(cv.Send(user("perm step-" + strconv.Itoa(i))))
		if r := fakeReply(t, parts); r.permission != "reject_once" {
			t.Errorf("round %d: the agent's declined request got %q, want reject_once", i, r.permission)
		}
	}
}
