package coder

import (
	"fmt"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolstate"
)

// transcript keeps what a client was shown during one turn, in the form session/load
// shows it again: message chunks joined into one update per message, each tool call as
// one tool_call in its final state. Usage and command updates are left out: they are
// about the moment, not the conversation.
type transcript struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
	calls   map[acp.ToolCallID]int // index of each tool call in updates
}

func (t *transcript) record(u acp.SessionUpdate) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case u.UserMessageChunk != nil, u.AgentMessageChunk != nil, u.AgentThoughtChunk != nil:
		if !t.join(u) {
			t.updates = append(t.updates, copyChunk(u))
		}
	case u.ToolCall != nil:
		if t.calls == nil {
			t.calls = map[acp.ToolCallID]int{}
		}
		c := *u.ToolCall
		t.calls[c.ToolCallID] = len(t.updates)
		t.updates = append(t.updates, acp.SessionUpdate{ToolCall: &c})
	case u.ToolCallUpdate != nil:
		if i, ok := t.calls[u.ToolCallUpdate.ToolCallID]; ok {
			toolstate.MergeToolCall(t.updates[i].ToolCall, u.ToolCallUpdate)
		}
	case u.Plan != nil:
		t.updates = append(t.updates, u)
	}
}

// join appends a text chunk to the previous update when it is a text chunk of the same
// kind (and message), and reports whether it did.
func (t *transcript) join(u acp.SessionUpdate) bool {
	if len(t.updates) == 0 {
		return false
	}
	prev, next := chunkOf(&t.updates[len(t.updates)-1]), chunkOf(&u)
	if prev == nil || next == nil || prev.Content.Text == nil || next.Content.Text == nil || prev.MessageID != next.MessageID {
		return false
	}
	if u.Kind() != t.updates[len(t.updates)-1].Kind() {
		return false
	}
	prev.Content.Text.Text += next.Content.Text.Text
	return true
}

func chunkOf(u *acp.SessionUpdate) *acp.ContentChunk {
	switch {
	case u.UserMessageChunk != nil:
		return u.UserMessageChunk
	case u.AgentMessageChunk != nil:
		return u.AgentMessageChunk
	case u.AgentThoughtChunk != nil:
		return u.AgentThoughtChunk
	}
	return nil
}

// copyChunk copies a chunk update deeply enough that joining text later does not change
// the caller's update.
func copyChunk(u acp.SessionUpdate) acp.SessionUpdate {
	c := *chunkOf(&u)
	if c.Content.Text != nil {
		text := *c.Content.Text
		c.Content.Text = &text
	}
	switch {
	case u.UserMessageChunk != nil:
		return acp.SessionUpdate{UserMessageChunk: &c}
	case u.AgentMessageChunk != nil:
		return acp.SessionUpdate{AgentMessageChunk: &c}
	}
	return acp.SessionUpdate{AgentThoughtChunk: &c}
}

// keptLimit bounds what one kept tool call carries for a replay: a larger diff is
// replaced by a line saying so, and large raw inputs and outputs are left out (the
// model's own history keeps everything it needs).
const keptLimit = 256 << 10

// compact returns u as it is worth keeping for a replay.
func compact(u acp.SessionUpdate) acp.SessionUpdate {
	if u.ToolCall == nil {
		return u
	}
	c := *u.ToolCall
	c.RawOutput = nil
	if len(c.RawInput) > keptLimit/16 {
		c.RawInput = nil
	}
	content := make([]acp.ToolCallContent, 0, len(c.Content))
	for _, tc := range c.Content {
		if d := tc.Diff; d != nil && len(d.NewText)+len(ptrString(d.OldText)) > keptLimit {
			tc = acp.ToolContent(acp.TextBlock(fmt.Sprintf("(the diff of %s, %d bytes, is too large to keep)", d.Path, len(d.NewText)+len(ptrString(d.OldText)))))
		}
		content = append(content, tc)
	}
	c.Content = content
	return acp.SessionUpdate{ToolCall: &c}
}

func ptrString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// take returns what was recorded and starts afresh.
func (t *transcript) take() []acp.SessionUpdate {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.updates
	t.updates, t.calls = nil, nil
	return out
}
