package conversation

import (
	"testing"

	"github.com/parley-acp/parley/acp"
)

// A relaying view gets the agent's updates as they came, and no toolui events; a
// drawing view gets toolui's events and no copies of the raw updates.
func TestRelaySubscriptionGetsTheAgentsOwnUpdates(t *testing.T) {
	c := testConversation(t, testAgent(t), true)
	relay := &view{t: t, sub: c.SubscribeRelay()}
	draw := watch(t, c)
	relay.until(isA[Ready])
	p := c.Send([]acp.ContentBlock{acp.TextBlock("tool call Build\nflood 3")})
	ended := func(ev Event) bool { e, ok := ev.(TurnEnded); return ok && e.Turn == p.ID }
	var text string
	var tool bool
	for _, ev := range relay.until(ended) {
		switch e := ev.(type) {
		case TurnUpdate:
			t.Errorf("a relaying view got a toolui event: %+v", e)
		case AgentUpdate:
			// The turn's own updates carry its id; one about the session (its commands,
			// sent after session/new) may come in while the prompt is on its way, with none.
			turnOwn := e.Update.AgentMessageChunk != nil || e.Update.ToolCall != nil || e.Update.ToolCallUpdate != nil
			if turnOwn && e.Turn != p.ID {
				t.Errorf("update %+v of turn %d, want %d", e.Update, e.Turn, p.ID)
			}
			if ch := e.Update.AgentMessageChunk; ch != nil {
				s, _ := ch.Content.AsText()
				text += s
			}
			if e.Update.ToolCall != nil && e.Update.ToolCall.Title == "Build" {
				tool = true
			}
		}
	}
	if !tool || text != "tool call Build: completed0 1 2 " {
		t.Errorf("relayed: tool call %v, text %q", tool, text)
	}
	for _, ev := range draw.until(ended) {
		if _, ok := ev.(AgentUpdate); ok {
			t.Fatalf("a drawing view got a raw update")
		}
	}
}
