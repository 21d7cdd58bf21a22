package vscodelm

import (
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

func TestBridgedToolAsked(t *testing.T) {
	offered := []ToolDefinition{{Name: "read_file"}, {Name: "copilot_readFile"}}
	codexCall := &reportedCall{title: "mcp.vscode_tools.read_file", rawInput: json.RawMessage(`{"server":"vscode_tools","tool":"read_file","arguments":{}}`)}
	for _, tt := range []struct {
		name     string
		req      acp.RequestPermissionRequest
		reported *reportedCall
		want     string
	}{
		{"claude title", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__read_file"}}, nil, "read_file"},
		{"codex, from the reported call", acp.RequestPermissionRequest{Meta: acp.Meta{"is_mcp_tool_approval": json.RawMessage(`true`)}}, codexCall, "read_file"},
		{"codex raw input only", acp.RequestPermissionRequest{}, &reportedCall{rawInput: codexCall.rawInput}, "read_file"},
		{"gemini title", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "read_file (vscode_tools MCP Server)"}}, nil, "read_file"},
		{"qwen meta", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: `{"path":"a"}`, Meta: acp.Meta{"toolName": json.RawMessage(`"mcp__vscode_tools__read_file"`)}}}, nil, "read_file"},
		{"bare name", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "copilot_readFile", Kind: acp.ToolKindExecute}}, nil, ""},
		{"another server", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__other__read_file"}}, nil, ""},
		{"another server's raw input", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{RawInput: json.RawMessage(`{"server":"other","tool":"read_file"}`)}}, nil, ""},
		{"a tool not offered", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: "mcp__vscode_tools__rm"}}, nil, ""},
		{"raw input not an object", acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{RawInput: json.RawMessage(`"x"`)}}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := bridgedToolAsked(&tt.req, tt.reported, offered); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
