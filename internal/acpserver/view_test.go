package acpserver

import (
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
)

// TestCoalesceJoinsOnlyRunsOfOneMessage: a batch a slow page has fallen behind on goes out
// with each run of plain text chunks of one message as one update, and nothing else
// merged, reordered or lost.
func TestCoalesceJoinsOnlyRunsOfOneMessage(t *testing.T) {
	agent := func(msg, text string) viewEvent {
		return viewEvent{ev: conversation.AgentUpdate{Update: acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text), MessageID: acp.MessageID(msg)}}}}
	}
	thought := func(text string) viewEvent {
		return viewEvent{ev: conversation.AgentUpdate{Update: acp.SessionUpdate{AgentThoughtChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}}}}
	}
	annotated := agent("m1", "!")
	annotated.ev.(conversation.AgentUpdate).Update.AgentMessageChunk.Content.Text.Annotations = &acp.Annotations{Priority: new(float64)}
	end := make(chan struct{}) // a flushed mark: the place of a prompt's answer
	batch := []viewEvent{
		thought("hm"), thought("m"),
		agent("m1", "Hel"), agent("m1", "lo"), agent("m1", ", "),
		agent("m2", "other"),
		annotated,
		agent("m1", "wor"), agent("m1", "ld"),
		{ev: conversation.TurnEnded{Turn: 1}, sideEvent: sideEvent{sync: end}},
		agent("m1", "after"),
	}
	got := coalesce(batch)
	var want = []string{"thought hmm", "agent m1 Hello, ", "agent m2 other", "other", "agent m1 world", "other", "agent m1 after"}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
	}
	for i, e := range got {
		desc := "other"
		if plainEvent(e) {
			kind, ch, text, _ := joinable(e.ev.(conversation.AgentUpdate).Update)
			desc = kind + " " + string(ch.MessageID) + " " + text
			if ch.MessageID == "" {
				desc = kind + " " + text
			}
		}
		if desc != want[i] {
			t.Errorf("event %d: %q, want %q", i, desc, want[i])
		}
	}
	if got[5].sync != end {
		t.Error("the prompt's end lost its place")
	}
	if one := []viewEvent{agent("m1", "x")}; len(coalesce(one)) != 1 {
		t.Error("a single event changed")
	}
}
