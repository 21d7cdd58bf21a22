package coder

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
)

func TestTranscriptJoinsMessagesAndFinishesToolCalls(t *testing.T) {
	var tr transcript
	text := func(s string) acp.ContentBlock { return acp.TextBlock(s) }
	first := acp.AgentMessageChunk(text("Hel"))
	tr.record(acp.UserMessageChunk(text("hi")))
	tr.record(acp.AgentThoughtChunk(text("think")))
	tr.record(first)
	tr.record(acp.AgentMessageChunk(text("lo")))
	tr.record(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c1", Title: "Run", Status: acp.ToolCallStatusPending}})
	tr.record(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: acp.ToolCallStatusCompleted}})
	tr.record(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: 1, Size: 2}})
	tr.record(acp.AgentMessageChunk(text("Done.")))
	got := tr.take()
	var kinds []string
	for _, u := range got {
		kinds = append(kinds, u.Kind())
	}
	if want := "user_message_chunk agent_thought_chunk agent_message_chunk tool_call agent_message_chunk"; strings.Join(kinds, " ") != want {
		t.Fatalf("kinds %v, want %s", kinds, want)
	}
	if s, _ := got[2].AgentMessageChunk.Content.AsText(); s != "Hello" {
		t.Errorf("joined text %q", s)
	}
	if s, _ := first.AgentMessageChunk.Content.AsText(); s != "Hel" {
		t.Errorf("joining changed the sender's update: %q", s)
	}
	if got[3].ToolCall.Status != acp.ToolCallStatusCompleted {
		t.Errorf("tool call kept as %s", got[3].ToolCall.Status)
	}
	if len(tr.take()) != 0 {
		t.Error("take did not start afresh")
	}
}

func TestCompactDropsHugeDiffs(t *testing.T) {
	big := strings.Repeat("x", keptLimit)
	small := "a"
	u := compact(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c", Content: []acp.ToolCallContent{
		{Diff: &acp.Diff{Path: "/w/big", OldText: &small, NewText: big}},
		{Diff: &acp.Diff{Path: "/w/small", NewText: small}},
	}, RawOutput: []byte(`{"output":"x"}`)}})
	c := u.ToolCall.Content
	if c[0].Diff != nil || c[0].Content == nil || c[1].Diff == nil || u.ToolCall.RawOutput != nil {
		t.Errorf("compacted to %+v", u.ToolCall)
	}
}
