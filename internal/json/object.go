package json

import (
	"encoding"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// UnmarshalObject decodes the JSON object data into v, a pointer to a struct (usually a
// method-less alias of the real type, to avoid recursion), and returns the members that
// v's type has no field for. A nil Extra means there were none.
//
// It follows encoding/json with three differences that keep protocol types lossless and
// lenient:
//   - Member names match field names exactly. encoding/json also accepts other spellings
//     ("SESSIONID" for "sessionId"); here those are unknown members and land in Extra, so
//     they are forwarded as they came instead of overwriting the field.
//   - A member of an optional field (tagged omitempty or omitzero) whose value does not
//     fit the field's type leaves the field zero and is kept verbatim in Extra, so it
//     survives re-encoding. A value that does not fit a required field is an error.
//   - null for the whole object decodes to nothing, as it does for a struct in encoding/json.
//
// Decoding member by member with a cached field table, instead of running encoding/json
// over the object and then scanning it again, is what keeps the session/update hot path
// cheap: nested protocol types call each other's UnmarshalJSON directly, and the common
// cases (plain strings, booleans, small integers) never reach encoding/json.
func UnmarshalObject(data []byte, v any) (Extra, error) {
	return unmarshalObject(data, v, "")
}

// UnmarshalVariant is UnmarshalObject for one variant of a tagged union: the discriminator
// member tag, which the caller has already read, is neither decoded nor kept in Extra.
func UnmarshalVariant(data []byte, v any, tag string) (Extra, error) {
	return unmarshalObject(data, v, tag)
}

func unmarshalObject(data []byte, v any, skip string) (Extra, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("json: UnmarshalObject needs a non-nil pointer to a struct, not %T", v)
	}
	if isNull(data) {
		return nil, nil
	}
	obj := objectTypeOf(rv.Type().Elem())
	s := rv.Elem()
	var extra Extra
	var decodeErr error
	end, err := scanObject(data, func(quotedName, value []byte) bool {
		f, name, err := obj.lookup(quotedName)
		if err != nil {
			decodeErr = err
			return false
		}
		if skip != "" && string(name) == skip {
			return true
		}
		if f == nil {
			if !Valid(value) {
				decodeErr = fmt.Errorf("json: member %q: malformed value", name)
				return false
			}
			extra = keepMember(extra, string(name), value)
			return true
		}
		fv, err := fieldByIndex(s, f.index)
		if err == nil {
			err = f.decode(fv, value)
		}
		if err != nil {
			if f.optional && fv.CanSet() && Valid(value) {
				fv.SetZero()
				extra = keepMember(extra, string(name), value)
				return true
			}
			decodeErr = fmt.Errorf("member %q: %w", name, err)
			return false
		}
		return true
	})
	return objectEnd(data, end, extra, decodeErr, err)
}

func isNull(data []byte) bool {
	i := skipSpace(data, 0)
	return len(data)-i >= 4 && string(data[i:i+4]) == "null" && skipSpace(data, i+4) == len(data)
}

// objectType is the cached field table of one struct type.
type objectType struct {
	fields map[string]*field
}

type field struct {
	index    []int // through embedded structs; nil embedded pointers are allocated
	optional bool  // tagged omitempty or omitzero
	decode   decodeFunc
}

// decodeFunc decodes one JSON value into v, which is addressable.
type decodeFunc func(v reflect.Value, data []byte) error

// lookup returns the field for a member name given with its quotes, and the decoded
// name. The name aliases quoted when it needs no decoding, so that the common case,
// a known member, allocates nothing.
func (o *objectType) lookup(quoted []byte) (*field, []byte, error) {
	inner := quoted[1 : len(quoted)-1]
	if plainString(inner) {
		return o.fields[string(inner)], inner, nil
	}
	var name string
	if err := json.Unmarshal(quoted, &name); err != nil {
		return nil, nil, err
	}
	return o.fields[name], []byte(name), nil
}

// plainString reports whether the inside of a JSON string needs no decoding: no escapes,
// no control characters, valid UTF-8. It looks at eight bytes at a time while they are
// plain ASCII.
func plainString(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if !plainASCII8(binary.LittleEndian.Uint64(b[i:])) {
			break
		}
	}
	ascii := true
	for _, c := range b[i:] {
		if c < 0x20 || c == '\\' || c == '"' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(b)
}

// plainASCII8 reports whether the eight bytes of x are all printable ASCII other than
// '"' and '\\' (the usual test for a zero byte, for each kind of byte to find).
func plainASCII8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	special := x&highs | // not ASCII
		(x-ones*0x20)&^x&highs | // below 0x20
		hasZero(x^(ones*'"')) | hasZero(x^(ones*'\\'))
	return special == 0
}

// fieldByIndex returns the field at index, allocating nil embedded structs on the way.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return v, fmt.Errorf("json: cannot set embedded pointer to unexported struct %v", v.Type().Elem())
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

var objectTypes sync.Map // reflect.Type -> *objectType

func objectTypeOf(t reflect.Type) *objectType {
	if o, ok := objectTypes.Load(t); ok {
		return o.(*objectType)
	}
	o := &objectType{fields: map[string]*field{}}
	for name, f := range structFields(t) {
		o.fields[name] = &field{index: f.index, optional: f.optional, decode: decoderFor(f.typ)}
	}
	actual, _ := objectTypes.LoadOrStore(t, o)
	return actual.(*objectType)
}

// fieldInfo is one JSON member of a struct as encoding/json sees it.
type fieldInfo struct {
	index    []int
	typ      reflect.Type
	optional bool
	tagged   bool
}

