package acp

import (
	"slices"

	"github.com/parley-acp/parley/internal/json"
)

// ElicitationID identifies a URL elicitation until elicitation/complete.
type ElicitationID string

// CreateElicitationRequest is the params of elicitation/create: the agent asks the user
// for input, in a form or on a web page, gated by ElicitationCapabilities. On the wire it
// is one flat object: the embedded structs are the parts of each mode and scope.
type CreateElicitationRequest struct {
	Message                 string          `json:"message"`
	Mode                    ElicitationMode `json:"mode"`
	ElicitationFormMode                     // mode "form"
	ElicitationURLMode                      // mode "url"
	ElicitationSessionScope                 // about a session (and maybe a tool call)...
	ElicitationRequestScope                 // ...or about a request in flight
	Meta                    Meta            `json:"_meta,omitzero"`
	Extra                   Extra           `json:"-"`
}

// ElicitationMode is how the user answers an elicitation.
type ElicitationMode string

const (
	ElicitationModeForm ElicitationMode = "form" // a form built from RequestedSchema
	ElicitationModeURL  ElicitationMode = "url"  // a web page; completion is announced
)

// ElicitationFormMode is the part of a form elicitation: the form to show.
type ElicitationFormMode struct {
	RequestedSchema *ElicitationSchema `json:"requestedSchema,omitempty"`
}

// ElicitationURLMode is the part of a URL elicitation: the page to open. The agent sends
// elicitation/complete with the same id when the user is done.
type ElicitationURLMode struct {
	ElicitationID ElicitationID `json:"elicitationId,omitempty"`
	URL           string        `json:"url,omitempty"`
}

// ElicitationSessionScope ties an elicitation to a session and maybe one of its tool calls.
type ElicitationSessionScope struct {
	SessionID  SessionID  `json:"sessionId,omitempty"`
	ToolCallID ToolCallID `json:"toolCallId,omitempty"`
}

// ElicitationRequestScope ties an elicitation to a request in flight, by its raw JSON id.
type ElicitationRequestScope struct {
	RequestID RequestID `json:"requestId,omitzero"`
}

// CreateElicitationResponse is the result of elicitation/create.
type CreateElicitationResponse struct {
	Action                  ElicitationAction `json:"action"`
	ElicitationAcceptAction                   // action "accept"
	Meta                    Meta              `json:"_meta,omitzero"`
	Extra                   Extra             `json:"-"`
}

// ElicitationAction is the user's answer to an elicitation.
type ElicitationAction string

const (
	ElicitationActionAccept  ElicitationAction = "accept"
	ElicitationActionDecline ElicitationAction = "decline"
	ElicitationActionCancel  ElicitationAction = "cancel"
)

// ElicitationAcceptAction is the part of an accepted form elicitation: the answers by
// property name.
type ElicitationAcceptAction struct {
	Content map[string]ElicitationContentValue `json:"content,omitzero"`
}

// ElicitationContentValue is one answer: a string, integer, number, boolean or array of
// strings, kept as raw JSON so that large integers survive.
type ElicitationContentValue = json.RawMessage

// CompleteElicitationNotification is the params of elicitation/complete: the URL
// elicitation with this id is done.
type CompleteElicitationNotification struct {
	ElicitationID ElicitationID `json:"elicitationId"`
	Meta          Meta          `json:"_meta,omitzero"`
	Extra         Extra         `json:"-"`
}

// ElicitationSchema is the form of a form elicitation: a flat object schema whose
// properties are primitive.
type ElicitationSchema struct {
	Type        ElicitationSchemaType                `json:"type,omitempty"` // "object"
	Title       string                               `json:"title,omitempty"`
	Description string                               `json:"description,omitempty"`
	Properties  map[string]ElicitationPropertySchema `json:"properties,omitzero"`
	// Order is the names of Properties in the order the schema lists them, which is the
	// order a form shows its fields in: decoding sets it, and encoding writes the
	// properties in it (those it does not name after them: the required ones in the order
	// of Required, then the others by name).
	Order    []string `json:"-"`
	Required []string `json:"required,omitzero"`
	Meta     Meta     `json:"_meta,omitzero"`
	Extra    Extra    `json:"-"`
}

func (x *ElicitationSchema) UnmarshalJSON(b []byte) error {
	type plain ElicitationSchema
	extra, err := json.UnmarshalObject(b, (*plain)(x))
	if err != nil {
		return err
	}
	x.Extra = Extra(extra)
	x.Order = nil
	if raw := json.Member(b, "properties"); len(x.Properties) > 0 && raw != nil {
		json.EachMember(raw, func(name string, _ []byte) bool {
			if !slices.Contains(x.Order, name) {
				x.Order = append(x.Order, name)
			}
			return true
		})
	}
	return nil
}

