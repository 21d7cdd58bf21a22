package acp

import (
	"github.com/parley-acp/parley/internal/json"
)

// SessionConfigID identifies a config option.
type SessionConfigID string

// SessionConfigValueID identifies one value of a select config option.
type SessionConfigValueID string

// SessionConfigGroupID identifies a group of select values.
type SessionConfigGroupID string

// SessionConfigOption is a session setting the user can change (model, mode, reasoning
// effort...), the preferred mechanism over modes. It is discriminated by "type": exactly
// one of Select, Boolean and Unknown is set. For an unknown type only Unknown is filled:
// the whole object, written back as it came.
//
// Lists of options are ordered (earlier is more prominent) and always complete.
type SessionConfigOption struct {
	ID          SessionConfigID             `json:"id"`
	Name        string                      `json:"name"`
	Description string                      `json:"description,omitempty"`
	Category    SessionConfigOptionCategory `json:"category,omitempty"` // a UX hint only
	Meta        Meta                        `json:"_meta,omitzero"`
	Extra       Extra                       `json:"-"`

	Select  *SessionConfigSelect  `json:"-"` // "type": "select"
	Boolean *SessionConfigBoolean `json:"-"` // "type": "boolean", only for clients that advertise it
	Unknown json.RawMessage       `json:"-"`
}

// plainConfigOption is SessionConfigOption without its methods, for the wire structs.
type plainConfigOption SessionConfigOption

// Kind returns "select", "boolean", or the type of an unknown option.
func (o SessionConfigOption) Kind() string {
	switch {
	case o.Select != nil:
		return "select"
	case o.Boolean != nil:
		return "boolean"
	case o.Unknown != nil:
		return unknownKind(o.Unknown, "type")
	}
	return ""
}

// IsZero reports whether no variant is set.
func (o SessionConfigOption) IsZero() bool {
	return o.Select == nil && o.Boolean == nil && o.Unknown == nil
}

func (o SessionConfigOption) MarshalJSON() ([]byte, error) {
	switch {
	case o.Select != nil:
		return json.MarshalVariant("type", "select", struct {
			plainConfigOption
			*SessionConfigSelect
		}{plainConfigOption(o), o.Select}, json.Extra(o.Extra))
	case o.Boolean != nil:
		return json.MarshalVariant("type", "boolean", struct {
			plainConfigOption
			*SessionConfigBoolean
		}{plainConfigOption(o), o.Boolean}, json.Extra(o.Extra))
	case o.Unknown != nil:
		return o.Unknown, nil
	}
	return nil, errEmptyUnion("SessionConfigOption")
}

func (o *SessionConfigOption) UnmarshalJSON(data []byte) error {
	kind, _, err := readKind("SessionConfigOption", data, "type")
	if err != nil {
		return err
	}
	*o = SessionConfigOption{}
	switch string(kind) {
	case "select":
		o.Select = new(SessionConfigSelect)
		extra, err := json.UnmarshalVariant(data, &struct {
			*plainConfigOption
			*SessionConfigSelect
		}{(*plainConfigOption)(o), o.Select}, "type")
		o.Extra = Extra(extra)
		return err
	case "boolean":
		o.Boolean = new(SessionConfigBoolean)
		extra, err := json.UnmarshalVariant(data, &struct {
			*plainConfigOption
			*SessionConfigBoolean
		}{(*plainConfigOption)(o), o.Boolean}, "type")
		o.Extra = Extra(extra)
		return err
	}
	o.Unknown, err = unknownVariant(data)
	return err
}

// SessionConfigSelect is the part of a "select" config option that picks one value.
type SessionConfigSelect struct {
	CurrentValue SessionConfigValueID       `json:"currentValue"`
	Options      SessionConfigSelectOptions `json:"options"`
}

// SessionConfigBoolean is the part of a "boolean" config option that holds its value.
type SessionConfigBoolean struct {
	CurrentValue bool `json:"currentValue"`
}

// SessionConfigSelectOptions is the values of a select option: a flat list or a list of
// groups. Grouped wins when both are set; an empty flat list is written as [].
type SessionConfigSelectOptions struct {
	Ungrouped []SessionConfigSelectOption
	Grouped   []SessionConfigSelectGroup
}

func (o SessionConfigSelectOptions) MarshalJSON() ([]byte, error) {
	if o.Grouped != nil {
		return json.Marshal(o.Grouped)
	}
	if o.Ungrouped == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(o.Ungrouped)
}

func (o *SessionConfigSelectOptions) UnmarshalJSON(data []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return err
	}
	*o = SessionConfigSelectOptions{}
	if len(items) > 0 && json.Member(items[0], "group") != nil {
		return json.Unmarshal(data, &o.Grouped)
	}
	return json.Unmarshal(data, &o.Ungrouped)
}

