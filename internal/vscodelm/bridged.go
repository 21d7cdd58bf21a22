package vscodelm

import (
	"bytes"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/mcpbridge"
)

// Agents ask permission for an MCP tool each in their own way; these are the forms that
// name parley's own server, so a permission request for one of its bridged VS Code tools
// can be allowed without asking (VS Code confirms the tool itself when it runs it):
//
//	title "mcp__vscode_tools__<name>"                 Claude; qwen puts it in _meta.toolName
//	title "mcp.vscode_tools.<name>"                   codex, on the tool_call it reported earlier
//	rawInput {"server":"vscode_tools","tool":<name>}  codex, likewise
//	title "<name> (vscode_tools MCP Server)"          gemini
//
// A bare tool name never counts: an agent's own "execute" request titled like a VS Code
// tool (say copilot_readFile) is an action of the agent's, and VS Code must confirm it.

// bridgedToolAsked returns the bridged VS Code tool a permission request is about, from
// the request and what the agent reported earlier about the same toolCallId, or "" when
// it is not a call of parley's vscode_tools.
func bridgedToolAsked(req *acp.RequestPermissionRequest, reported *reportedCall, tools []ToolDefinition) string {
	var names []string
	add := func(name string, ok bool) {
		if ok {
			names = append(names, name)
		}
	}
	titles := []string{req.ToolCall.Title}
	metas := []acp.Meta{req.Meta, req.ToolCall.Meta}
	inputs := []json.RawMessage{req.ToolCall.RawInput}
	if reported != nil {
		titles = append(titles, reported.title)
		metas = append(metas, reported.meta)
		inputs = append(inputs, reported.rawInput)
	}
	for _, t := range titles {
		add(toolFromTitle(t))
	}
	for _, m := range metas {
		var name string
		if raw := m["toolName"]; raw != nil && json.Unmarshal(raw, &name) == nil {
			add(strings.CutPrefix(name, "mcp__"+mcpbridge.ServerName+"__"))
		}
	}
	for _, in := range inputs {
		add(toolFromRawInput(in))
	}
	for _, name := range names {
		for _, t := range tools {
			if t.Name == name {
				return name
			}
		}
	}
	return ""
}

func toolFromTitle(title string) (string, bool) {
	title = strings.TrimSpace(title)
	if name, ok := strings.CutPrefix(title, "mcp__"+mcpbridge.ServerName+"__"); ok {
		return name, true
	}
	if name, ok := strings.CutPrefix(title, "mcp."+mcpbridge.ServerName+"."); ok {
		return name, true
	}
	return strings.CutSuffix(title, " ("+mcpbridge.ServerName+" MCP Server)")
}

func toolFromRawInput(raw json.RawMessage) (string, bool) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '{' {
		return "", false
	}
	var in struct {
		Server string `json:"server"`
		Tool   string `json:"tool"`
	}
	if json.Unmarshal(raw, &in) != nil || in.Server != mcpbridge.ServerName {
		return "", false
	}
	return in.Tool, in.Tool != ""
}