// structFields returns the JSON members of struct type t, by name, following encoding/json:
// embedded structs without a name in their tag are flattened, and when names collide the
// shallowest field wins, then the only tagged one; otherwise the name is dropped.
func structFields(t reflect.Type) map[string]fieldInfo {
	type candidate struct {
		fieldInfo
		depth int
	}
	byName := map[string][]candidate{}
	var walk func(t reflect.Type, index []int, depth int, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, index []int, depth int, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(append([]int(nil), index...), i)
			ft := sf.Type
			if sf.Anonymous && name == "" {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					walk(et, idx, depth+1, seen)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			tagged := name != ""
			if name == "" {
				name = sf.Name
			}
			optional := false
			for opt := range strings.SplitSeq(opts, ",") {
				optional = optional || opt == "omitempty" || opt == "omitzero"
			}
			byName[name] = append(byName[name], candidate{fieldInfo{idx, ft, optional, tagged}, depth})
		}
	}
	walk(t, nil, 0, map[reflect.Type]bool{})
	fields := map[string]fieldInfo{}
	for name, cands := range byName {
		depth := cands[0].depth
		for _, c := range cands {
			depth = min(depth, c.depth)
		}
		var shallow, tagged []candidate
		for _, c := range cands {
			if c.depth == depth {
				shallow = append(shallow, c)
				if c.tagged {
					tagged = append(tagged, c)
				}
			}
		}
		switch {
		case len(shallow) == 1:
			fields[name] = shallow[0].fieldInfo
		case len(tagged) == 1:
			fields[name] = tagged[0].fieldInfo
		}
	}
	return fields
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessageType      = reflect.TypeFor[RawMessage]()
)

var decoders sync.Map // reflect.Type -> decodeFunc

// decoderFor returns how to decode a value of type t: fast paths for the common kinds and
// for types with their own UnmarshalJSON, and encoding/json for everything else (and for
// every input a fast path does not take, so that encoding/json defines the semantics).
func decoderFor(t reflect.Type) decodeFunc {
	if d, ok := decoders.Load(t); ok {
		return d.(decodeFunc)
	}
	var d decodeFunc
	switch {
	case t == rawMessageType:
		d = decodeRaw
	case t.Kind() == reflect.Pointer:
		elem := t.Elem()
		elemDecode := decoderFor(elem)
		d = func(v reflect.Value, data []byte) error {
			if isNull(data) {
				v.SetZero()
				return nil
			}
			if v.IsNil() {
				v.Set(reflect.New(elem))
			}
			return elemDecode(v.Elem(), data)
		}
	case reflect.PointerTo(t).Implements(unmarshalerType):
		d = func(v reflect.Value, data []byte) error {
			return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(data)
		}
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		d = decodeStd
	case t.Kind() == reflect.String:
		d = decodeString
	case t.Kind() == reflect.Bool:
		d = decodeBool
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		d = decodeInt
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		d = decodeUint
	default:
		d = decodeStd
	}
	actual, _ := decoders.LoadOrStore(t, d)
	return actual.(decodeFunc)
}

func decodeStd(v reflect.Value, data []byte) error {
	return json.Unmarshal(data, v.Addr().Interface())
}

func decodeRaw(v reflect.Value, data []byte) error {
	if !Valid(data) {
		return errors.New("json: malformed value")
	}
	v.SetBytes(append([]byte(nil), data...))
	return nil
}

func decodeString(v reflect.Value, data []byte) error {
	if len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"' && plainString(data[1:len(data)-1]) {
		v.SetString(string(data[1 : len(data)-1]))
		return nil
	}
	return decodeStd(v, data)
}

func decodeBool(v reflect.Value, data []byte) error {
	switch string(data) {
	case "true":
		v.SetBool(true)
		return nil
	case "false":
		v.SetBool(false)
		return nil
	}
	return decodeStd(v, data)
}

// plainInteger reports whether data is a JSON integer without fraction or exponent.
func plainInteger(data []byte) bool {
	digits := data
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 1 && digits[0] == '0' {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func decodeInt(v reflect.Value, data []byte) error {
	if plainInteger(data) {
		if n, err := strconv.ParseInt(string(data), 10, v.Type().Bits()); err == nil {
			v.SetInt(n)
			return nil
		}
	}
	return decodeStd(v, data)
}

func decodeUint(v reflect.Value, data []byte) error {
	if plainInteger(data) && data[0] != '-' {
		if n, err := strconv.ParseUint(string(data), 10, v.Type().Bits()); err == nil {
			v.SetUint(n)
			return nil
		}
	}
	return decodeStd(v, data)
}

// WithoutMember returns a copy of a decoded JSON value (maps, slices, scalars, as
// Unmarshal into an any makes them) with every object member called name removed, at any
// depth: VS Code's "$mid" markers, which no peer must see and no comparison may count.
func WithoutMember(v any, name string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			if k != name {
				out[k] = WithoutMember(val, name)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = WithoutMember(val, name)
		}
		return out
	}
	return v
}

// objectEnd is what decoding an object returns once scanObject has ended at end: the
// first error (a member's, then the scan's), or trailing bytes, else the members kept.
func objectEnd(data []byte, end int, extra Extra, decodeErr, err error) (Extra, error) {
	if decodeErr != nil {
		return nil, decodeErr
	}
	if err != nil {
		return nil, err
	}
	if skipSpace(data, end) != len(data) {
		return nil, errSyntax
	}
	return extra, nil
}

// keepMember adds a copy of a member no field took to extra, made when missing.
func keepMember(extra Extra, name string, value []byte) Extra {
	if extra == nil {
		extra = Extra{}
	}
	extra[name] = append(RawMessage(nil), value...)
	return extra
}
