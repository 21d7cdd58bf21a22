// Package toolstate is the model of a turn of an ACP agent that every front-end and the
// conversation core fold ACP session updates with: each tool call's state, the events a
// change of it makes, and the turn's plan and usage. How a turn is shown is package
// toolui.
//
// The model follows VS Code's ChatToolInvocationPart. A ToolCall goes Streaming (ACP
// "pending") → WaitingForConfirmation (a permission request is open) → Executing
// ("in_progress") → Completed ("completed"; "failed" is Completed with IsError), or →
// Cancelled, which the client sets itself because ACP v1 has no cancelled status. It
// carries an invocation message in the present tense ("Reading `main.go`") and a
// past-tense one ("Read `main.go`", "Ran `go test ./...`", "Edited `a.go` (+3 −1)"),
// derived from the kind, title, locations, diffs and raw input when the agent's title is
// terse; the error, the pending confirmation, the terminal command, terminals, diffs
// with their line counts, locations, text content, the parent call and the presentation.
// An unknown kind or status is shown as a neutral default ("other"; the state unchanged)
// and kept verbatim in RawKind and RawStatus.
//
// # _meta keys
//
// ACP v1 has no member for sub-agent grouping or visibility, so they are read from the
// tool call's _meta (a later update's _meta overrides members of an earlier one):
//
//   - parent call, the first of: _meta.parentToolCallId, _meta.claudeCode.parentToolUseId,
//     _meta.claudeCode.parent_tool_use_id, _meta.parley.parentToolCallId (a string: the
//     toolCallId of the call this one runs under, such as a sub-agent's task);
//   - presentation: _meta.presentation or _meta.parley.presentation, "hidden" (never
//     shown) or "hiddenAfterComplete" (shown until done); any other value is visible;
//   - tool name, when the call has no "name": _meta.claudeCode.toolName.
package toolstate
