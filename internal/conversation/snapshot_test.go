package conversation

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/permission"
)

// TestALateViewGetsTheTranscriptQueueAndQuestion: a view that subscribes in the middle of
// a turn gets, in its Snapshot, what the conversation showed so far (folded: the reply's
// chunks joined, each tool call once in its last state), the running prompt, the queue
// and the open question; then the live rest. What it shows in the end is what a view
// that was there all along shows: nothing missed, nothing twice.
func TestALateViewGetsTheTranscriptQueueAndQuestion(t *testing.T) {
	c := testConversation(t, testAgent(t), true)
	early := watch(t, c)
	early.until(isA[Ready])
	first := c.Send(text("tool call Build\nflood 200\nrequest permission Delete everything"))
	asked := early.until(isA[QuestionAsked])
	q := last(asked).(QuestionAsked)
	queued := c.Send(text("hello"))
	early.until(isA[Queued])

	late := &view{t: t, sub: c.SubscribeRelay()}
	snap := late.until(isA[Snapshot])[0].(Snapshot)
	if snap.Running == nil || snap.Running.ID != first.ID || len(snap.Queue) != 1 || snap.Queue[0].ID != queued.ID {
		t.Fatalf("snapshot running %+v, queue %+v: want %d then %d", snap.Running, snap.Queue, first.ID, queued.ID)
	}
	if snap.Question == nil || snap.Question.ID != q.ID {
		t.Fatalf("snapshot question %+v, want %d", snap.Question, q.ID)
	}
	var user, replayed strings.Builder
	calls := map[acp.ToolCallID]*acp.ToolCall{}
	for _, u := range snap.Transcript {
		switch {
		case u.UserMessageChunk != nil:
			s, _ := u.UserMessageChunk.Content.AsText()
			user.WriteString(s)
		case u.AgentMessageChunk != nil:
			s, _ := u.AgentMessageChunk.Content.AsText()
			replayed.WriteString(s)
		case u.ToolCall != nil:
			if calls[u.ToolCall.ToolCallID] != nil {
				t.Errorf("tool call %s twice in the transcript", u.ToolCall.ToolCallID)
			}
			calls[u.ToolCall.ToolCallID] = u.ToolCall
		case u.ToolCallUpdate != nil:
			t.Errorf("a tool_call_update in the transcript: %+v", u.ToolCallUpdate)
		}
	}
	if user.String() != first.Text() {
		t.Errorf("the transcript's user message %q, want %q", user.String(), first.Text())
	}
	if len(snap.Transcript) > 8 {
		t.Errorf("%d updates in the transcript: the flood's chunks were not joined", len(snap.Transcript))
	}
	build := calls["call-1"]
	if build == nil || build.Title != "Build" || build.Status != acp.ToolCallStatusCompleted || len(build.Content) != 1 {
		t.Errorf("the finished tool call in the transcript: %+v", build)
	}
	if asking := calls["call-2"]; asking == nil || asking.Title != "Delete everything" {
		t.Errorf("the tool call asked about is not in the transcript: %+v", calls)
	}

	c.Answer(q.ID, permission.RejectOnce)
	isEnd := func(id int) func(Event) bool {
		return func(ev Event) bool { e, ok := ev.(TurnEnded); return ok && e.Turn == id }
	}
	all := early.all
	all = append(all, early.until(isEnd(queued.ID))...)
	liveEvents := late.until(isEnd(queued.ID))
	var live strings.Builder
	for _, ev := range liveEvents {
		switch e := ev.(type) {
		case AgentUpdate:
			if ch := e.Update.AgentMessageChunk; ch != nil {
				s, _ := ch.Content.AsText()
				live.WriteString(s)
			}
		case QuestionAsked:
			t.Errorf("the question was asked again after the snapshot: %+v", e)
		case Queued:
			t.Errorf("the queued prompt was queued again after the snapshot: %+v", e)
		}
	}
	if got, want := replayed.String()+live.String(), replyText(all); got != want {
		t.Errorf("the late view showed %q, want what the early one did: %q", got, want)
	}
	if !strings.Contains(live.String(), "permission: reject_once") || strings.Contains(live.String(), "Build: completed") {
		t.Errorf("the live rest %q: want only what came after the snapshot", live.String())
	}
}
