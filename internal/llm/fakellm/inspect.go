package fakellm

import (
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/llm"
)

// What a script asks of a request to decide how to answer it. Every dialect's request
// is recorded in the same form, so these work for all of them.

// LastUser is the text of the last user message ("" when there is none).
func (r *Recorded) LastUser() string {
	for _, m := range slices.Backward(r.Messages) {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// UserSaid reports whether any user message contains s.
func (r *Recorded) UserSaid(s string) bool {
	for _, m := range r.Messages {
		if m.Role == "user" && strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}

// Contains reports whether any message (system, user, assistant or tool) or any tool
// call's arguments contain s.
func (r *Recorded) Contains(s string) bool {
	for _, m := range r.Messages {
		if strings.Contains(m.Content, s) {
			return true
		}
		for _, c := range m.ToolCalls {
			if strings.Contains(string(c.Arguments), s) {
				return true
			}
		}
	}
	return false
}

// ToolResults are the tool results after the last user message: what the client
// reported back in this turn.
func (r *Recorded) ToolResults() []llm.Message {
	var out []llm.Message
	for _, m := range slices.Backward(r.Messages) {
		if m.Role == "user" {
			break
		}
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	slices.Reverse(out)
	return out
}

// ToolResult is the result of the call with id (Gemini: the tool's name), anywhere in
// the conversation.
func (r *Recorded) ToolResult(id string) (llm.Message, bool) {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m, true
		}
	}
	return llm.Message{}, false
}

// CallsMade are the tool calls the assistant made in the conversation so far.
func (r *Recorded) CallsMade() []llm.ToolCall {
	var out []llm.ToolCall
	for _, m := range r.Messages {
		out = append(out, m.ToolCalls...)
	}
	return out
}

// Tool is the first tool offered whose name is one of names, in the order of names.
func (r *Recorded) Tool(names ...string) (Tool, bool) {
	for _, n := range names {
		for _, t := range r.Tools {
			if t.Name == n {
				return t, true
			}
		}
	}
	return Tool{}, false
}

// ToolNames are the names of the tools offered.
func (r *Recorded) ToolNames() []string {
	names := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		names[i] = t.Name
	}
	return names
}

// Property reports whether the tool's parameters have a property called name.
func (t Tool) Property(name string) bool {
	props, _ := t.Parameters["properties"].(map[string]any)
	_, ok := props[name]
	return ok
}
