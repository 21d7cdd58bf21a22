// The wire types of the lm/* protocol that VS Code's extension (and the clients written
// for Symposium's backend) speak to parley vscodelm: the content parts of messages and
// streamed responses, tool definitions, and the params and results of each method.

package vscodelm

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/json"
)

// ErrInvalidParams marks errors in request parameters; the server answers them with
// JSON-RPC -32602 for that request only and keeps the connection.
var ErrInvalidParams = errors.New("invalid params")

// Part types of the wire protocol.
const (
	PartText       = "text"
	PartToolCall   = "tool_call"
	PartToolResult = "tool_result"
)

// Roles. The client maps every VS Code role other than assistant to "user".
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// ContentPart is one part of a message or of a streamed response: a union tagged by
// "type". Only the fields of its Type are meaningful. Members a part has no field for
// (VS Code adds "$mid") are ignored on decode.
type ContentPart struct {
	Type       string
	Value      string          // text
	ToolCallID string          // tool_call, tool_result
	ToolName   string          // tool_call
	Parameters json.RawMessage // tool_call: any JSON; may be null
	Result     json.RawMessage // tool_result: any JSON, usually [{"value": "..."}]
	// Raw is a part of a type parley adds for clients that declared they render it
	// (capabilities.parts: "thinking", "tool_invocation"), written verbatim. Such parts
	// are for display only and never part of the history.
	Raw json.RawMessage
}

// TextPart returns a text part.
func TextPart(s string) ContentPart { return ContentPart{Type: PartText, Value: s} }

type textWire struct {
	Value string `json:"value"`
}

type toolCallWire struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Parameters json.RawMessage `json:"parameters"`
}

type toolResultWire struct {
	ToolCallID string          `json:"toolCallId"`
	Result     json.RawMessage `json:"result"`
}

func (p ContentPart) MarshalJSON() ([]byte, error) {
	switch p.Type {
	case PartText:
		return json.MarshalVariant("type", p.Type, textWire{p.Value}, nil)
	case PartToolCall:
		params := p.Parameters
		if len(params) == 0 {
			// {}, never null, for a call without arguments: the client echoes the part back
			// in the next request's history, where null and {} would not match.
			params = json.RawMessage("{}")
		}
		return json.MarshalVariant("type", p.Type, toolCallWire{p.ToolCallID, p.ToolName, params}, nil)
	case PartToolResult:
		result := p.Result
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		return json.MarshalVariant("type", p.Type, toolResultWire{p.ToolCallID, result}, nil)
	}
	if len(p.Raw) > 0 {
		return p.Raw, nil
	}
	return nil, fmt.Errorf("content part: unknown type %q", p.Type)
}

func (p *ContentPart) UnmarshalJSON(data []byte) error {
	var kind string
	raw := json.Member(data, "type")
	if raw == nil {
		return fmt.Errorf("content part without \"type\": %w", ErrInvalidParams)
	}
	if err := json.Unmarshal(raw, &kind); err != nil {
		return fmt.Errorf("content part type: %v: %w", err, ErrInvalidParams)
	}
	*p = ContentPart{Type: kind}
	var err error
	switch kind {
	case PartText:
		var w textWire
		_, err = json.UnmarshalVariant(data, &w, "type")
		p.Value = w.Value
	case PartToolCall:
		var w toolCallWire
		_, err = json.UnmarshalVariant(data, &w, "type")
		p.ToolCallID, p.ToolName, p.Parameters = w.ToolCallID, w.ToolName, w.Parameters
	case PartToolResult:
		var w toolResultWire
		_, err = json.UnmarshalVariant(data, &w, "type")
		p.ToolCallID, p.Result = w.ToolCallID, w.Result
	default:
		return fmt.Errorf("unknown content part type %q (want text, tool_call or tool_result): %w", kind, ErrInvalidParams)
	}
	if err != nil {
		return fmt.Errorf("%s part: %v: %w", kind, err, ErrInvalidParams)
	}
	return nil
}

// Message is one message of the conversation history.
type Message struct {
	Role    string        `json:"role"`
	Content []ContentPart `json:"content"`
}

// ToolDefinition is a VS Code tool offered in options.tools. A missing description is
// empty; inputSchema is often {} without a "type".
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// RequestOptions is params.options; absent and {} both mean no tools.
type RequestOptions struct {
	Tools    []ToolDefinition `json:"tools,omitempty"`
	ToolMode string           `json:"toolMode,omitempty"` // "auto" or "required"
}

// ClientCapabilities is the parley addition params.capabilities.
type ClientCapabilities struct {
	// Parts names the extra part types the client renders, e.g. "thinking",
	// "tool_invocation".
	Parts []string `json:"parts,omitempty"`
	// Notifications names the notifications about a chat request the client handles
	// beyond the protocol's (wire_features.go): lm/conversation, lm/usage, lm/changes,
	// lm/elicitation, lm/signInRequired. A client that does not declare lm/elicitation
	// cannot answer the agent's questions: parley declines them.
	Notifications []string `json:"notifications,omitempty"`
}

// CanRender reports whether the client declared it renders parts of type kind.
func (c *ClientCapabilities) CanRender(kind string) bool {
	if c == nil {
		return false
	}
	for _, p := range c.Parts {
		if p == kind {
			return true
		}
	}
	return false
}

