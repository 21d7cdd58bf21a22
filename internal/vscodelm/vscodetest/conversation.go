package vscodetest

import (
	"reflect"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/vscodelm"
)

// Chat sends lm/provideLanguageModelChatResponse. options is {} without tools, as the
// Symposium client sends it.
func (c *Client) Chat(agent json.RawMessage, messages []vscodelm.Message, tools []vscodelm.ToolDefinition) int64 {
	c.T.Helper()
	return c.Request(ChatMethod, vscodelm.ChatRequestParams{
		ModelID:  "eliza",
		Messages: messages,
		Agent:    agent,
		Options:  &vscodelm.RequestOptions{Tools: tools, ToolMode: toolMode(tools)},
	})
}

func toolMode(tools []vscodelm.ToolDefinition) string {
	if len(tools) == 0 {
		return ""
	}
	return "auto"
}

// Conversation is one VS Code chat: it resends the whole history with every request, as
// VS Code does.
type Conversation struct {
	C       *Client
	Agent   json.RawMessage
	Tools   []vscodelm.ToolDefinition
	History []vscodelm.Message
	// Params, when set, changes the params of every request of the conversation before
	// they are sent (a workspace, the client's capabilities).
	Params func(p *vscodelm.ChatRequestParams)
}

// Conversation starts a chat with agent, offering tools.
func (c *Client) Conversation(agent json.RawMessage, tools ...vscodelm.ToolDefinition) *Conversation {
	return &Conversation{C: c, Agent: agent, Tools: tools}
}

// Send appends msgs to the history and sends it all.
func (cv *Conversation) Send(msgs ...vscodelm.Message) int64 {
	cv.C.T.Helper()
	id, line := cv.Prepare(msgs...)
	cv.C.Write(line)
	return id
}

// Prepare is Send without the write: the caller writes the line.
func (cv *Conversation) Prepare(msgs ...vscodelm.Message) (int64, string) {
	cv.C.T.Helper()
	cv.History = append(cv.History, msgs...)
	p := vscodelm.ChatRequestParams{
		ModelID:  "eliza",
		Messages: slices.Clone(cv.History),
		Agent:    cv.Agent,
		Options:  &vscodelm.RequestOptions{Tools: cv.Tools, ToolMode: toolMode(cv.Tools)},
	}
	if cv.Params != nil {
		cv.Params(&p)
	}
	return cv.C.Prepare(ChatMethod, p)
}

// Record appends the assistant's reply as VS Code echoes it: the parts it received.
func (cv *Conversation) Record(parts []vscodelm.ContentPart) {
	if len(parts) > 0 {
		cv.History = append(cv.History, vscodelm.Message{Role: vscodelm.RoleAssistant, Content: slices.Clone(parts)})
	}
}

// DropLast removes the last n messages, as an edit or a regeneration in VS Code does.
func (cv *Conversation) DropLast(n int) {
	cv.History = slices.Clone(cv.History[:len(cv.History)-n])
}

// Turn sends a user message, awaits a successful reply, records it and returns its text.
func (cv *Conversation) Turn(text string) string {
	cv.C.T.Helper()
	parts := cv.C.OK(cv.Send(User(text)))
	cv.Record(parts)
	return TextOf(parts)
}

// User is a user message of one text part.
func User(text string) vscodelm.Message {
	return vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{vscodelm.TextPart(text)}}
}

// ToolResult is a tool_result part whose result is VS Code's content array [{"value": v}].
func ToolResult(callID, value string) vscodelm.ContentPart {
	result, err := json.Marshal([]map[string]string{{"value": value}})
	if err != nil {
		panic(err)
	}
	return vscodelm.ContentPart{Type: vscodelm.PartToolResult, ToolCallID: callID, Result: result}
}

// Results is a user message of tool_result parts.
func Results(parts ...vscodelm.ContentPart) vscodelm.Message {
	return vscodelm.Message{Role: vscodelm.RoleUser, Content: parts}
}

// TextOf concatenates the text parts.
func TextOf(parts []vscodelm.ContentPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == vscodelm.PartText {
			b.WriteString(p.Value)
		}
	}
	return b.String()
}

// ToolCalls returns the tool_call parts.
func ToolCalls(parts []vscodelm.ContentPart) []vscodelm.ContentPart {
	var calls []vscodelm.ContentPart
	for _, p := range parts {
		if p.Type == vscodelm.PartToolCall {
			calls = append(calls, p)
		}
	}
	return calls
}

// JSONEqual reports whether two JSON texts encode the same value.
func JSONEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
