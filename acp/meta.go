package acp

import (
	"github.com/parley-acp/parley/internal/json"
)

// Extra holds the members of a JSON object that its Go type has no field for, by member
// name, with their raw JSON values. Decoding fills it; encoding writes its members back
// after the fields, so a message passes through a program that does not know all of it
// without losing anything. A member that has a field is never taken from Extra: when the
// field is set and Extra holds the same name, the field wins.
//
// A member of an optional field whose value has the wrong type is kept here too, with the
// field left zero: it is still forwarded as it came.
type Extra map[string]json.RawMessage

// Meta is the _meta object every ACP type may carry: extension data keyed by name, kept
// raw. Root keys traceparent, tracestate and baggage are reserved for W3C trace context.
//
// A _meta that is null or not an object decodes as nil instead of failing the message
// (the schema's x-deserialize-default-on-error). An empty but present _meta is kept, so
// it is written back as {}.
type Meta map[string]json.RawMessage

func (m *Meta) UnmarshalJSON(data []byte) error {
	if !json.Valid(data) {
		return errMalformed
	}
	*m = nil
	if !isObject(data) {
		return nil
	}
	meta := Meta{}
	json.EachMember(data, func(name string, value []byte) bool {
		meta[name] = append(json.RawMessage(nil), value...)
		return true
	})
	*m = meta
	return nil
}

// Patch is one member of a partial update where null has its own meaning: absent leaves
// the old value alone, null clears it, and a value replaces it.
type Patch[T any] struct {
	Value T    // the new value, when Set and not Null
	Set   bool // the member is present, as a value or as null
	Null  bool // the member is null: clear the old value
}

// PatchValue returns a Patch that replaces the old value with v.
func PatchValue[T any](v T) Patch[T] { return Patch[T]{Value: v, Set: true} }

// PatchNull returns a Patch that clears the old value.
func PatchNull[T any]() Patch[T] { return Patch[T]{Set: true, Null: true} }

// IsZero reports whether the member is absent; omitzero then leaves it out.
func (p Patch[T]) IsZero() bool { return !p.Set }

func (p Patch[T]) MarshalJSON() ([]byte, error) {
	if p.Null {
		return []byte("null"), nil
	}
	return json.Marshal(p.Value)
}

func (p *Patch[T]) UnmarshalJSON(data []byte) error {
	var zero T
	if string(data) == "null" {
		*p = Patch[T]{Value: zero, Set: true, Null: true}
		return nil
	}
	*p = Patch[T]{Set: true}
	return json.Unmarshal(data, &p.Value)
}

// newBuffer is where a MarshalJSON starts writing: room for a typical message (a
// streamed chunk's notification is about 200 bytes), so that appending does not grow the
// buffer from nothing, allocating at each doubling.
func newBuffer() []byte { return make([]byte, 0, 256) }
