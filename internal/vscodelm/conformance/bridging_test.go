package conformance

// Issue 8, cases 5–7: VS Code's tools with real agents' permission forms, parallel calls
// whatever their timing, and tool schemas the MCP side cannot take.

import (
	"os"
	"path/filepath"
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
			parts := c.OK(cv.Send(user(`ask ` + form + ` read_file {"path":"a.go"}`)))
			calls := toolCalls(parts)
			if len(calls) != 1 || calls[0].ToolName != "read_file" {
				t.Fatalf("tool calls %+v, want the one call of read_file (no confirmation of the permission: VS Code confirms the tool)", calls)
			}
			cv.Record(parts)
			got := textOf(parts) + textOf(c.OK(cv.Send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{toolResult(calls[0].ToolCallID, "package a")}})))
			if !strings.Contains(got, "permission: allow_once") || !strings.Contains(got, "OK: package a") {
				t.Errorf("reply %q, want the permission allowed once and the tool's result", got)
			}
		})
	}
	// A shell command (kind execute, the command as input) named as a call of an offered
	// tool, by the bare name or in each agent's MCP form, is the agent's own action: VS
	// Code is asked through the agent-action tool, and only its approval allows it.
	for _, form := range []string{"bare", "claude", "codex", "gemini", "qwen"} {
		t.Run("hostile execute named as the tool, "+form, func(t *testing.T) {
			tool := vscodelm.ToolDefinition{Name: "copilot_readFile", Description: "Read a file"}
			c := start(t)
			cv := c.conversation(fakeAgent("ok"), tool, agentActionTool("parley-agent-action"))
			parts := c.OK(cv.Send(user("hostile " + form + " copilot_readFile")))
			if strings.Contains(textOf(parts), "hostile: allow") {
				t.Fatalf("a shell command named as %s in the %s form was allowed without confirmation: %q", tool.Name, form, textOf(parts))
			}
			calls := toolCalls(parts)
			if len(calls) != 1 || calls[0].ToolName != "parley-agent-action" {
				t.Fatalf("tool calls %+v, want the agent action shown for confirmation", calls)
			}
			if !strings.Contains(string(calls[0].Parameters), "rm -rf ~") {
				t.Errorf("agent action %s, want the command shown to the user", calls[0].Parameters)
			}
			cv.Record(parts)
			got := textOf(c.OK(cv.Send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{toolResult(calls[0].ToolCallID, "Approved")}})))
			if !strings.Contains(got, "hostile: allow_once") {
				t.Errorf("after the user approved: %q, want allow_once", got)
			}
		})
	}
	t.Run("hostile without the agent-action tool", func(t *testing.T) {
		tool := vscodelm.ToolDefinition{Name: "copilot_readFile", Description: "Read a file"}
		c := start(t)
		got := textOf(c.OK(c.conversation(fakeAgent("ok"), tool).Send(user("hostile copilot_readFile"))))
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
		got := cv.Turn("list tools from vscode_tools")
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
		c.AwaitStderr("skipping tool", "tool="+name)
	}
}

// Issue 16 (qwen-code, two VS Code tools and the agent-action tool): an agent that
// discovers its MCP servers in the background of session/new must have VS Code's tools
// before its first turn starts, or its model finds no such tool and no call reaches VS
// Code. (qwen-code gives an HTTP MCP server 5 seconds; on a busy machine the turn parley
// started at once kept it too busy to list the tools in time, and it gave up.) parley holds
// the first prompt until the agent, connected to vscode_tools, has listed them.
func TestFirstPromptWaitsForBackgroundToolDiscovery(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "list")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	c := start(t, "--log", "debug", "vscodelm")
	tools := append(slices.Clone(threeTools[:2]), agentActionTool("parley-agent-action"))
	cv := c.conversation(fakeAgent("background-mcp", fakeFIFOEnv+"="+fifo), tools...)
	id := cv.Send(user("both a b"))
	// The agent has connected and waits for the test before it lists the tools: parley
	// must hold the prompt meanwhile (it says so), not start the turn without them.
	c.WaitFor("the prompt held for the tools, or an answer", func() bool {
		return slices.ContainsFunc(c.LogLines(), func(l string) bool { return strings.Contains(l, "waits for the agent to list") }) ||
			c.Answered(id) || len(c.Parts(id)) > 0
	})
	list, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	list.WriteString("go\n")
	list.Close()

	var text strings.Builder
	called := map[string]bool{}
	for range 4 { // VS Code runs the tools a response calls, until one calls none
		parts := c.OK(id)
		text.WriteString(textOf(parts))
		cv.Record(parts)
		calls := toolCalls(parts)
		if len(calls) == 0 {
			break
		}
		var results []vscodelm.ContentPart
		for _, call := range calls {
			if call.ToolName == "parley-agent-action" {
				t.Fatalf("parley asked VS Code to confirm the agent's call of a VS Code tool: %s", call.Parameters)
			}
			called[call.ToolName] = true
			results = append(results, toolResult(call.ToolCallID, "result-of-"+call.ToolName))
		}
		id = cv.Send(vscodelm.Message{Role: vscodelm.RoleUser, Content: results})
	}
	if !called["a"] || !called["b"] {
		t.Errorf("VS Code ran %v, want both tools; reply %q", called, text.String())
	}
	if got := text.String(); !strings.Contains(got, "OK: result-of-a\nOK: result-of-b") {
		t.Errorf("reply %q, want both results given to the agent", got)
	}
}
