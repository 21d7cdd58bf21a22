package vscodelm

import (
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/toolstate"
)

func TestBridgedToolAsked(t *testing.T) {
	offered := []ToolDefinition{
		{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "copilot_readFile"},
	}
	// codex 2.6 reports an MCP call with kind execute and asks with kind execute, no title
	// and no input.
	codexCall := &toolstate.ToolCall{Title: "mcp.vscode_tools.read_file", RawKind: acp.ToolKindExecute, RawInput: json.RawMessage(`{"server":"vscode_tools","tool":"read_file","arguments":{"path":"a"}}`)}
	codexAsks := acp.RequestPermissionRequest{Meta: acp.Meta{"is_mcp_tool_approval": json.RawMessage(`true`)}, ToolCall: acp.ToolCallUpdate{Kind: acp.ToolKindExecute}}
	shell := json.RawMessage(`{"command":"rm -rf ~"}`)
	for _, tt := range []struct {
		name     string
		req      acp.RequestPermissionRequest
		reported *toolstate.ToolCall
		want     string
	}{
		{"claude title", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__read_file", RawInput: json.RawMessage(`{"path":"a"}`)}}, nil, "read_file"},
		{"claude title, kind other", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__read_file", Kind: acp.ToolKindOther}}, nil, "read_file"},
		{"codex, from the reported call", codexAsks, codexCall, "read_file"},
		{"codex raw input only", acp.RequestPermissionRequest{}, &toolstate.ToolCall{RawInput: codexCall.RawInput}, "read_file"},
		{"gemini title", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "read_file (vscode_tools MCP Server)"}}, nil, "read_file"},
		{"qwen meta", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: `{"path":"a"}`, Meta: acp.Meta{"toolName": json.RawMessage(`"mcp__vscode_tools__read_file"`)}}}, nil, "read_file"},
		{"a tool without declared properties takes any object", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__copilot_readFile", RawInput: json.RawMessage(`{"filePath":"a"}`)}}, nil, "copilot_readFile"},

		{"bare name", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "copilot_readFile", Kind: acp.ToolKindExecute}}, nil, ""},
		{"another server", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__other__read_file"}}, nil, ""},
		{"another server's raw input", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{RawInput: json.RawMessage(`{"server":"other","tool":"read_file"}`)}}, nil, ""},
		{"a tool not offered", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__rm"}}, nil, ""},
		{"raw input not an object", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{RawInput: json.RawMessage(`"x"`)}}, nil, ""},

		// A shell command dressed as a bridged call, in every form.
		{"execute titled like claude", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__read_file", Kind: acp.ToolKindExecute, RawInput: shell}}, nil, ""},
		{"execute titled like claude, no input", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__copilot_readFile", Kind: acp.ToolKindExecute}}, nil, ""},
		{"edit titled like gemini", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "read_file (vscode_tools MCP Server)", Kind: acp.ToolKindEdit}}, nil, ""},
		{"execute with qwen's meta", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "rm -rf ~", Kind: acp.ToolKindExecute, Meta: acp.Meta{"toolName": json.RawMessage(`"mcp__vscode_tools__read_file"`)}}}, nil, ""},
		{"codex's title on a command", codexAsks, &toolstate.ToolCall{Title: "mcp.vscode_tools.read_file", RawKind: acp.ToolKindExecute, RawInput: shell}, ""},
		{"codex's title on a command, no declared properties", codexAsks, &toolstate.ToolCall{Title: "mcp.vscode_tools.copilot_readFile", RawKind: acp.ToolKindExecute, RawInput: shell}, ""},
		{"kind other, a command as input", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__read_file", RawInput: shell}}, nil, ""},
		{"the reported call is a command", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__read_file"}}, &toolstate.ToolCall{Title: "Run rm -rf ~", RawKind: acp.ToolKindExecute, RawInput: shell}, ""},
		{"codex wrapper around another tool", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__read_file", RawInput: json.RawMessage(`{"server":"vscode_tools","tool":"copilot_readFile"}`)}}, nil, ""},
		{"codex wrapper with a command as arguments", acp.RequestPermissionRequest{}, &toolstate.ToolCall{RawInput: json.RawMessage(`{"server":"vscode_tools","tool":"read_file","arguments":{"command":"rm -rf ~"}}`)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := bridgedToolAsked(&tt.req, tt.reported, offered); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
