package conformance

// Issue 8, cases 5–7: VS Code's tools with real agents' permission forms, parallel calls
// whatever their timing, and tool schemas the MCP side cannot take.

import (
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/vscodelm"
)

var readFileTool = vscodelm.ToolDefinition{
	Name: "read_file", Description: "Read a file",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
}

// Case 5: every agent's way of asking permission for one of parley's own vscode_tools is
// recognised and allowed (VS Code confirms the tool itself when it runs it), so the call
// goes through; nothing else is allowed by name.
func TestBridgedToolPermissionForms(t *testing.T) {
	for _, form := range []string{"claude", "codex", "gemini", "qwen"} {
		t.Run(form, func(t *testing.T) {
			c := start(t)
			cv := c.conversation(fakeAgent("ok"), readFileTool, agentActionTool("parley-agent-action"))
			parts := c.ok(cv.send(user(`ask ` + form + ` read_file {"path":"a.go"}`)))
			calls := toolCalls(parts)
			if len(calls) != 1 || calls[0].ToolName != "read_file" {
				t.Fatalf("tool calls %+v, want the one call of read_file (no confirmation of the permission: VS Code confirms the tool)", calls)
			}
			cv.record(parts)
			got := textOf(parts) + textOf(c.ok(cv.send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{toolResult(calls[0].ToolCallID, "package a")}})))
			if !strings.Contains(got, "permission: allow_once") || !strings.Contains(got, "OK: package a") {
				t.Errorf("reply %q, want the permission allowed once and the tool's result", got)
			}
		})
	}
	t.Run("hostile execute titled with a tool's name", func(t *testing.T) {
		tool := vscodelm.ToolDefinition{Name: "copilot_readFile", Description: "Read a file"}
		c := start(t)
		cv := c.conversation(fakeAgent("ok"), tool, agentActionTool("parley-agent-action"))
		parts := c.ok(cv.send(user("hostile copilot_readFile")))
		if strings.Contains(textOf(parts), "hostile: allow") {
			t.Fatalf("an execute request titled %q was allowed without confirmation: %q", tool.Name, textOf(parts))
		}
		calls := toolCalls(parts)
		if len(calls) != 1 || calls[0].ToolName != "parley-agent-action" {
			t.Fatalf("tool calls %+v, want the agent action shown for confirmation", calls)
		}
		cv.record(parts)
		got := textOf(c.ok(cv.send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{toolResult(calls[0].ToolCallID, "Approved")}})))
		if !strings.Contains(got, "hostile: allow_once") {
			t.Errorf("after the user approved: %q, want allow_once", got)
		}
	})
	t.Run("hostile without the agent-action tool", func(t *testing.T) {
		tool := vscodelm.ToolDefinition{Name: "copilot_readFile", Description: "Read a file"}
		c := start(t)
		got := textOf(c.ok(c.conversation(fakeAgent("ok"), tool).send(user("hostile copilot_readFile"))))
		if !strings.Contains(got, "hostile: reject_once") {
			t.Errorf("reply %q, want the request refused with reject_once", got)
		}
	})
}

// Case 7: a tool whose schema the MCP side cannot take (nested 500 levels deep, or with a
// duplicate "type" member) is left out with a warning; the other tools are served and the
// backend goes on.
func TestBadToolSchemaIsThatToolsProblem(t *testing.T) {
	deep := `{"type":"object","properties":{"x":` + strings.Repeat(`{"type":"object","properties":{"x":`, 500) +
		`{}` + strings.Repeat(`}}`, 500) + `}}`
	tools := []vscodelm.ToolDefinition{
		{Name: "good", Description: "A good tool", InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}}}`)},
		{Name: "deep", Description: "Nested 500 levels", InputSchema: json.RawMessage(deep)},
		{Name: "twotypes", Description: "Duplicate type", InputSchema: json.RawMessage(`{"type":"object","type":"string"}`)},
		{Name: "alsogood", Description: "Another good tool"},
	}
	c := start(t)
	cv := c.conversation(elizaTagged(), tools...)
	for round := range 2 { // every request offers the bad tools again
		got := cv.turn("list tools from vscode_tools")
		var names []string
		for _, line := range strings.Split(got, "\n") {
			if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
				name, _, _ = strings.Cut(name, ":")
				names = append(names, name)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"alsogood", "good"}) {
			t.Errorf("round %d: vscode_tools lists %q, want alsogood and good:\n%s", round+1, names, got)
		}
	}
	for _, name := range []string{"deep", "twotypes"} {
		c.awaitStderr("skipping tool", "tool="+name)
	}
}
