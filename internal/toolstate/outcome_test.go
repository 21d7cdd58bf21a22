package toolstate

import (
	"testing"

	"github.com/parley-acp/parley/acp"
)

// A request refused without a question ends its call as refused, whoever refused it,
// and the agent's later "failed" (with its words for the model) does not change that.
func TestOutcomeOfARefusalIsNotTheAgentsFailure(t *testing.T) {
	opts := []acp.PermissionOption{
		{OptionID: "y", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionID: "n", Kind: acp.PermissionOptionKindRejectOnce},
	}
	for by, want := range map[string]Outcome{
		"no_one_to_ask": OutcomeNoOneToAsk, "rule": OutcomeRefusedByRule, "always": OutcomeRefusedByAlways,
		"parley": OutcomeRefusedByParley, "user": OutcomeRefusedByYou,
	} {
		turn := NewTurn(nil)
		req := &acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{ToolCallID: "c1", Title: "`rm -rf ../victim`", Kind: acp.ToolKindExecute, RawInput: []byte(`{"command":"rm -rf ../victim"}`)}, Options: opts}
		updated, _ := turn.Decide(req, acp.SelectedOutcome("n"), by)
		if updated.Kind != ToolStarted || updated.Tool.Outcome() != want {
			t.Errorf("%s: the refusal's event %v, outcome %q; want the call started, %q", by, updated.Kind, updated.Tool.Outcome(), want)
			continue
		}
		turn.Apply(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: acp.ToolCallStatusFailed,
			Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock("The user rejected this command."))}}})
		tc := turn.Call("c1")
		msg, note, o := tc.EndLine()
		if o != want || msg != "`rm -rf ../victim`" || note != want.Words() {
			t.Errorf("%s: after the agent's failed: %q — %q (%s); want `rm -rf ../victim` — %q", by, msg, note, o, want.Words())
		}
	}
	// Allowed, the call is the agent's to report: done or failed.
	turn := NewTurn(nil)
	req := &acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{ToolCallID: "c2", Kind: acp.ToolKindExecute}, Options: opts}
	if updated, _ := turn.Decide(req, acp.SelectedOutcome("y"), "rule"); updated.Kind != NoEvent {
		t.Errorf("an allow without a question made an event: %v", updated.Kind)
	}
	turn.Apply(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c2", Status: acp.ToolCallStatusFailed}})
	if o := turn.Call("c2").Outcome(); o != OutcomeFailed {
		t.Errorf("an allowed call that failed: %q", o)
	}
}