// ChatRequestParams is the params of lm/provideLanguageModelChatResponse. Agent stays
// raw: ParseAgent decodes it, so that a bad shape is an error for this request only.
type ChatRequestParams struct {
	ModelID  string          `json:"modelId"`
	Messages []Message       `json:"messages"`
	Agent    json.RawMessage `json:"agent"`
	Options  *RequestOptions `json:"options,omitempty"`

	// parley additions (see the package comment).
	Cwd                   string              `json:"cwd,omitempty"`
	AdditionalDirectories []string            `json:"additionalDirectories,omitempty"`
	Capabilities          *ClientCapabilities `json:"capabilities,omitempty"`
}

// Validate checks what decoding cannot: the workspace folders must be absolute.
func (p *ChatRequestParams) Validate() error {
	return checkWorkspace(p.Cwd, p.AdditionalDirectories)
}

// checkWorkspace checks that the workspace folders a client sends are absolute.
func checkWorkspace(cwd string, dirs []string) error {
	if cwd != "" && !filepath.IsAbs(cwd) {
		return fmt.Errorf("cwd %q is not an absolute path: %w", cwd, ErrInvalidParams)
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("additional directory %q is not an absolute path: %w", d, ErrInvalidParams)
		}
	}
	return nil
}

// Tools returns the offered tools, nil when options are absent.
func (p *ChatRequestParams) Tools() []ToolDefinition {
	if p.Options == nil {
		return nil
	}
	return p.Options.Tools
}

// ResponsePartParams is the params of the lm/responsePart notification. RequestID is the
// chat request's id exactly as received (the client looks it up by number).
type ResponsePartParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Part      ContentPart     `json:"part"`
}

// AppendJSON encodes p as encoding/json would, a text part without reflection: a
// streamed answer is mostly text parts (json.Appender).
func (p ResponsePartParams) AppendJSON(buf []byte) ([]byte, error) {
	if p.Part.Type != PartText {
		b, err := json.Marshal(responsePartWire(p))
		return append(buf, b...), err
	}
	buf = append(buf, `{"requestId":`...)
	buf, err := json.AppendCompact(buf, p.RequestID)
	if err != nil {
		return nil, err
	}
	buf = append(buf, `,"part":{"type":"text","value":`...)
	buf = json.AppendString(buf, p.Part.Value)
	return append(buf, "}}"...), nil
}

// responsePartWire is ResponsePartParams without its AppendJSON.
type responsePartWire ResponsePartParams

// ResponseCompleteParams is the params of lm/responseComplete.
type ResponseCompleteParams struct {
	RequestID json.RawMessage `json:"requestId"`
}

// CancelParams is the params of the lm/cancel notification.
type CancelParams struct {
	RequestID json.RawMessage `json:"requestId"`
}

// TokenCountParams is the params of lm/provideTokenCount. The result is a bare integer.
type TokenCountParams struct {
	ModelID string `json:"modelId"`
	Text    string `json:"text"`
}

// CountTokens is the heuristic Symposium's backend used, which clients were written
// against: a quarter of the UTF-8 byte length (the length of a Go string), at least 1.
func CountTokens(text string) int {
	return max(len(text)/4, 1)
}

// ApprovalText is the one result of the agent-action tool that approves an agent action:
// a tool_result whose result is [{"value":"Approved"}] (what the tool's invoke returns). Any
// other result of that tool is a refusal, answered with the agent's reject_once option.
const ApprovalText = "Approved"

// ModelInfoParams is the params of lm/provideLanguageModelChatInformation. All but
// Silent are parley additions.
type ModelInfoParams struct {
	Silent bool `json:"silent,omitempty"`
	// AgentServers are the client's own agents (the agent_servers shape), merged over the
	// configuration file's.
	AgentServers map[string]config.AgentServer `json:"agentServers,omitempty"`
	// Cwd and AdditionalDirectories are the workspace, where spare sessions open.
	Cwd                   string   `json:"cwd,omitempty"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
}

// PrepareSessionParams is the params of the notification lm/prepareSession (a parley
// addition): the client names the model the user chose last in the workspace, so that its
// agent gets a spare session before the first request (see the package comment).
type PrepareSessionParams struct {
	ModelID               string          `json:"modelId"`
	Agent                 json.RawMessage `json:"agent"`
	Cwd                   string          `json:"cwd,omitempty"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
}

// ModelInfoResult is the result of lm/provideLanguageModelChatInformation.
type ModelInfoResult struct {
	Models []ModelInfo `json:"models"`
	// AgentActionRefusals (a parley addition) tells the client that a tool_result of the
	// agent-action tool other than the approval (ApprovalText) is answered with reject_once
	// and the turn goes on, so the client may send VS Code's result of a skipped
	// confirmation as it is. A backend without it took any result as the approval: a
	// client must not send it such a result.
	AgentActionRefusals bool `json:"agentActionRefusals,omitempty"`
}

// ModelInfo describes one model (one configured agent) to VS Code.
type ModelInfo struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	Family          string            `json:"family"`
	Version         string            `json:"version"`
	MaxInputTokens  int               `json:"maxInputTokens"`
	MaxOutputTokens int               `json:"maxOutputTokens"`
	Capabilities    ModelCapabilities `json:"capabilities"`
	// parley additions: where the agent comes from, and the definition to send back as
	// params.agent (the flat shape) to chat with it.
	Detail string          `json:"detail,omitempty"`
	Agent  json.RawMessage `json:"agent,omitempty"`
}

// ModelCapabilities is ModelInfo.capabilities.
type ModelCapabilities struct {
	ToolCalling bool `json:"toolCalling"`
}