// SessionConfigSelectOption is one value of a select option.
type SessionConfigSelectOption struct {
	Value       SessionConfigValueID `json:"value"`
	Name        string               `json:"name"`
	Description string               `json:"description,omitempty"`
	Meta        Meta                 `json:"_meta,omitzero"`
	Extra       Extra                `json:"-"`
}

// SessionConfigSelectGroup is a named group of select values.
type SessionConfigSelectGroup struct {
	Group   SessionConfigGroupID        `json:"group"`
	Name    string                      `json:"name"`
	Options []SessionConfigSelectOption `json:"options"`
	Meta    Meta                        `json:"_meta,omitzero"`
	Extra   Extra                       `json:"-"`
}

// SessionConfigOptionCategory is a hint for where to show a config option. Values starting
// with _ are custom; unknown ones are fine and never needed for correctness.
type SessionConfigOptionCategory string

const (
	SessionConfigOptionCategoryMode         SessionConfigOptionCategory = "mode"
	SessionConfigOptionCategoryModel        SessionConfigOptionCategory = "model"
	SessionConfigOptionCategoryModelConfig  SessionConfigOptionCategory = "model_config"
	SessionConfigOptionCategoryThoughtLevel SessionConfigOptionCategory = "thought_level"
)

// SetSessionConfigOptionRequest is the params of session/set_config_option.
type SetSessionConfigOptionRequest struct {
	SessionID SessionID          `json:"sessionId"`
	ConfigID  SessionConfigID    `json:"configId"`
	Value     SessionConfigValue `json:"-"` // "value", with "type" for non-select options
	Meta      Meta               `json:"_meta,omitzero"`
	Extra     Extra              `json:"-"`
}

// SessionConfigValue is the value session/set_config_option sets: the id of a select
// value, or a boolean. A value of a type this package does not know is kept raw.
type SessionConfigValue struct {
	Type    string               // "" for a select value id, "boolean", or an unknown type
	ID      SessionConfigValueID // the select value, when Type is ""
	Boolean bool                 // when Type is "boolean"
	Raw     json.RawMessage      // the value as it came, when it is none of the above
}

// ConfigValueID returns the value that selects id.
func ConfigValueID(id SessionConfigValueID) SessionConfigValue { return SessionConfigValue{ID: id} }

// ConfigValueBoolean returns a boolean value.
func ConfigValueBoolean(b bool) SessionConfigValue {
	return SessionConfigValue{Type: "boolean", Boolean: b}
}

// setConfigOptionWire is SetSessionConfigOptionRequest as it is on the wire.
type setConfigOptionWire struct {
	*plainSetConfigOption
	Type  string          `json:"type,omitempty"`
	Value json.RawMessage `json:"value"`
}

type plainSetConfigOption SetSessionConfigOptionRequest

func (r SetSessionConfigOptionRequest) MarshalJSON() ([]byte, error) {
	w := setConfigOptionWire{plainSetConfigOption: (*plainSetConfigOption)(&r), Type: r.Value.Type}
	var err error
	switch v := r.Value; {
	case v.Raw != nil:
		w.Value = v.Raw
	case v.Type == "":
		w.Value, err = json.Marshal(v.ID)
	case v.Type == "boolean":
		w.Value, err = json.Marshal(v.Boolean)
	default:
		return nil, errMissing("SessionConfigValue of type "+v.Type, "Raw")
	}
	if err != nil {
		return nil, err
	}
	return json.MarshalObject(w, json.Extra(r.Extra))
}

func (r *SetSessionConfigOptionRequest) UnmarshalJSON(data []byte) error {
	*r = SetSessionConfigOptionRequest{}
	w := setConfigOptionWire{plainSetConfigOption: (*plainSetConfigOption)(r)}
	extra, err := json.UnmarshalObject(data, &w)
	if err != nil {
		return err
	}
	r.Extra = Extra(extra)
	r.Value = SessionConfigValue{Type: w.Type, Raw: w.Value}
	switch w.Type {
	case "":
		if len(w.Value) > 0 && w.Value[0] == '"' && json.Unmarshal(w.Value, &r.Value.ID) == nil {
			r.Value.Raw = nil
		}
	case "boolean":
		if b := string(w.Value); b == "true" || b == "false" {
			r.Value.Boolean, r.Value.Raw = b == "true", nil
		}
	}
	return nil
}

// SetSessionConfigOptionResponse is the result of session/set_config_option: the
// complete list of options. Read the confirmed value from it instead of assuming it.
type SetSessionConfigOptionResponse struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
	Meta          Meta                  `json:"_meta,omitzero"`
	Extra         Extra                 `json:"-"`
}
