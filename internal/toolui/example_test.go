package toolui_test

import (
	"os"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
)

// A front-end feeds each session update through its Turn and hands what changed to its
// renderer; permission requests and cancellation go through the Turn too. Here the
// renderer writes for a pipe: one line when a call starts, one per status change.
func Example() {
	turn := toolstate.NewTurn(&toolstate.TurnOptions{Root: "/src/app"})
	r := toolui.NewTextRenderer(os.Stdout, nil) // {Color: true, Live: true, Width: w} on a terminal
	show := func(evs ...toolstate.Event) {
		for _, ev := range evs {
			r.Render(ev)
		}
	}

	show(turn.Apply(acp.AgentMessageChunk(acp.TextBlock("Running the tests.")))...)
	show(turn.Apply(acp.SessionUpdate{ToolCall: &acp.ToolCall{
		ToolCallID: "call-1", Title: "Bash", Kind: acp.ToolKindExecute,
		RawInput: []byte(`{"command":"go test ./..."}`),
	}})...)
	req := &acp.RequestPermissionRequest{
		ToolCall: acp.ToolCallUpdate{ToolCallID: "call-1"},
		Options:  []acp.PermissionOption{{OptionID: "ok", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}},
	}
	show(turn.AwaitConfirmation(req))
	r.Detach() // the front-end asks the user here
	show(turn.ResolveConfirmation("call-1", acp.SelectedOutcome("ok")))
	show(turn.Apply(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "call-1", Status: acp.ToolCallStatusCompleted}})...)
	show(turn.Apply(acp.AgentMessageChunk(acp.TextBlock("All pass.\n")))...)
	show(turn.Apply(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: 12_400, Size: 128_000}})...)
	r.EndTurn(acp.StopReasonEndTurn)

	// Output:
	// Running the tests.
	// → Running `go test ./...`
	// ⚠ Running `go test ./...` (waiting for approval)
	// → Running `go test ./...` (approved)
	// ✓ Ran `go test ./...`
	// All pass.
	// context 12k/128k
}
