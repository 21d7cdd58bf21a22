package acp

import "github.com/parley-acp/parley/internal/json"

// SessionNotification is the params of session/update: the agent reports progress of a
// session (message chunks, tool calls, plans, mode and config changes...).
type SessionNotification struct {
	SessionID SessionID     `json:"sessionId"`
	Update    SessionUpdate `json:"update"`
	Meta      Meta          `json:"_meta,omitzero"`
	Extra     Extra         `json:"-"`
}

// SessionUpdate is one update of a session, discriminated by "sessionUpdate". Exactly one
// field is set. A kind this package does not know (notice, compaction_summary_chunk,
// plan_update...) is kept whole in Unknown: a bridge forwards it, a UI ignores it.
//
// Build the common ones with UserMessageChunk, AgentMessageChunk and AgentThoughtChunk;
// read a chunk's text with u.AgentMessageChunk.Content.AsText().
type SessionUpdate struct {
	UserMessageChunk        *ContentChunk            // "user_message_chunk", e.g. replayed by session/load
	AgentMessageChunk       *ContentChunk            // "agent_message_chunk"
	AgentThoughtChunk       *ContentChunk            // "agent_thought_chunk"
	ToolCall                *ToolCall                // "tool_call": a new tool call
	ToolCallUpdate          *ToolCallUpdate          // "tool_call_update": changed fields of one
	Plan                    *Plan                    // "plan": the whole plan, replacing the last
	AvailableCommandsUpdate *AvailableCommandsUpdate // "available_commands_update"
	CurrentModeUpdate       *CurrentModeUpdate       // "current_mode_update"
	ConfigOptionUpdate      *ConfigOptionUpdate      // "config_option_update": the complete list
	SessionInfoUpdate       *SessionInfoUpdate       // "session_info_update"
	UsageUpdate             *UsageUpdate             // "usage_update"
	Unknown                 json.RawMessage          // any other kind, kept verbatim
}

// UserMessageChunk returns an update carrying part of a user message.
func UserMessageChunk(content ContentBlock) SessionUpdate {
	return SessionUpdate{UserMessageChunk: &ContentChunk{Content: content}}
}

// AgentMessageChunk returns an update carrying part of the agent's reply.
func AgentMessageChunk(content ContentBlock) SessionUpdate {
	return SessionUpdate{AgentMessageChunk: &ContentChunk{Content: content}}
}

// AgentThoughtChunk returns an update carrying part of the agent's reasoning.
func AgentThoughtChunk(content ContentBlock) SessionUpdate {
	return SessionUpdate{AgentThoughtChunk: &ContentChunk{Content: content}}
}

// Kind returns the update's sessionUpdate value, also for an unknown one.
func (u SessionUpdate) Kind() string {
	switch {
	case u.UserMessageChunk != nil:
		return "user_message_chunk"
	case u.AgentMessageChunk != nil:
		return "agent_message_chunk"
	case u.AgentThoughtChunk != nil:
		return "agent_thought_chunk"
	case u.ToolCall != nil:
		return "tool_call"
	case u.ToolCallUpdate != nil:
		return "tool_call_update"
	case u.Plan != nil:
		return "plan"
	case u.AvailableCommandsUpdate != nil:
		return "available_commands_update"
	case u.CurrentModeUpdate != nil:
		return "current_mode_update"
	case u.ConfigOptionUpdate != nil:
		return "config_option_update"
	case u.SessionInfoUpdate != nil:
		return "session_info_update"
	case u.UsageUpdate != nil:
		return "usage_update"
	case u.Unknown != nil:
		return unknownKind(u.Unknown, "sessionUpdate")
	}
	return ""
}

// IsZero reports whether no variant is set.
func (u SessionUpdate) IsZero() bool {
	return u.UserMessageChunk == nil && u.AgentMessageChunk == nil && u.AgentThoughtChunk == nil &&
		u.ToolCall == nil && u.ToolCallUpdate == nil && u.Plan == nil &&
		u.AvailableCommandsUpdate == nil && u.CurrentModeUpdate == nil &&
		u.ConfigOptionUpdate == nil && u.SessionInfoUpdate == nil && u.UsageUpdate == nil &&
		u.Unknown == nil
}

