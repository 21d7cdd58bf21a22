package conversation

import (
	"context"
	"testing"

	"github.com/parley-acp/parley/acp"
)

func chunkOf(id acp.SessionID, text string) *acp.SessionNotification {
	return &acp.SessionNotification{SessionID: id, Update: acp.AgentMessageChunk(acp.TextBlock(text))}
}

// BenchmarkUpdates is what the conversation core costs per agent_message_chunk: the work
// a bridge (parley vscodelm, parley web) does beyond a direct ACP client, without the
// processes and pipes around it. Each op is one chunk through Agent.SessionUpdate and the
// actor (transcript, toolstate, held text) to a model view that takes its events; the
// clock stops once the view has had all the text.
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
