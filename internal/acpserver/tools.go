package acpserver

import (
	"maps"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
)

// toolMessages adds to each tool call a view relays what parley's other views say of it
// (toolstate's messages: "Reading `main.go`", "Read `main.go`"), in _meta.parley, so that a
// client shows the same words without a copy of parley's rules. It folds the calls of
// the view's session; the view's goroutine owns it.
type toolMessages struct{ turn *toolstate.Turn }

func newToolMessages(root string) *toolMessages {
	return &toolMessages{turn: toolstate.NewTurn(&toolstate.TurnOptions{Root: root})}
}

// add returns u with the call's messages in _meta.parley, when u is a tool call or its
// update; the agent's own _meta.parley is replaced (it is parley's to say). u itself, which
// other views share, is not changed.
func (m *toolMessages) add(u acp.SessionUpdate) acp.SessionUpdate {
	var id acp.ToolCallID
	var meta *acp.Meta
	switch {
	case u.ToolCall != nil:
		c := *u.ToolCall
		u.ToolCall, id, meta = &c, c.ToolCallID, &c.Meta
	case u.ToolCallUpdate != nil:
		c := *u.ToolCallUpdate
		u.ToolCallUpdate, id, meta = &c, c.ToolCallID, &c.Meta
	default:
		return u
	}
	m.turn.Apply(u)
	tc := m.turn.Call(id)
	if tc == nil {
		return u
	}
	said := callMeta(tc)
	said.Started, said.Ended = replayTimes((*meta)["parley"])
	*meta = maps.Clone(*meta)
	if *meta == nil {
		*meta = acp.Meta{}
	}
	(*meta)["parley"] = parleyMeta(said)["parley"]
	return u
}

// replayTimes are the times a replayed call carries (the conversation's transcript
// stamps when parley saw it begin and end): kept, when they are times, so that a
// reloaded page shows the call's duration. Anything else the agent put there is not.
func replayTimes(raw json.RawMessage) (started, ended string) {
	var m parleyapi.ToolCallMeta
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return "", ""
	}
	keep := func(s string) string {
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return ""
		}
		return s
	}
	return keep(m.Started), keep(m.Ended)
}

func callMeta(tc *toolstate.ToolCall) parleyapi.ToolCallMeta {
	o := tc.Outcome()
	return parleyapi.ToolCallMeta{
		Invocation: toolui.SafeText(tc.InvocationMessage), PastTense: toolui.SafeText(tc.PastTenseMessage),
		Outcome: string(o), OutcomeText: o.Words(),
	}
}

// decided folds a permission decision into the calls, and returns the update that tells
// the page how the call ended when the decision ended it (a refusal: the call never
// runs, and the agent's later "failed" is not what happened).
func (m *toolMessages) decided(ev conversation.Decided) (acp.SessionUpdate, bool) {
	updated, _ := m.turn.Decide(ev.Request, ev.Outcome, string(ev.By))
	if updated.Tool == nil || updated.Tool.Outcome() == toolstate.OutcomeNone {
		return acp.SessionUpdate{}, false
	}
	tc := updated.Tool
	u := acp.ToolCallUpdate{ToolCallID: tc.ID, Meta: parleyMeta(callMeta(tc))}
	if updated.Kind == toolstate.ToolStarted { // the agent never reported the call: say what it was
		u.Title, u.Kind, u.RawInput = ev.Request.ToolCall.Title, ev.Request.ToolCall.Kind, ev.Request.ToolCall.RawInput
		return acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: tc.ID, Title: u.Title, Kind: u.Kind, RawInput: u.RawInput, Status: acp.ToolCallStatusFailed, Meta: u.Meta}}, true
	}
	return acp.SessionUpdate{ToolCallUpdate: &u}, true
}
