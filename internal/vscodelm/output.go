package vscodelm

import (
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
)

// onText shows the agent's text, as it streamed, in a text part: made visible (every
// invisible or control character as <U+XXXX>, toolui.SafeText), as every front-end shows
// it. VS Code echoes the part back as history, so the matcher remembers, and compares,
// the text as it was sent (history.go).
func (w *worker) onText(turn int, text string) {
	if w.turn == nil || w.turn.draining || turn != w.turn.id {
		return // the output of a cancelled or finished turn
	}
	w.emit(said{part: TextPart(w.text.String(text))})
}

// onUpdate shows the rest of the turn the conversation folded: the agent's own tool calls
// and plans as Markdown that shows each call once and then only its status changes (or as
// structured parts for a client that renders them). A permission question is shown as a
// call of the agent-action tool (waits.go), not here; nor is a tool call the agent never
// reported itself (one the conversation knows only from such a question).
func (w *worker) onUpdate(u conversation.TurnUpdate) {
	if w.turn == nil || w.turn.draining || u.Turn != w.turn.id {
		return
	}
	ev := u.Update
	switch ev.Kind {
	case toolstate.PermissionRequested:
		return
	case toolstate.ToolStarted:
		w.started[ev.Tool.ID] = true
	case toolstate.ToolUpdated:
		if !w.started[ev.Tool.ID] {
			return
		}
	}
	if p, ok := w.structured(ev); ok {
		w.emit(said{part: p, transient: true}) // display only: not part of the history
		return
	}
	w.mdOut.Reset()
	w.md.Render(ev)
	if w.mdOut.Len() > 0 {
		w.emit(said{part: TextPart(w.mdOut.String()), display: true})
	}
}

// structured makes a thinking or tool_invocation part for a client that renders them:
// the tool call's whole state (toolui.ToolCallPart, the state model of VS Code's
// ChatToolInvocationPart) each time it changes, keyed by toolCallId.
func (w *worker) structured(ev toolstate.Event) (ContentPart, bool) {
	var kind string
	switch ev.Kind {
	case toolstate.ThoughtDelta:
		kind = "thinking"
	case toolstate.ToolStarted, toolstate.ToolUpdated:
		kind = "tool_invocation"
	default:
		return ContentPart{}, false
	}
	if !w.caps.CanRender(kind) {
		return ContentPart{}, false
	}
	if kind == "thinking" {
		raw, _ := json.Marshal(map[string]string{"type": "thinking", "value": w.thinking.String(ev.Text)})
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
	if s.note != nil {
		w.s.notify(w.open, s.note.method, s.note.params(w.open.id))
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