func (u SessionUpdate) MarshalJSON() ([]byte, error) { return u.AppendJSON(newBuffer()) }

// AppendJSON appends what MarshalJSON returns to buf: the variant's members written
// into buf, an unknown variant compacted (as encoding/json would).
func (u SessionUpdate) AppendJSON(buf []byte) ([]byte, error) {
	const tag = "sessionUpdate"
	switch {
	case u.UserMessageChunk != nil:
		return u.UserMessageChunk.appendMembers(buf, tag, "user_message_chunk")
	case u.AgentMessageChunk != nil:
		return u.AgentMessageChunk.appendMembers(buf, tag, "agent_message_chunk")
	case u.AgentThoughtChunk != nil:
		return u.AgentThoughtChunk.appendMembers(buf, tag, "agent_thought_chunk")
	case u.ToolCall != nil:
		return u.ToolCall.appendMembers(buf, tag, "tool_call")
	case u.ToolCallUpdate != nil:
		return u.ToolCallUpdate.appendMembers(buf, tag, "tool_call_update")
	case u.Plan != nil:
		return u.Plan.appendMembers(buf, tag, "plan")
	case u.AvailableCommandsUpdate != nil:
		return u.AvailableCommandsUpdate.appendMembers(buf, tag, "available_commands_update")
	case u.CurrentModeUpdate != nil:
		return u.CurrentModeUpdate.appendMembers(buf, tag, "current_mode_update")
	case u.ConfigOptionUpdate != nil:
		return u.ConfigOptionUpdate.appendMembers(buf, tag, "config_option_update")
	case u.SessionInfoUpdate != nil:
		return u.SessionInfoUpdate.appendMembers(buf, tag, "session_info_update")
	case u.UsageUpdate != nil:
		return u.UsageUpdate.appendMembers(buf, tag, "usage_update")
	case u.Unknown != nil:
		return json.AppendCompact(buf, u.Unknown)
	}
	return nil, errEmptyUnion("SessionUpdate")
}

func (u *SessionUpdate) UnmarshalJSON(data []byte) error {
	const tag = "sessionUpdate"
	kind, _, err := readKind("SessionUpdate", data, tag)
	if err != nil {
		return err
	}
	*u = SessionUpdate{}
	switch string(kind) {
	case "user_message_chunk":
		u.UserMessageChunk = new(ContentChunk)
		return u.UserMessageChunk.decodeMembers(data, tag)
	case "agent_message_chunk":
		u.AgentMessageChunk = new(ContentChunk)
		return u.AgentMessageChunk.decodeMembers(data, tag)
	case "agent_thought_chunk":
		u.AgentThoughtChunk = new(ContentChunk)
		return u.AgentThoughtChunk.decodeMembers(data, tag)
	case "tool_call":
		u.ToolCall = new(ToolCall)
		return u.ToolCall.decodeMembers(data, tag)
	case "tool_call_update":
		u.ToolCallUpdate = new(ToolCallUpdate)
		return u.ToolCallUpdate.decodeMembers(data, tag)
	case "plan":
		u.Plan = new(Plan)
		return u.Plan.decodeMembers(data, tag)
	case "available_commands_update":
		u.AvailableCommandsUpdate = new(AvailableCommandsUpdate)
		return u.AvailableCommandsUpdate.decodeMembers(data, tag)
	case "current_mode_update":
		u.CurrentModeUpdate = new(CurrentModeUpdate)
		return u.CurrentModeUpdate.decodeMembers(data, tag)
	case "config_option_update":
		u.ConfigOptionUpdate = new(ConfigOptionUpdate)
		return u.ConfigOptionUpdate.decodeMembers(data, tag)
	case "session_info_update":
		u.SessionInfoUpdate = new(SessionInfoUpdate)
		return u.SessionInfoUpdate.decodeMembers(data, tag)
	case "usage_update":
		u.UsageUpdate = new(UsageUpdate)
		return u.UsageUpdate.decodeMembers(data, tag)
	}
	u.Unknown, err = unknownVariant(data)
	return err
}

