package acp

import "github.com/parley-acp/parley/internal/json"

// SessionID identifies a session. It is chosen by the agent.
type SessionID string

// NewSessionRequest is the params of session/new. Cwd is absolute and is the session's
// working directory whatever the agent process's own; MCPServers is required, even empty.
type NewSessionRequest struct {
	Cwd string `json:"cwd"`
	// AdditionalDirectories are further absolute roots, only for agents that advertise
	// SessionCapabilities.AdditionalDirectories.
	AdditionalDirectories []string    `json:"additionalDirectories,omitzero"`
	MCPServers            []MCPServer `json:"mcpServers"`
	Meta                  Meta        `json:"_meta,omitzero"`
	Extra                 Extra       `json:"-"`
}

// NewSessionResponse is the result of session/new.
type NewSessionResponse struct {
	SessionID     SessionID             `json:"sessionId"`
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitzero"`
	Models        *SessionModelState    `json:"models,omitempty"` // legacy, see SessionModelState
	Meta          Meta                  `json:"_meta,omitzero"`
	Extra         Extra                 `json:"-"`
}

// LoadSessionRequest is the params of session/load, gated by AgentCapabilities.LoadSession.
// The agent replays the conversation as session/update notifications before it answers.
type LoadSessionRequest struct {
	SessionID             SessionID   `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitzero"`
	MCPServers            []MCPServer `json:"mcpServers"`
	Meta                  Meta        `json:"_meta,omitzero"`
	Extra                 Extra       `json:"-"`
}

// LoadSessionResponse is the result of session/load.
type LoadSessionResponse struct {
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitzero"`
	Models        *SessionModelState    `json:"models,omitempty"` // legacy, see SessionModelState
	Meta          Meta                  `json:"_meta,omitzero"`
	Extra         Extra                 `json:"-"`
}

// ResumeSessionRequest is the params of session/resume, gated by
// SessionCapabilities.Resume: like session/load, without the replay.
type ResumeSessionRequest struct {
	SessionID             SessionID   `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitzero"`
	MCPServers            []MCPServer `json:"mcpServers,omitzero"`
	Meta                  Meta        `json:"_meta,omitzero"`
	Extra                 Extra       `json:"-"`
}

// ResumeSessionResponse is the result of session/resume.
type ResumeSessionResponse struct {
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitzero"`
	Models        *SessionModelState    `json:"models,omitempty"` // legacy, see SessionModelState
	Meta          Meta                  `json:"_meta,omitzero"`
	Extra         Extra                 `json:"-"`
}

// ForkSessionRequest is the params of session/fork (unstable in ACP), gated by
// SessionCapabilities.Fork: a new session that starts with the conversation of
// SessionID. Cwd must be a directory (an agent was seen sent a file).
type ForkSessionRequest struct {
	SessionID             SessionID   `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitzero"`
	MCPServers            []MCPServer `json:"mcpServers,omitzero"`
	Meta                  Meta        `json:"_meta,omitzero"`
	Extra                 Extra       `json:"-"`
}

// ForkSessionResponse is the result of session/fork: the new session.
type ForkSessionResponse struct {
	SessionID     SessionID             `json:"sessionId"`
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitzero"`
	Models        *SessionModelState    `json:"models,omitempty"` // legacy, see SessionModelState
	Meta          Meta                  `json:"_meta,omitzero"`
	Extra         Extra                 `json:"-"`
}

// ListSessionsRequest is the params of session/list, gated by SessionCapabilities.List.
type ListSessionsRequest struct {
	Cwd    string `json:"cwd,omitempty"`    // only sessions with this working directory
	Cursor string `json:"cursor,omitempty"` // NextCursor of the previous page
	Meta   Meta   `json:"_meta,omitzero"`
	Extra  Extra  `json:"-"`
}

// ListSessionsResponse is the result of session/list: one page of sessions.
type ListSessionsResponse struct {
	Sessions   []SessionInfo `json:"sessions"`
	NextCursor string        `json:"nextCursor,omitempty"` // empty on the last page
	Meta       Meta          `json:"_meta,omitzero"`
	Extra      Extra         `json:"-"`
}

