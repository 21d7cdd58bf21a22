package vscodelm

import (
	"bytes"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/mcpbridge"
	"github.com/parley-acp/parley/internal/toolstate"
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
// A name is only a claim: any agent (or a model steering one) can put it on a request for
// something else, say a shell command titled mcp__vscode_tools__read_file. So the request
// must also look like what every agent sends for an MCP tool call, in what it says and in
// what it reported earlier about the same toolCallId:
//
//   - every form present names the same offered tool;
//   - its input, when there is one, is that tool's arguments: a JSON object whose members
//     the tool's schema declares (when it declares any), or codex's wrapper
//     {"server":"vscode_tools","tool":<the same name>,"arguments":{…}} around them;
//   - its kind is absent or "other", as Claude, gemini and qwen give MCP calls; codex
//     calls every MCP call "execute", so that kind (or any other) is taken only from an
//     agent that described the call with the wrapper, which no shell command's or edit's
//     input is.
//
// Anything else is an action of the agent's own, which VS Code must confirm through the
// agent-action tool. A bare tool name never counts either: an agent's own "execute"
// request titled like a VS Code tool (say copilot_readFile) is such an action.

// bridgedToolAsked returns the bridged VS Code tool a permission request is the agent's
// call of, from the request and what the agent reported earlier about the same
// toolCallId (as the conversation folded it), or "" when it is anything else.
func bridgedToolAsked(req *acp.RequestPermissionRequest, reported *toolstate.ToolCall, tools []ToolDefinition) string {
	titles := []string{req.ToolCall.Title}
	metas := []acp.Meta{req.Meta, req.ToolCall.Meta}
	inputs := []json.RawMessage{req.ToolCall.RawInput}
	kinds := []acp.ToolKind{req.ToolCall.Kind}
	if reported != nil {
		titles = append(titles, reported.Title)
		metas = append(metas, reported.Meta)
		inputs = append(inputs, reported.RawInput)
		kinds = append(kinds, reported.RawKind)
	}
	var names []string
	add := func(name string, ok bool) {
		if ok {
			names = append(names, name)
		}
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
	if len(names) == 0 {
		return ""
	}
	for _, name := range names[1:] {
		if name != names[0] {
			return "" // two tools claimed at once: not one MCP call
		}
	}
	tool := offeredTool(tools, names[0])
	if tool == nil {
		return ""
	}
	wrapped := false
	for _, in := range inputs {
		ok, w := toolInput(in, tool)
		if !ok {
			return ""
		}
		wrapped = wrapped || w
	}
	for _, k := range kinds {
		if k != "" && k != acp.ToolKindOther && !wrapped {
			return ""
		}
	}
	return tool.Name
}

func offeredTool(tools []ToolDefinition, name string) *ToolDefinition {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
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

// codexWrapper is how codex reports an MCP tool call's input.
type codexWrapper struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

func toolFromRawInput(raw json.RawMessage) (string, bool) {
	var in codexWrapper
	if !isObject(raw) || json.Unmarshal(raw, &in) != nil || in.Server != mcpbridge.ServerName {
		return "", false
	}
	return in.Tool, in.Tool != ""
}

// toolInput reports whether raw, a permission request's or tool call's input, is absent
// or the arguments of a call of tool (ok): an object whose members the tool's schema
// declares (any object when it declares none), bare or in codex's wrapper (wrapped).
func toolInput(raw json.RawMessage, tool *ToolDefinition) (ok, wrapped bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return true, false
	}
	if !isObject(raw) {
		return false, false
	}
	var wrapper codexWrapper
	if json.Unmarshal(raw, &wrapper) == nil && wrapper.Server == mcpbridge.ServerName {
		if wrapper.Tool != tool.Name {
			return false, false
		}
		args := bytes.TrimSpace(wrapper.Arguments)
		ok := len(args) == 0 || string(args) == "null" || isObject(args) && membersDeclared(args, tool.InputSchema)
		return ok, ok
	}
	return membersDeclared(raw, tool.InputSchema), false
}

// membersDeclared reports whether every member of the object args is a property the
// schema declares; a schema that declares none takes any object.
func membersDeclared(args, schema json.RawMessage) bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return true
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(args, &members) != nil {
		return false
	}
	for name := range members {
		if _, ok := s.Properties[name]; !ok {
			return false
		}
	}
	return true
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
