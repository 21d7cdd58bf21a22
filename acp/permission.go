package acp

import "github.com/parley-acp/parley/internal/json"

// RequestPermissionRequest is the params of session/request_permission: the agent asks
// the user to approve a tool call, offering options to choose from.
type RequestPermissionRequest struct {
	SessionID SessionID          `json:"sessionId"`
	ToolCall  ToolCallUpdate     `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
	Meta      Meta               `json:"_meta,omitzero"`
	Extra     Extra              `json:"-"`
}

// RequestPermissionResponse is the result of session/request_permission.
type RequestPermissionResponse struct {
	Outcome RequestPermissionOutcome `json:"outcome"`
	Meta    Meta                     `json:"_meta,omitzero"`
	Extra   Extra                    `json:"-"`
}

// PermissionOption is one choice offered to the user. Choose by Kind and answer with that
// option's OptionID: ids are agent-defined and often differ from the kind.
type PermissionOption struct {
	OptionID PermissionOptionID   `json:"optionId"`
	Name     string               `json:"name"`
	Kind     PermissionOptionKind `json:"kind"`
	Meta     Meta                 `json:"_meta,omitzero"`
	Extra    Extra                `json:"-"`
}

// PermissionOptionID identifies a permission option within one request.
type PermissionOptionID string

// PermissionOptionKind says what choosing an option means. An unknown kind is never an allow.
type PermissionOptionKind string

const (
	PermissionOptionKindAllowOnce    PermissionOptionKind = "allow_once"
	PermissionOptionKindAllowAlways  PermissionOptionKind = "allow_always"
	PermissionOptionKindRejectOnce   PermissionOptionKind = "reject_once" // refuse; the turn goes on
	PermissionOptionKindRejectAlways PermissionOptionKind = "reject_always"
)

// RequestPermissionOutcome is the user's answer, discriminated by "outcome". Cancelled is
// only for a turn cancelled with session/cancel (agents read it as "abort the turn"); a
// refusal selects a reject option.
type RequestPermissionOutcome struct {
	Cancelled *CancelledPermissionOutcome // "cancelled"
	Selected  *SelectedPermissionOutcome  // "selected"
	Unknown   json.RawMessage
}

// SelectedOutcome returns the outcome that selects the option id.
func SelectedOutcome(id PermissionOptionID) RequestPermissionOutcome {
	return RequestPermissionOutcome{Selected: &SelectedPermissionOutcome{OptionID: id}}
}

// CancelledOutcome returns the outcome for a permission request of a cancelled turn.
func CancelledOutcome() RequestPermissionOutcome {
	return RequestPermissionOutcome{Cancelled: &CancelledPermissionOutcome{}}
}

// Kind returns the outcome's "outcome" value, also for an unknown one.
func (o RequestPermissionOutcome) Kind() string {
	switch {
	case o.Cancelled != nil:
		return "cancelled"
	case o.Selected != nil:
		return "selected"
	case o.Unknown != nil:
		return unknownKind(o.Unknown, "outcome")
	}
	return ""
}

// IsZero reports whether no variant is set.
func (o RequestPermissionOutcome) IsZero() bool {
	return o.Cancelled == nil && o.Selected == nil && o.Unknown == nil
}

func (o RequestPermissionOutcome) MarshalJSON() ([]byte, error) {
	switch {
	case o.Cancelled != nil:
		return o.Cancelled.encodeMembers("outcome", "cancelled")
	case o.Selected != nil:
		return o.Selected.encodeMembers("outcome", "selected")
	case o.Unknown != nil:
		return o.Unknown, nil
	}
	return nil, errEmptyUnion("RequestPermissionOutcome")
}

func (o *RequestPermissionOutcome) UnmarshalJSON(data []byte) error {
	kind, _, err := readKind("RequestPermissionOutcome", data, "outcome")
	if err != nil {
		return err
	}
	*o = RequestPermissionOutcome{}
	switch string(kind) {
	case "cancelled":
		o.Cancelled = new(CancelledPermissionOutcome)
		return o.Cancelled.decodeMembers(data, "outcome")
	case "selected":
		o.Selected = new(SelectedPermissionOutcome)
		return o.Selected.decodeMembers(data, "outcome")
	}
	o.Unknown, err = unknownVariant(data)
	return err
}

// CancelledPermissionOutcome is the "cancelled" outcome. The schema gives it no members;
// the struct exists to keep unknown ones.
type CancelledPermissionOutcome struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}

// SelectedPermissionOutcome is the "selected" outcome: the option the user chose.
type SelectedPermissionOutcome struct {
	OptionID PermissionOptionID `json:"optionId"`
	Meta     Meta               `json:"_meta,omitzero"`
	Extra    Extra              `json:"-"`
}