// SessionInfo describes a session in a session/list page.
type SessionInfo struct {
	SessionID             SessionID `json:"sessionId"`
	Cwd                   string    `json:"cwd"`
	AdditionalDirectories []string  `json:"additionalDirectories,omitzero"`
	Title                 string    `json:"title,omitempty"`
	UpdatedAt             string    `json:"updatedAt,omitempty"` // ISO 8601
	Meta                  Meta      `json:"_meta,omitzero"`
	Extra                 Extra     `json:"-"`
}

// DeleteSessionRequest is the params of session/delete, gated by SessionCapabilities.Delete.
type DeleteSessionRequest struct {
	SessionID SessionID `json:"sessionId"`
	Meta      Meta      `json:"_meta,omitzero"`
	Extra     Extra     `json:"-"`
}

// DeleteSessionResponse is the result of session/delete.
type DeleteSessionResponse struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// CloseSessionRequest is the params of session/close, gated by SessionCapabilities.Close:
// the agent cancels running work as for session/cancel, then frees the session.
type CloseSessionRequest struct {
	SessionID SessionID `json:"sessionId"`
	Meta      Meta      `json:"_meta,omitzero"`
	Extra     Extra     `json:"-"`
}

// CloseSessionResponse is the result of session/close.
type CloseSessionResponse struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// MCPServer is an MCP server the agent should connect to for the session. Exactly one
// field is set. Stdio servers have no "type" on the wire; every agent supports them.
type MCPServer struct {
	Stdio *MCPServerStdio // no "type" (an explicit "stdio" is kept in its Extra)
	HTTP  *MCPServerHTTP  // "type": "http", gated by MCPCapabilities.HTTP
	SSE   *MCPServerSSE   // "type": "sse", gated by MCPCapabilities.SSE
	// Unknown is any other type (such as the unstable "acp"), kept verbatim so that it
	// can be forwarded.
	Unknown json.RawMessage
}

// StdioMCPServer returns a stdio MCP server. Nil args and env are written as [].
func StdioMCPServer(name, command string, args []string, env []EnvVariable) MCPServer {
	return MCPServer{Stdio: &MCPServerStdio{Name: name, Command: command, Args: args, Env: env}}
}

// HTTPMCPServer returns an MCP server reached over streamable HTTP.
func HTTPMCPServer(name, url string, headers []HTTPHeader) MCPServer {
	return MCPServer{HTTP: &MCPServerHTTP{Name: name, URL: url, Headers: headers}}
}

// Kind returns "stdio", "http", "sse", or the type of an unknown server.
func (s MCPServer) Kind() string {
	switch {
	case s.Stdio != nil:
		return "stdio"
	case s.HTTP != nil:
		return "http"
	case s.SSE != nil:
		return "sse"
	case s.Unknown != nil:
		return unknownKind(s.Unknown, "type")
	}
	return ""
}

// IsZero reports whether no variant is set.
func (s MCPServer) IsZero() bool {
	return s.Stdio == nil && s.HTTP == nil && s.SSE == nil && s.Unknown == nil
}

func (s MCPServer) MarshalJSON() ([]byte, error) {
	switch {
	case s.Stdio != nil:
		return s.Stdio.encodeMembers("", "")
	case s.HTTP != nil:
		return s.HTTP.encodeMembers("type", "http")
	case s.SSE != nil:
		return s.SSE.encodeMembers("type", "sse")
	case s.Unknown != nil:
		return s.Unknown, nil
	}
	return nil, errEmptyUnion("MCPServer")
}

func (s *MCPServer) UnmarshalJSON(data []byte) error {
	kind, present, err := readKind("MCPServer", data, "type")
	if err != nil {
		return err
	}
	*s = MCPServer{}
	switch {
	case !present || string(kind) == "stdio":
		s.Stdio = new(MCPServerStdio)
		return s.Stdio.decodeMembers(data, "")
	case string(kind) == "http":
		s.HTTP = new(MCPServerHTTP)
		return s.HTTP.decodeMembers(data, "type")
	case string(kind) == "sse":
		s.SSE = new(MCPServerSSE)
		return s.SSE.decodeMembers(data, "type")
	}
	s.Unknown, err = unknownVariant(data)
	return err
}

