package acp

// InitializeRequest is the params of initialize, the first request of a connection: the
// client's protocol version, capabilities and identity.
type InitializeRequest struct {
	ProtocolVersion    uint16             `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities,omitzero"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
	Meta               Meta               `json:"_meta,omitzero"`
	Extra              Extra              `json:"-"`
}

// InitializeResponse is the result of initialize. ProtocolVersion is the client's if the
// agent speaks it, otherwise the agent's latest; the client disconnects if it cannot
// speak the answer.
type InitializeResponse struct {
	ProtocolVersion   uint16            `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities,omitzero"`
	AuthMethods       []AuthMethod      `json:"authMethods,omitzero"`
	AgentInfo         *Implementation   `json:"agentInfo,omitempty"`
	Meta              Meta              `json:"_meta,omitzero"`
	Extra             Extra             `json:"-"`
}

// Implementation names a client or agent program.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"` // for people; Name is the fallback
	Version string `json:"version"`
	Meta    Meta   `json:"_meta,omitzero"`
	Extra   Extra  `json:"-"`
}

// ClientCapabilities is what the client supports. Omitted means unsupported: an agent
// must not call a method the client did not advertise.
type ClientCapabilities struct {
	// FS is nested under "fs" on the wire; flat readTextFile at the root means nothing.
	FS          FileSystemCapabilities     `json:"fs,omitzero"`
	Terminal    bool                       `json:"terminal,omitempty"` // all terminal/* methods
	Session     *ClientSessionCapabilities `json:"session,omitempty"`
	Auth        AuthCapabilities           `json:"auth,omitzero"`
	Elicitation *ElicitationCapabilities   `json:"elicitation,omitempty"`
	Meta        Meta                       `json:"_meta,omitzero"`
	Extra       Extra                      `json:"-"`
}

// FileSystemCapabilities says which fs/* methods the client implements.
type FileSystemCapabilities struct {
	ReadTextFile  bool  `json:"readTextFile,omitempty"`
	WriteTextFile bool  `json:"writeTextFile,omitempty"`
	Meta          Meta  `json:"_meta,omitzero"`
	Extra         Extra `json:"-"`
}

// ClientSessionCapabilities gates optional session updates and config option types.
// Each field is a presence marker: non-nil (encoded as {}) means supported.
type ClientSessionCapabilities struct {
	ConfigOptions *SessionConfigOptionsCapabilities `json:"configOptions,omitempty"`
	Notices       *NoticeCapabilities               `json:"notices,omitempty"`    // "notice" updates
	Compaction    *CompactionCapabilities           `json:"compaction,omitempty"` // "compaction_*" updates
	Meta          Meta                              `json:"_meta,omitzero"`
	Extra         Extra                             `json:"-"`
}

// SessionConfigOptionsCapabilities says which config option types the client renders
// beyond "select".
type SessionConfigOptionsCapabilities struct {
	Boolean *BooleanConfigOptionCapabilities `json:"boolean,omitempty"`
	Meta    Meta                             `json:"_meta,omitzero"`
	Extra   Extra                            `json:"-"`
}

// BooleanConfigOptionCapabilities marks support for "boolean" config options.
type BooleanConfigOptionCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// NoticeCapabilities marks support for "notice" session updates.
type NoticeCapabilities struct {
	Extra Extra `json:"-"`
}

// CompactionCapabilities marks support for "compaction_update" and
// "compaction_summary_chunk" session updates.
type CompactionCapabilities struct {
	Extra Extra `json:"-"`
}

// AuthCapabilities says which kinds of auth methods the client can run.
type AuthCapabilities struct {
	Terminal bool  `json:"terminal,omitempty"` // "terminal" auth methods
	Meta     Meta  `json:"_meta,omitzero"`
	Extra    Extra `json:"-"`
}

// ElicitationCapabilities says which elicitation modes the client supports. Unlike in
// MCP, an empty object supports neither.
type ElicitationCapabilities struct {
	Form  *ElicitationFormCapabilities `json:"form,omitempty"`
	URL   *ElicitationURLCapabilities  `json:"url,omitempty"`
	Meta  Meta                         `json:"_meta,omitzero"`
	Extra Extra                        `json:"-"`
}

// ElicitationFormCapabilities marks support for form elicitations.
type ElicitationFormCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// ElicitationURLCapabilities marks support for URL elicitations.
type ElicitationURLCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// AgentCapabilities is what the agent supports. Omitted means unsupported: a client
// must not call a method, or send content, the agent did not advertise.
type AgentCapabilities struct {
	LoadSession         bool                  `json:"loadSession,omitempty"` // session/load
	PromptCapabilities  PromptCapabilities    `json:"promptCapabilities,omitzero"`
	MCPCapabilities     MCPCapabilities       `json:"mcpCapabilities,omitzero"`
	SessionCapabilities SessionCapabilities   `json:"sessionCapabilities,omitzero"`
	Auth                AgentAuthCapabilities `json:"auth,omitzero"`
	Meta                Meta                  `json:"_meta,omitzero"`
	Extra               Extra                 `json:"-"`
}

// PromptCapabilities says which content blocks beyond text and resource links a prompt
// may contain.
type PromptCapabilities struct {
	Image           bool  `json:"image,omitempty"`
	Audio           bool  `json:"audio,omitempty"`
	EmbeddedContext bool  `json:"embeddedContext,omitempty"` // "resource" blocks
	Meta            Meta  `json:"_meta,omitzero"`
	Extra           Extra `json:"-"`
}

// MCPCapabilities says which MCP transports beyond stdio (which every agent supports)
// the agent can connect to.
type MCPCapabilities struct {
	HTTP  bool  `json:"http,omitempty"`
	SSE   bool  `json:"sse,omitempty"`
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// SessionCapabilities says which optional session methods the agent implements. Each
// field is a presence marker: non-nil (encoded as {}) means supported.
type SessionCapabilities struct {
	List                  *SessionListCapabilities                  `json:"list,omitempty"`
	Delete                *SessionDeleteCapabilities                `json:"delete,omitempty"`
	AdditionalDirectories *SessionAdditionalDirectoriesCapabilities `json:"additionalDirectories,omitempty"`
	Resume                *SessionResumeCapabilities                `json:"resume,omitempty"`
	Close                 *SessionCloseCapabilities                 `json:"close,omitempty"`
	Fork                  *SessionForkCapabilities                  `json:"fork,omitempty"` // unstable in ACP
	Meta                  Meta                                      `json:"_meta,omitzero"`
	Extra                 Extra                                     `json:"-"`
}

// SessionListCapabilities marks support for session/list.
type SessionListCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// SessionDeleteCapabilities marks support for session/delete.
type SessionDeleteCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// SessionAdditionalDirectoriesCapabilities marks support for additionalDirectories in
// session/new, load and resume.
type SessionAdditionalDirectoriesCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// SessionResumeCapabilities marks support for session/resume.
type SessionResumeCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// SessionForkCapabilities marks support for session/fork (unstable in ACP).
type SessionForkCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// SessionCloseCapabilities marks support for session/close.
type SessionCloseCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// AgentAuthCapabilities says which auth methods beyond authenticate the agent implements.
type AgentAuthCapabilities struct {
	Logout *LogoutCapabilities `json:"logout,omitempty"`
	Meta   Meta                `json:"_meta,omitzero"`
	Extra  Extra               `json:"-"`
}

// LogoutCapabilities marks support for logout.
type LogoutCapabilities struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}
