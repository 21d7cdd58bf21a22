package vscodelm

import (
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/toolui"
)

// onUpdate turns agent output into parts: text as text, the agent's own tool calls and
// plans as Markdown that shows each call once and then only its status changes (or as
// structured parts for a client that renders them).
func (w *worker) onUpdate(u acp.SessionUpdate) {
	if w.turn == nil || w.turn.draining {
		return // the output of a cancelled or finished turn
	}
	w.remember(u)
	if c := u.AgentMessageChunk; c != nil {
		if t, ok := c.Content.AsText(); ok {
			w.emit(said{part: TextPart(t)})
		}
		return
	}
	for _, ev := range w.view.Apply(u) {
		if p, ok := w.structured(ev); ok {
			w.emit(said{part: p, transient: true}) // display only: not part of the history
			continue
		}
		w.mdOut.Reset()
		w.md.Render(ev)
		if w.mdOut.Len() > 0 {
			w.emit(said{part: TextPart(w.mdOut.String()), display: true})
		}
	}
}

// structured makes a thinking or tool_invocation part for a client that renders them:
// the tool call's whole state (toolui.ToolCallPart, the state model of VS Code's
// ChatToolInvocationPart) each time it changes, keyed by toolCallId.
func (w *worker) structured(ev toolui.Event) (ContentPart, bool) {
	var kind string
	switch ev.Kind {
	case toolui.ThoughtDelta:
		kind = "thinking"
	case toolui.ToolStarted, toolui.ToolUpdated, toolui.PermissionRequested:
		kind = "tool_invocation"
	default:
		return ContentPart{}, false
	}
	if !w.caps.CanRender(kind) {
		return ContentPart{}, false
	}
	if kind == "thinking" {
		raw, _ := json.Marshal(map[string]string{"type": "thinking", "value": ev.Text})
		return ContentPart{Type: kind, Raw: raw}, true
	}
	raw, err := toolui.ToolCallPart(kind, ev.Tool)
	if err != nil {
		return ContentPart{}, false
	}
	return ContentPart{Type: kind, Raw: raw}, true
}

// emit sends a part to the open request, or holds it for the next one.
func (w *worker) emit(s said) {
	if w.open == nil {
		w.buffer = append(w.buffer, s)
		return
	}
	w.s.send(w.open, s.part)
	w.answer = append(w.answer, s)
	if s.shows != nil {
		*s.shows = true
	}
}

// flush sends what was held to the open request.
func (w *worker) flush() {
	held := w.buffer
	w.buffer = nil
	for _, s := range held {
		w.emit(s)
	}
}

// reportedCall is what the agent said about one of its tool calls in tool_call and
// tool_call_update notifications: what a later permission request for it is about.
type reportedCall struct {
	title    string
	kind     acp.ToolKind
	rawInput json.RawMessage
	meta     acp.Meta
}

// maxReported bounds what is remembered about the tool calls of one turn.
const maxReported = 1024

func (w *worker) remember(u acp.SessionUpdate) {
	switch {
	case u.ToolCall != nil:
		if len(w.reported) < maxReported {
			w.reported[u.ToolCall.ToolCallID] = &reportedCall{title: u.ToolCall.Title, kind: u.ToolCall.Kind, rawInput: u.ToolCall.RawInput, meta: u.ToolCall.Meta}
		}
	case u.ToolCallUpdate != nil:
		r := w.reported[u.ToolCallUpdate.ToolCallID]
		if r == nil {
			return
		}
		if u.ToolCallUpdate.Title != "" {
			r.title = u.ToolCallUpdate.Title
		}
		if u.ToolCallUpdate.Kind != "" {
			r.kind = u.ToolCallUpdate.Kind
		}
		if len(u.ToolCallUpdate.RawInput) > 0 {
			r.rawInput = u.ToolCallUpdate.RawInput
		}
		for k, v := range u.ToolCallUpdate.Meta {
			if r.meta == nil {
				r.meta = acp.Meta{}
			}
			r.meta[k] = v
		}
	}
}