// MCPServerStdio is an MCP server the agent starts as a subprocess. Args and Env are
// required on the wire and are written as [] when empty.
type MCPServerStdio struct {
	Name    string        `json:"name"`
	Command string        `json:"command"` // absolute path
	Args    []string      `json:"args"`
	Env     []EnvVariable `json:"env"`
	Meta    Meta          `json:"_meta,omitzero"`
	Extra   Extra         `json:"-"`
}

// MCPServerHTTP is an MCP server reached over streamable HTTP.
type MCPServerHTTP struct {
	Name    string       `json:"name"`
	URL     string       `json:"url"`
	Headers []HTTPHeader `json:"headers"`
	Meta    Meta         `json:"_meta,omitzero"`
	Extra   Extra        `json:"-"`
}

// MCPServerSSE is an MCP server reached over SSE, a transport MCP has deprecated.
type MCPServerSSE struct {
	Name    string       `json:"name"`
	URL     string       `json:"url"`
	Headers []HTTPHeader `json:"headers"`
	Meta    Meta         `json:"_meta,omitzero"`
	Extra   Extra        `json:"-"`
}

// EnvVariable is one environment variable for a process.
type EnvVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Meta  Meta   `json:"_meta,omitzero"`
	Extra Extra  `json:"-"`
}

// HTTPHeader is one HTTP header for a request.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Meta  Meta   `json:"_meta,omitzero"`
	Extra Extra  `json:"-"`
}

// SessionModeID identifies a session mode.
type SessionModeID string

// SessionModeState is the session's modes and the current one. Modes are superseded by
// config options (and gone in v2); a client that understands config options ignores them.
type SessionModeState struct {
	CurrentModeID  SessionModeID `json:"currentModeId"`
	AvailableModes []SessionMode `json:"availableModes"`
	Meta           Meta          `json:"_meta,omitzero"`
	Extra          Extra         `json:"-"`
}

// SessionMode is one mode a session can be in, such as "ask" or "code".
type SessionMode struct {
	ID          SessionModeID `json:"id"`
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Meta        Meta          `json:"_meta,omitzero"`
	Extra       Extra         `json:"-"`
}

// SetSessionModeRequest is the params of session/set_mode.
type SetSessionModeRequest struct {
	SessionID SessionID     `json:"sessionId"`
	ModeID    SessionModeID `json:"modeId"`
	Meta      Meta          `json:"_meta,omitzero"`
	Extra     Extra         `json:"-"`
}

// SetSessionModeResponse is the result of session/set_mode.
type SetSessionModeResponse struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// SessionModelState is the legacy model selection ("models" in session responses). It was
// removed from the protocol in favour of a config option with category "model", but real
// agents still send it: a client falls back to it, with session/set_model, when no such
// option exists. An agent should offer a config option instead.
type SessionModelState struct {
	CurrentModelID  ModelID     `json:"currentModelId"`
	AvailableModels []ModelInfo `json:"availableModels"`
	Meta            Meta        `json:"_meta,omitzero"`
	Extra           Extra       `json:"-"`
}

// ModelID identifies a model in the legacy model selection.
type ModelID string

// ModelInfo is one model of the legacy model selection.
type ModelInfo struct {
	ModelID     ModelID `json:"modelId"`
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Meta        Meta    `json:"_meta,omitzero"`
	Extra       Extra   `json:"-"`
}

// SetSessionModelRequest is the params of the legacy session/set_model.
type SetSessionModelRequest struct {
	SessionID SessionID `json:"sessionId"`
	ModelID   ModelID   `json:"modelId"`
	Meta      Meta      `json:"_meta,omitzero"`
	Extra     Extra     `json:"-"`
}

// SetSessionModelResponse is the result of the legacy session/set_model.
type SetSessionModelResponse struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}
