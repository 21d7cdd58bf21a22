package json

import (
	"fmt"
	"reflect"
)

// DecodeMembers is UnmarshalVariant for a decoder written for its type (acp's generated
// ones): it reads the members of the object data and hands each to member, with its
// decoded name (a view, valid during the call) and raw value, except the discriminator
// tag when tag is not "". member decodes the members it knows into their fields and
// reports taken; a member not taken is kept in the Extra returned, as UnmarshalObject
// keeps a member its struct has no field for or an optional member whose value did not
// fit. member's error ends the decoding. null decodes to nothing.
//
// It gives the results of UnmarshalVariant without its reflection: no field table looked
// up, no reflect.Value set for each member, which on a flood of session/update
// notifications was most of the decoding.
func DecodeMembers(data []byte, tag string, member func(name, value []byte) (taken bool, err error)) (Extra, error) {
	if isNull(data) {
		return nil, nil
	}
	var extra Extra
	var decodeErr error
	end, err := scanObject(data, func(quotedName, value []byte) bool {
		name := quotedName[1 : len(quotedName)-1]
		if !plainString(name) {
			decoded, err := decodeName(quotedName)
			if err != nil {
				decodeErr = err
				return false
			}
			name = []byte(decoded)
		}
		if tag != "" && string(name) == tag {
			return true
		}
		taken, err := member(name, value)
		if err != nil {
			decodeErr = fmt.Errorf("member %q: %w", name, err)
			return false
		}
		if !taken {
			if !Valid(value) {
				decodeErr = fmt.Errorf("json: member %q: malformed value", name)
				return false
			}
			extra = keepMember(extra, string(name), value)
		}
		return true
	})
	return objectEnd(data, end, extra, decodeErr, err)
}

// DecodeValue decodes the value of one member into the field p points to, as
// UnmarshalObject decodes a field of that type (a type's own UnmarshalJSON, the fast
// paths for strings, booleans and integers, encoding/json for the rest). A generated
// decoder handles pointer fields itself (null makes them nil) and passes what they point
// to.
func DecodeValue(data []byte, p any) error {
	switch p := p.(type) {
	case *string:
		return decodeStringInto(data, p)
	case *RawMessage:
		if !Valid(data) {
			return fmt.Errorf("json: malformed value")
		}
		*p = append(RawMessage(nil), data...)
		return nil
	case Unmarshaler:
		return p.UnmarshalJSON(data)
	}
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("json: DecodeValue needs a non-nil pointer, not %T", p)
	}
	return decoderFor(v.Type().Elem())(v.Elem(), data)
}

// decodeStringInto is decodeString without reflection: a plain string is copied, anything
// else (escapes, null, a value of another type) goes to encoding/json.
func decodeStringInto(data []byte, p *string) error {
	if len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"' && plainString(data[1:len(data)-1]) {
		*p = string(data[1 : len(data)-1])
		return nil
	}
	return Unmarshal(data, p)
}

// IsNull reports whether data is the JSON null.
func IsNull(data []byte) bool { return isNull(data) }