// ContentChunk is a streamed piece of a user message, agent message or agent thought.
type ContentChunk struct {
	Content ContentBlock `json:"content"`
	// MessageID groups chunks: the same id continues a message, a new id starts one.
	// It is opaque, chosen by the agent, and optional in v1.
	MessageID MessageID `json:"messageId,omitempty"`
	Meta      Meta      `json:"_meta,omitzero"`
	Extra     Extra     `json:"-"`
}

// MessageID identifies a message across its chunks.
type MessageID string

// Plan is the agent's execution plan. Each plan update replaces the whole plan.
type Plan struct {
	Entries []PlanEntry `json:"entries"`
	Meta    Meta        `json:"_meta,omitzero"`
	Extra   Extra       `json:"-"`
}

// PlanEntry is one task of a plan.
type PlanEntry struct {
	Content  string            `json:"content"`
	Priority PlanEntryPriority `json:"priority"`
	Status   PlanEntryStatus   `json:"status"`
	Meta     Meta              `json:"_meta,omitzero"`
	Extra    Extra             `json:"-"`
}

// PlanEntryPriority is how important a plan entry is.
type PlanEntryPriority string

const (
	PlanEntryPriorityHigh   PlanEntryPriority = "high"
	PlanEntryPriorityMedium PlanEntryPriority = "medium"
	PlanEntryPriorityLow    PlanEntryPriority = "low"
)

// PlanEntryStatus is how far a plan entry has got.
type PlanEntryStatus string

const (
	PlanEntryStatusPending    PlanEntryStatus = "pending"
	PlanEntryStatusInProgress PlanEntryStatus = "in_progress"
	PlanEntryStatusCompleted  PlanEntryStatus = "completed"
)

// AvailableCommandsUpdate lists the slash commands the agent offers, replacing the last list.
type AvailableCommandsUpdate struct {
	AvailableCommands []AvailableCommand `json:"availableCommands"`
	Meta              Meta               `json:"_meta,omitzero"`
	Extra             Extra              `json:"-"`
}

// AvailableCommand is a slash command the user can run, without its slash.
type AvailableCommand struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Input       *AvailableCommandInput `json:"input,omitempty"`
	Meta        Meta                   `json:"_meta,omitzero"`
	Extra       Extra                  `json:"-"`
}

// AvailableCommandInput describes the input a command takes. v1 knows one shape,
// unstructured text with a hint; any other shape is kept in Unknown.
type AvailableCommandInput struct {
	Unstructured *UnstructuredCommandInput
	Unknown      json.RawMessage
}

// Kind returns "unstructured", or "" for an unknown shape.
func (in AvailableCommandInput) Kind() string {
	if in.Unstructured != nil {
		return "unstructured"
	}
	return ""
}

// IsZero reports whether no variant is set.
func (in AvailableCommandInput) IsZero() bool { return in.Unstructured == nil && in.Unknown == nil }

func (in AvailableCommandInput) MarshalJSON() ([]byte, error) {
	switch {
	case in.Unstructured != nil:
		return in.Unstructured.encodeMembers("", "")
	case in.Unknown != nil:
		return in.Unknown, nil
	}
	return nil, errEmptyUnion("AvailableCommandInput")
}

func (in *AvailableCommandInput) UnmarshalJSON(data []byte) error {
	if !isObject(data) {
		return errNotObject("AvailableCommandInput")
	}
	*in = AvailableCommandInput{}
	if json.Member(data, "hint") != nil {
		in.Unstructured = new(UnstructuredCommandInput)
		return in.Unstructured.decodeMembers(data, "")
	}
	var err error
	in.Unknown, err = unknownVariant(data)
	return err
}