func (x ElicitationSchema) MarshalJSON() ([]byte, error) {
	type plain ElicitationSchema
	props := x.Properties
	x.Properties = nil
	b, err := json.MarshalObject(plain(x), json.Extra(x.Extra))
	if err != nil || len(props) == 0 {
		return b, err
	}
	names := make([]string, 0, len(props))
	for _, name := range append(slices.Clip(x.Order), x.Required...) {
		if _, ok := props[name]; ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	rest := make([]string, 0, len(props)-len(names))
	for name := range props {
		if !slices.Contains(names, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	var o []byte
	for i, name := range append(names, rest...) {
		v, err := json.Marshal(props[name])
		if err != nil {
			return nil, err
		}
		k, _ := json.Marshal(name)
		if i > 0 {
			o = append(o, ',')
		}
		o = append(append(append(o, k...), ':'), v...)
	}
	b = b[:len(b)-1] // the closing brace
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(append(b, `"properties":{`...), o...)
	return append(b, '}', '}'), nil
}

// ElicitationSchemaType is the type of an elicitation form; only "object" exists.
type ElicitationSchemaType string

const ElicitationSchemaTypeObject ElicitationSchemaType = "object"

// ElicitationPropertySchema is one field of a form, discriminated by "type". Exactly one
// field is set.
type ElicitationPropertySchema struct {
	String  *StringPropertySchema      // "string"
	Number  *NumberPropertySchema      // "number"
	Integer *IntegerPropertySchema     // "integer"
	Boolean *BooleanPropertySchema     // "boolean"
	Array   *MultiSelectPropertySchema // "array": a multi-select
	Unknown json.RawMessage
}

// Kind returns the property's type, also for an unknown one.
func (p ElicitationPropertySchema) Kind() string {
	switch {
	case p.String != nil:
		return "string"
	case p.Number != nil:
		return "number"
	case p.Integer != nil:
		return "integer"
	case p.Boolean != nil:
		return "boolean"
	case p.Array != nil:
		return "array"
	case p.Unknown != nil:
		return unknownKind(p.Unknown, "type")
	}
	return ""
}

// IsZero reports whether no variant is set.
func (p ElicitationPropertySchema) IsZero() bool {
	return p.String == nil && p.Number == nil && p.Integer == nil && p.Boolean == nil &&
		p.Array == nil && p.Unknown == nil
}

func (p ElicitationPropertySchema) MarshalJSON() ([]byte, error) {
	switch {
	case p.String != nil:
		return p.String.encodeMembers("type", "string")
	case p.Number != nil:
		return p.Number.encodeMembers("type", "number")
	case p.Integer != nil:
		return p.Integer.encodeMembers("type", "integer")
	case p.Boolean != nil:
		return p.Boolean.encodeMembers("type", "boolean")
	case p.Array != nil:
		return p.Array.encodeMembers("type", "array")
	case p.Unknown != nil:
		return p.Unknown, nil
	}
	return nil, errEmptyUnion("ElicitationPropertySchema")
}

func (p *ElicitationPropertySchema) UnmarshalJSON(data []byte) error {
	kind, _, err := readKind("ElicitationPropertySchema", data, "type")
	if err != nil {
		return err
	}
	*p = ElicitationPropertySchema{}
	switch string(kind) {
	case "string":
		p.String = new(StringPropertySchema)
		return p.String.decodeMembers(data, "type")
	case "number":
		p.Number = new(NumberPropertySchema)
		return p.Number.decodeMembers(data, "type")
	case "integer":
		p.Integer = new(IntegerPropertySchema)
		return p.Integer.decodeMembers(data, "type")
	case "boolean":
		p.Boolean = new(BooleanPropertySchema)
		return p.Boolean.decodeMembers(data, "type")
	case "array":
		p.Array = new(MultiSelectPropertySchema)
		return p.Array.decodeMembers(data, "type")
	}
	p.Unknown, err = unknownVariant(data)
	return err
}

// StringPropertySchema is a text field, or a single choice when Enum or OneOf is set.
type StringPropertySchema struct {
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MinLength   *uint32      `json:"minLength,omitempty"`
	MaxLength   *uint32      `json:"maxLength,omitempty"`
	Pattern     string       `json:"pattern,omitempty"`
	Format      StringFormat `json:"format,omitempty"`
	Default     *string      `json:"default,omitempty"`
	Enum        []string     `json:"enum,omitzero"`
	OneOf       []EnumOption `json:"oneOf,omitzero"` // choices with titles
	Meta        Meta         `json:"_meta,omitzero"`
	Extra       Extra        `json:"-"`
}

// StringFormat is the format a string field must have.
type StringFormat string

const (
	StringFormatEmail    StringFormat = "email"
	StringFormatURI      StringFormat = "uri"
	StringFormatDate     StringFormat = "date"
	StringFormatDateTime StringFormat = "date-time"
)

// EnumOption is a choice with a title.
type EnumOption struct {
	Const       string `json:"const"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Meta        Meta   `json:"_meta,omitzero"`
	Extra       Extra  `json:"-"`
}

// NumberPropertySchema is a number field.
type NumberPropertySchema struct {
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Minimum     *float64 `json:"minimum,omitempty"`
	Maximum     *float64 `json:"maximum,omitempty"`
	Default     *float64 `json:"default,omitempty"`
	Meta        Meta     `json:"_meta,omitzero"`
	Extra       Extra    `json:"-"`
}

// IntegerPropertySchema is an integer field.
type IntegerPropertySchema struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Minimum     *int64 `json:"minimum,omitempty"`
	Maximum     *int64 `json:"maximum,omitempty"`
	Default     *int64 `json:"default,omitempty"`
	Meta        Meta   `json:"_meta,omitzero"`
	Extra       Extra  `json:"-"`
}

// BooleanPropertySchema is a checkbox.
type BooleanPropertySchema struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Default     *bool  `json:"default,omitempty"`
	Meta        Meta   `json:"_meta,omitzero"`
	Extra       Extra  `json:"-"`
}

// MultiSelectPropertySchema is a multiple choice.
type MultiSelectPropertySchema struct {
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	MinItems    *uint64          `json:"minItems,omitempty"`
	MaxItems    *uint64          `json:"maxItems,omitempty"`
	Items       MultiSelectItems `json:"items"`
	Default     []string         `json:"default,omitzero"`
	Meta        Meta             `json:"_meta,omitzero"`
	Extra       Extra            `json:"-"`
}

// MultiSelectItems is the choices of a multi-select: plain strings ("type": "string") or
// titled choices (no type, "anyOf"). Exactly one field is set.
type MultiSelectItems struct {
	String  *StringMultiSelectItems
	Titled  *TitledMultiSelectItems
	Unknown json.RawMessage
}

// Kind returns "string", "titled", or the type of an unknown shape.
func (m MultiSelectItems) Kind() string {
	switch {
	case m.String != nil:
		return "string"
	case m.Titled != nil:
		return "titled"
	case m.Unknown != nil:
		return unknownKind(m.Unknown, "type")
	}
	return ""
}

// IsZero reports whether no variant is set.
func (m MultiSelectItems) IsZero() bool {
	return m.String == nil && m.Titled == nil && m.Unknown == nil
}

func (m MultiSelectItems) MarshalJSON() ([]byte, error) {
	switch {
	case m.String != nil:
		return m.String.encodeMembers("type", "string")
	case m.Titled != nil:
		return m.Titled.encodeMembers("", "")
	case m.Unknown != nil:
		return m.Unknown, nil
	}
	return nil, errEmptyUnion("MultiSelectItems")
}

func (m *MultiSelectItems) UnmarshalJSON(data []byte) error {
	kind, present, err := readKind("MultiSelectItems", data, "type")
	if err != nil {
		return err
	}
	*m = MultiSelectItems{}
	switch {
	case string(kind) == "string":
		m.String = new(StringMultiSelectItems)
		return m.String.decodeMembers(data, "type")
	case !present && json.Member(data, "anyOf") != nil:
		m.Titled = new(TitledMultiSelectItems)
		return m.Titled.decodeMembers(data, "")
	}
	m.Unknown, err = unknownVariant(data)
	return err
}

// StringMultiSelectItems is multi-select choices as plain strings.
type StringMultiSelectItems struct {
	Enum  []string `json:"enum"`
	Meta  Meta     `json:"_meta,omitzero"`
	Extra Extra    `json:"-"`
}

// TitledMultiSelectItems is multi-select choices with titles.
type TitledMultiSelectItems struct {
	AnyOf []EnumOption `json:"anyOf"`
	Meta  Meta         `json:"_meta,omitzero"`
	Extra Extra        `json:"-"`
}
