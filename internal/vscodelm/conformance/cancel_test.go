package conformance

// Issue 16: a cancel is never lost, whatever its timing. lm/cancel may reach parley before
// the request's handler has run, while the conversation's session is still being opened,
// in the same read as the request, or right behind the turn's session/prompt. Every time
// the request is answered -32800; its message is never run as a prompt (the agent would
// answer a message the user cancelled, in the next turn); an agent that never saw it gets
// it as earlier context of the next turn; and an agent that did see it gets session/cancel
// after its session/prompt, never before, so the turn stops.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The message of the cancelled request: if the agent ran it as a prompt, its reply says
// "wrote to stderr".
const cancelledMessage = "stderr the cancelled message ran"

// wantContextNotPrompt checks the reply to the turn after a cancelled request: the cancelled
// message was not run, and the agent was given it as earlier context.
func wantContextNotPrompt(t *testing.T, got string) {
	t.Helper()
	if strings.Contains(got, "wrote to stderr") {
		t.Errorf("the cancelled message was run as a prompt in the next turn: %q", got)
	}
	if !strings.Contains(got, "got: Earlier in this conversation:") || !strings.Contains(got, "got: User: "+cancelledMessage) {
		t.Errorf("reply %q, want the cancelled message given as earlier context", got)
	}
	if !strings.Contains(got, "got: second") {
		t.Errorf("reply %q, want the new message answered", got)
	}
}

// lm/cancel before its request was routed (the client cancelled at once, and the cancel's
// handler ran before the request's): ordered here by sending the cancel first.
func TestCancelBeforeTheRequestIsRouted(t *testing.T) {
	for _, tt := range []struct {
		name string
		warm bool
	}{{"new conversation", false}, {"open session", true}} {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t)
			cv := c.conversation(fakeAgent("ok"))
			if tt.warm {
				cv.Turn("hello")
			}
			c.Cancel(c.NextRequestID())
			wantCancelled(t, c.Fails(cv.Send(user(cancelledMessage)), -32800))
			wantContextNotPrompt(t, cv.Turn("second"))
		})
	}
}

// lm/cancel while the conversation's session is still being opened (session/new held
// until the test lets it answer).
func TestCancelWhileTheSessionOpens(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	c := start(t, "--log", "debug", "vscodelm")
	cv := c.conversation(fakeAgent("gated-session", fakeFIFOEnv+"="+fifo))
	id := cv.Send(user(cancelledMessage))
	c.AwaitStderr("chat request", "request=1 ") // routed; its session cannot open yet
	c.Cancel(id)
	wantCancelled(t, c.Fails(id, -32800))
	gate, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for the agent to read it
	if err != nil {
		t.Fatal(err)
	}
	gate.WriteString("go\n")
	gate.Close()
	got := cv.Turn("second")
	wantContextNotPrompt(t, got)
	if !strings.Contains(got, "prompt=1 ") {
		t.Errorf("reply %q, want the session's first prompt: nothing of the cancelled request was sent", got)
	}
}

// Two conversations streaming at once, one of them cancelled in the very read that brings
// its request: whichever of the router, the worker, the session or the agent sees the
// cancel first, the request is answered -32800, the other conversation is answered, and
// the cancelled turn does not run on (its message would hang the agent).
func TestCancelInTheSameReadAsTheRequest(t *testing.T) {
	c := start(t)
	x, y := c.conversation(fakeAgent("ok")), c.conversation(fakeAgent("ok"))
	x.Turn("hello x")
	y.Turn("hello y")
	for round := range 5 {
		xid, xline := x.Prepare(user("hang"))
		yid, yline := y.Prepare(user("round " + string(rune('a'+round))))
		c.Write(xline + "\n" + yline + "\n" + cancelLine(xid))
		wantCancelled(t, c.Fails(xid, -32800))
		y.Record(c.OK(yid))
		got := x.Turn("second")
		if strings.Contains(got, "hanging") || !strings.Contains(got, "got: second") {
			t.Fatalf("round %d: reply %q, want the new message answered and nothing of the cancelled turn", round, got)
		}
	}
}