// UnstructuredCommandInput is free text after the command, with a hint shown while it is empty.
type UnstructuredCommandInput struct {
	Hint  string `json:"hint"`
	Meta  Meta   `json:"_meta,omitzero"`
	Extra Extra  `json:"-"`
}

// CurrentModeUpdate reports that the session switched mode.
type CurrentModeUpdate struct {
	CurrentModeID SessionModeID `json:"currentModeId"`
	Meta          Meta          `json:"_meta,omitzero"`
	Extra         Extra         `json:"-"`
}

// ConfigOptionUpdate carries the complete, current list of config options.
type ConfigOptionUpdate struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
	Meta          Meta                  `json:"_meta,omitzero"`
	Extra         Extra                 `json:"-"`
}

// SessionInfoUpdate changes the session's metadata. Here null means something: an absent
// member leaves the value unchanged and null clears it, so both are Patches.
type SessionInfoUpdate struct {
	Title     Patch[string] `json:"title,omitzero"`
	UpdatedAt Patch[string] `json:"updatedAt,omitzero"` // ISO 8601
	Meta      Meta          `json:"_meta,omitzero"`
	Extra     Extra         `json:"-"`
}

// UsageUpdate reports the context window's use and, optionally, the session's cost so far.
type UsageUpdate struct {
	Used  uint64 `json:"used"` // tokens in the context now
	Size  uint64 `json:"size"` // the context window
	Cost  *Cost  `json:"cost,omitempty"`
	Meta  Meta   `json:"_meta,omitzero"`
	Extra Extra  `json:"-"`
}

// Cost is a cumulative amount of money.
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"` // ISO 4217, e.g. "USD"
	Meta     Meta    `json:"_meta,omitzero"`
	Extra    Extra   `json:"-"`
}

// The next types are session updates that the npm 2.4.0 schema marks stable but the
// schema-v1.21.0 tag does not, gated by client capabilities (ClientSessionCapabilities
// Notices and Compaction). SessionUpdate keeps them in Unknown until they settle; decode
// Unknown into these types to read one.

// Notice is a "notice" update: a message for the user, gated by ClientSessionCapabilities.Notices.
type Notice struct {
	Severity    NoticeSeverity `json:"severity"`
	Title       string         `json:"title"`
	Description string         `json:"description,omitempty"`
	Meta        Meta           `json:"_meta,omitzero"`
	Extra       Extra          `json:"-"`
}

// NoticeSeverity is how serious a notice is.
type NoticeSeverity string

const (
	NoticeSeverityInfo    NoticeSeverity = "info"
	NoticeSeverityWarning NoticeSeverity = "warning"
	NoticeSeverityError   NoticeSeverity = "error"
)

// CompactionUpdate is a "compaction_update" update: progress of a context compaction,
// gated by ClientSessionCapabilities.Compaction.
type CompactionUpdate struct {
	CompactionID CompactionID     `json:"compactionId"`
	Status       CompactionStatus `json:"status"`
	Summary      []ContentBlock   `json:"summary,omitzero"`
	Error        string           `json:"error,omitempty"`
	Meta         Meta             `json:"_meta,omitzero"`
	Extra        Extra            `json:"-"`
}

// CompactionSummaryChunk is a "compaction_summary_chunk" update: part of a compaction's summary.
type CompactionSummaryChunk struct {
	CompactionID CompactionID `json:"compactionId"`
	Content      ContentBlock `json:"content"`
	Meta         Meta         `json:"_meta,omitzero"`
	Extra        Extra        `json:"-"`
}

// CompactionID identifies one compaction.
type CompactionID string

// CompactionStatus is how far a compaction has got.
type CompactionStatus string

const (
	CompactionStatusInProgress CompactionStatus = "in_progress"
	CompactionStatusCompleted  CompactionStatus = "completed"
	CompactionStatusFailed     CompactionStatus = "failed"
	CompactionStatusCancelled  CompactionStatus = "cancelled"
)
