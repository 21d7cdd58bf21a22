package acp

import "github.com/parley-acp/parley/internal/json"

// PromptRequest is the params of session/prompt: a user turn. The blocks must stay within
// the agent's PromptCapabilities.
type PromptRequest struct {
	SessionID SessionID      `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
	Meta      Meta           `json:"_meta,omitzero"`
	Extra     Extra          `json:"-"`
}

// PromptResponse is the result of session/prompt, sent after every update of the turn.
type PromptResponse struct {
	StopReason StopReason `json:"stopReason"`
	// Usage is unstable (only in schema.unstable.json): kept when present, never required.
	Usage *Usage `json:"usage,omitempty"`
	Meta  Meta   `json:"_meta,omitzero"`
	Extra Extra  `json:"-"`
}

// StopReason is why a turn ended.
type StopReason string

const (
	StopReasonEndTurn   StopReason = "end_turn"
	StopReasonMaxTokens StopReason = "max_tokens"
	// StopReasonMaxTurnRequests: the agent's limit of model requests in one turn was hit.
	StopReasonMaxTurnRequests StopReason = "max_turn_requests"
	// StopReasonRefusal: the agent refused; the prompt and what follows will not be part
	// of the next prompt, so the UI should show that.
	StopReasonRefusal StopReason = "refusal"
	// StopReasonCancelled answers a prompt cancelled with session/cancel, also when the
	// abort surfaced as an error inside the agent.
	StopReasonCancelled StopReason = "cancelled"
)

// Usage is the token usage of a turn (unstable).
type Usage struct {
	TotalTokens       uint64  `json:"totalTokens"`
	InputTokens       uint64  `json:"inputTokens"`
	OutputTokens      uint64  `json:"outputTokens"`
	ThoughtTokens     *uint64 `json:"thoughtTokens,omitempty"`
	CachedReadTokens  *uint64 `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens *uint64 `json:"cachedWriteTokens,omitempty"`
	Meta              Meta    `json:"_meta,omitzero"`
	Extra             Extra   `json:"-"`
}

// CancelNotification is the params of session/cancel: stop the running turn. The agent
// still answers the prompt, with StopReasonCancelled; the client answers its pending
// permission requests with CancelledOutcome.
type CancelNotification struct {
	SessionID SessionID `json:"sessionId"`
	Meta      Meta      `json:"_meta,omitzero"`
	Extra     Extra     `json:"-"`
}

// CancelRequestNotification is the params of $/cancel_request.
type CancelRequestNotification struct {
	RequestID RequestID `json:"requestId"`
	Meta      Meta      `json:"_meta,omitzero"`
	Extra     Extra     `json:"-"`
}

// RequestID is a JSON-RPC request id as it is on the wire: a string, a number or null.
// It stays raw so that it is echoed with its original JSON type.
type RequestID = json.RawMessage
