package toolstate

import (
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// The _meta keys a tool call's grouping and visibility are read from. ACP v1 has no
// member for either, so agents put them in _meta; the package documentation lists them
// for agent authors.
var (
	parentKeys = [][]string{
		{"parentToolCallId"},                 // generic
		{"claudeCode", "parentToolUseId"},    // claude-agent-acp
		{"claudeCode", "parent_tool_use_id"}, // the Claude Agent SDK's own spelling
		{"parley", "parentToolCallId"},       // parley's own agent
	}
	presentationKeys = [][]string{
		{"presentation"},
		{"parley", "presentation"},
	}
)

func parentID(m acp.Meta) acp.ToolCallID {
	for _, path := range parentKeys {
		if s := metaString(m, path...); s != "" {
			return acp.ToolCallID(s)
		}
	}
	return ""
}

// presentation reads the presentation; an unknown value means visible (a UI that is
// unsure shows the call).
func presentation(m acp.Meta) Presentation {
	for _, path := range presentationKeys {
		switch p := Presentation(metaString(m, path...)); p {
		case Hidden, HiddenAfterComplete:
			return p
		}
	}
	return Visible
}

// metaString returns the string at path inside _meta, or "" when a step is missing or
// the value is not a string.
func metaString(m acp.Meta, path ...string) string {
	if len(m) == 0 || len(path) == 0 {
		return ""
	}
	raw := []byte(m[path[0]])
	for _, name := range path[1:] {
		if raw = json.Member(raw, name); raw == nil {
			return ""
		}
	}
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
