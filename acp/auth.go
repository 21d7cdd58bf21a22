package acp

import "github.com/parley-acp/parley/internal/json"

// AuthMethod is a way to authenticate with the agent, discriminated by an optional
// "type". Exactly one field is set.
type AuthMethod struct {
	// Agent is a method without "type": the client calls authenticate with its id.
	Agent *AuthMethodAgent
	// Terminal ("type": "terminal") is run by the client: it starts the same agent command
	// interactively with the extra args and env, waits for exit 0, then reconnects. Only
	// for clients that advertised AuthCapabilities.Terminal.
	Terminal *AuthMethodTerminal
	// Unknown is any other type, such as the old "env_var": skip it, forward it verbatim.
	Unknown json.RawMessage
}

// Kind returns "agent", "terminal", or the type of an unknown method.
func (m AuthMethod) Kind() string {
	switch {
	case m.Agent != nil:
		return "agent"
	case m.Terminal != nil:
		return "terminal"
	case m.Unknown != nil:
		return unknownKind(m.Unknown, "type")
	}
	return ""
}

// IsZero reports whether no variant is set.
func (m AuthMethod) IsZero() bool { return m.Agent == nil && m.Terminal == nil && m.Unknown == nil }

func (m AuthMethod) MarshalJSON() ([]byte, error) {
	switch {
	case m.Agent != nil:
		return m.Agent.encodeMembers("", "")
	case m.Terminal != nil:
		return m.Terminal.encodeMembers("type", "terminal")
	case m.Unknown != nil:
		return m.Unknown, nil
	}
	return nil, errEmptyUnion("AuthMethod")
}

func (m *AuthMethod) UnmarshalJSON(data []byte) error {
	kind, present, err := readKind("AuthMethod", data, "type")
	if err != nil {
		return err
	}
	*m = AuthMethod{}
	switch {
	case !present:
		m.Agent = new(AuthMethodAgent)
		return m.Agent.decodeMembers(data, "")
	case string(kind) == "terminal":
		m.Terminal = new(AuthMethodTerminal)
		return m.Terminal.decodeMembers(data, "type")
	}
	m.Unknown, err = unknownVariant(data)
	return err
}

// AuthMethodID identifies an auth method.
type AuthMethodID string

// AuthMethodAgent is an auth method the agent runs itself when the client calls authenticate.
type AuthMethodAgent struct {
	ID          AuthMethodID `json:"id"`
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
	Extra       Extra        `json:"-"`
}

// AuthMethodTerminal is an auth method the client runs in a terminal.
type AuthMethodTerminal struct {
	ID          AuthMethodID      `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Args        []string          `json:"args,omitzero"` // added to the agent's command line
	Env         map[string]string `json:"env,omitzero"`  // added to the agent's environment
	Meta        Meta              `json:"_meta,omitzero"`
	Extra       Extra             `json:"-"`
}

// AuthenticateRequest is the params of authenticate, for an auth method without type.
type AuthenticateRequest struct {
	MethodID AuthMethodID `json:"methodId"`
	Meta     Meta         `json:"_meta,omitzero"`
	Extra    Extra        `json:"-"`
}

// AuthenticateResponse is the result of authenticate.
type AuthenticateResponse struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// LogoutRequest is the params of logout, gated by AgentAuthCapabilities.Logout.
type LogoutRequest struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// LogoutResponse is the result of logout.
type LogoutResponse struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}
