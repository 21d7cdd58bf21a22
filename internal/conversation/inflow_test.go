package conversation

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/parley-acp/parley/acp"
)

// probeMsg reports the agent text the actor has applied when it handles the message.
type probeMsg struct{ got chan<- string }

func (m probeMsg) handle(c *Conversation) {
	var b strings.Builder
	for _, u := range c.st.transcript.updates() {
		if ch := u.AgentMessageChunk; ch != nil {
			s, _ := ch.Content.AsText()
			b.WriteString(s)
		}
	}
	m.got <- b.String()
}

func chunkOf(id acp.SessionID, text string) *acp.SessionNotification {
	return &acp.SessionNotification{SessionID: id, Update: acp.AgentMessageChunk(acp.TextBlock(text))}
}

// TestInflowIsBoundedAndKeepsOrder: the dispatcher waits once inboxSize updates wait for
// the actor (nothing is dropped), the actor is woken once for them, and a message posted
// after updates is handled after all of them, in the agent's order; an update of a
// session the conversation left is not applied.
func TestInflowIsBoundedAndKeepsOrder(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		c := unstartedConversation(t, dir)
		c.st.session.ID = "s"
		const n = inboxSize + 10
		var want strings.Builder
		posted := make(chan struct{})
		got := make(chan string, 1)
		go func() {
			for i := range n {
				text := fmt.Sprintf("%d ", i)
				want.WriteString(text)
				c.postUpdate(context.Background(), chunkOf("s", text))
				if i == 3 {
					c.postUpdate(context.Background(), chunkOf("old", "left behind "))
				}
			}
			c.post(probeMsg{got})
			close(posted)
		}()
		synctest.Wait()
		if l := len(c.in.queue); l != inboxSize {
			t.Fatalf("%d updates wait in the inflow, want the bound, %d", l, inboxSize)
		}
		if l := len(c.inbox); l != 1 {
			t.Fatalf("%d messages in the inbox, want one wake for the whole inflow", l)
		}
		go c.run()
		<-posted
		if s := <-got; s != want.String() {
			t.Errorf("the actor had applied %.60q… (%d bytes) when the probe came, want %.60q… (%d bytes)", s, len(s), want.String(), want.Len())
		}
		c.Close()
	})
}

// TestInflowPosterReturnsAtTheEnd: a dispatcher waiting for room returns when the
// conversation ends, and when its ctx does.
func TestInflowPosterReturnsAtTheEnd(t *testing.T) {
	dir := t.TempDir()
	for _, end := range []string{"close", "ctx"} {
		t.Run(end, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := unstartedConversation(t, dir)
				c.st.session.ID = "s"
				for range inboxSize {
					c.postUpdate(context.Background(), chunkOf("s", "x"))
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				returned := make(chan struct{})
				go func() {
					c.postUpdate(ctx, chunkOf("s", "one too many"))
					close(returned)
				}()
				synctest.Wait()
				select {
				case <-returned:
					t.Fatal("postUpdate returned with the inflow full")
				default:
				}
				if end == "ctx" {
					cancel()
				} else {
					close(c.done) // as the actor does when it ends
				}
				<-returned // a hang is synctest's deadlock
			})
		})
	}
}

// BenchmarkUpdates is what the conversation core costs per agent_message_chunk: the work
// a bridge (parley vscodelm, parley web) does beyond a direct ACP client, without the
// processes and pipes around it. Each op is one chunk through Agent.SessionUpdate, the
// inflow and the actor (transcript, toolstate, held text) to a model view that takes its
// events; the clock stops once the view has had all the text.
func BenchmarkUpdates(b *testing.B) {
	c := unstartedConversation(b, b.TempDir())
	c.st.session.ID = "s"
	c.agent.attach("s", c)
	go c.run()
	defer c.Close()
	sub := c.Subscribe()
	defer sub.Close()
	const text = "word "
	note := chunkOf("s", text) // read, never changed: one serves every op
	want := b.N * len(text)
	got := make(chan int, 1)
	go func() {
		n := 0
		for n < want {
			<-sub.Ready()
			for _, ev := range sub.Take() {
				if u, ok := ev.(TurnUpdate); ok {
					n += len(u.Update.Text)
				}
			}
		}
		got <- n
	}()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.agent.SessionUpdate(ctx, note)
	}
	<-got
}
