package acp

import "github.com/parley-acp/parley/internal/json"

// ToolCallID identifies a tool call within a session.
type ToolCallID string

// ToolCall is a "tool_call" update: the agent started (or is about to start) a tool call.
type ToolCall struct {
	ToolCallID ToolCallID         `json:"toolCallId"`
	Title      string             `json:"title"`          // for people: "Reading main.go"
	Name       string             `json:"name,omitempty"` // the agent's internal tool name
	Kind       ToolKind           `json:"kind,omitempty"`
	Status     ToolCallStatus     `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitzero"`
	Locations  []ToolCallLocation `json:"locations,omitzero"`
	RawInput   json.RawMessage    `json:"rawInput,omitzero"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitzero"`
	Meta       Meta               `json:"_meta,omitzero"`
	Extra      Extra              `json:"-"`
}

// ToolCallUpdate is a "tool_call_update" update, and the tool call a permission request
// is about. Only ToolCallID is required; a zero field is unchanged. Content and Locations
// replace the old lists when non-nil, so an empty non-nil slice clears them.
type ToolCallUpdate struct {
	ToolCallID ToolCallID         `json:"toolCallId"`
	Title      string             `json:"title,omitempty"`
	Name       string             `json:"name,omitempty"`
	Kind       ToolKind           `json:"kind,omitempty"`
	Status     ToolCallStatus     `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitzero"`
	Locations  []ToolCallLocation `json:"locations,omitzero"`
	RawInput   json.RawMessage    `json:"rawInput,omitzero"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitzero"`
	Meta       Meta               `json:"_meta,omitzero"`
	Extra      Extra              `json:"-"`
}

// ToolKind is the category of a tool call, for icons and display. Absent means "other".
type ToolKind string

const (
	ToolKindRead       ToolKind = "read"
	ToolKindEdit       ToolKind = "edit"
	ToolKindDelete     ToolKind = "delete"
	ToolKindMove       ToolKind = "move"
	ToolKindSearch     ToolKind = "search"
	ToolKindExecute    ToolKind = "execute"
	ToolKindThink      ToolKind = "think"
	ToolKindFetch      ToolKind = "fetch"
	ToolKindSwitchMode ToolKind = "switch_mode"
	ToolKindOther      ToolKind = "other"
)

// ToolCallStatus is the state of a tool call. Absent means "pending". v1 has no
// cancelled status: a client marks unfinished calls cancelled locally.
type ToolCallStatus string

const (
	ToolCallStatusPending    ToolCallStatus = "pending" // input streaming or awaiting approval
	ToolCallStatusInProgress ToolCallStatus = "in_progress"
	ToolCallStatusCompleted  ToolCallStatus = "completed"
	ToolCallStatusFailed     ToolCallStatus = "failed"
)

// ToolCallLocation is a file (and line, 1-based) a tool call works on, so the client can
// follow the agent.
type ToolCallLocation struct {
	Path  string `json:"path"`           // absolute
	Line  uint32 `json:"line,omitempty"` // 1-based; 0 when absent
	Meta  Meta   `json:"_meta,omitzero"`
	Extra Extra  `json:"-"`
}

// ToolCallContent is what a tool call produced, discriminated by "type". Exactly one field is set.
type ToolCallContent struct {
	Content  *Content  // "content": a content block
	Diff     *Diff     // "diff": a file edit
	Terminal *Terminal // "terminal": a live terminal from terminal/create
	Unknown  json.RawMessage
}

// ToolContent returns tool call content holding a content block.
func ToolContent(block ContentBlock) ToolCallContent {
	return ToolCallContent{Content: &Content{Content: block}}
}

// TerminalContent returns tool call content that shows a terminal. Attach it before the
// terminal is released.
func TerminalContent(id TerminalID) ToolCallContent {
	return ToolCallContent{Terminal: &Terminal{TerminalID: id}}
}

// Kind returns the content's type, also for an unknown one.
func (c ToolCallContent) Kind() string {
	switch {
	case c.Content != nil:
		return "content"
	case c.Diff != nil:
		return "diff"
	case c.Terminal != nil:
		return "terminal"
	case c.Unknown != nil:
		return unknownKind(c.Unknown, "type")
	}
	return ""
}

// IsZero reports whether no variant is set.
func (c ToolCallContent) IsZero() bool {
	return c.Content == nil && c.Diff == nil && c.Terminal == nil && c.Unknown == nil
}

func (c ToolCallContent) MarshalJSON() ([]byte, error) {
	switch {
	case c.Content != nil:
		return c.Content.encodeMembers("type", "content")
	case c.Diff != nil:
		return c.Diff.encodeMembers("type", "diff")
	case c.Terminal != nil:
		return c.Terminal.encodeMembers("type", "terminal")
	case c.Unknown != nil:
		return c.Unknown, nil
	}
	return nil, errEmptyUnion("ToolCallContent")
}

func (c *ToolCallContent) UnmarshalJSON(data []byte) error {
	kind, _, err := readKind("ToolCallContent", data, "type")
	if err != nil {
		return err
	}
	*c = ToolCallContent{}
	switch string(kind) {
	case "content":
		c.Content = new(Content)
		return c.Content.decodeMembers(data, "type")
	case "diff":
		c.Diff = new(Diff)
		return c.Diff.decodeMembers(data, "type")
	case "terminal":
		c.Terminal = new(Terminal)
		return c.Terminal.decodeMembers(data, "type")
	}
	c.Unknown, err = unknownVariant(data)
	return err
}

// Content is tool call content holding a content block.
type Content struct {
	Content ContentBlock `json:"content"`
	Meta    Meta         `json:"_meta,omitzero"`
	Extra   Extra        `json:"-"`
}

// Diff is a file edit made by a tool call.
type Diff struct {
	Path string `json:"path"` // absolute
	// OldText is the file's content before the edit; nil for a new file (the wire has
	// it absent or null).
	OldText *string `json:"oldText,omitempty"`
	NewText string  `json:"newText"`
	Meta    Meta    `json:"_meta,omitzero"`
	Extra   Extra   `json:"-"`
}

// Terminal is tool call content that shows a terminal created with terminal/create.
type Terminal struct {
	TerminalID TerminalID `json:"terminalId"`
	Meta       Meta       `json:"_meta,omitzero"`
	Extra      Extra      `json:"-"`
}
