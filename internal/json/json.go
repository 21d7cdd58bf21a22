// Package json is the one place where parley encodes and decodes JSON.
//
// Every package goes through these functions instead of importing encoding/json, so the
// codec (today encoding/json, later encoding/json/v2) and its settings change in one place.
// It also holds the helpers that make parley's protocol types lossless (UnmarshalObject,
// MarshalObject, and their Variant forms for tagged unions): members a struct has no
// field for are kept in an Extra map on decode and written back on encode, so a bridge
// forwards what it does not understand.
package json

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
)

// RawMessage is a raw encoded JSON value.
type RawMessage = json.RawMessage

// Marshaler and Unmarshaler are the encoding/json interfaces, re-exported so that types
// can implement them without importing encoding/json.
type (
	Marshaler   = json.Marshaler
	Unmarshaler = json.Unmarshaler
)

// SyntaxError and UnmarshalTypeError are encoding/json's errors, whose Offset says where
// in the input they are (a configuration file's error names its line and column).
type (
	SyntaxError        = json.SyntaxError
	UnmarshalTypeError = json.UnmarshalTypeError
)

// Marshal returns the compact JSON encoding of v. The output never contains a raw
// newline, so it can be framed as one line.
//
// Unlike encoding/json.Marshal it leaves <, > and & alone: protocol text is full of code,
// escaping would make it bigger, and raw values forwarded for a peer must come out as
// they went in.
func Marshal(v any) ([]byte, error) {
	if a, ok := appender(v); ok {
		// Room for a typical protocol message (a streamed chunk's notification is about
		// 200 bytes): appending from nothing would allocate at every doubling.
		return a.AppendJSON(make([]byte, 0, 256))
	}
	e := getEncoder()
	defer putEncoder(e)
	body, err := e.encode(v)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), body...), nil
}

// encoder is an encoding/json Encoder writing to its own buffer, pooled: creating one per
// call costs allocations on every nested MarshalJSON of the protocol types.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := new(encoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

func getEncoder() *encoder {
	e := encoders.Get().(*encoder)
	e.buf.Reset()
	return e
}

// putEncoder returns e to the pool unless its buffer grew for a large message (images
// and embedded files run to megabytes), which the pool would otherwise keep alive.
func putEncoder(e *encoder) {
	if e.buf.Cap() <= 1<<20 {
		encoders.Put(e)
	}
}

// encode returns the encoding of v, valid until the encoder is used again.
func (e *encoder) encode(v any) ([]byte, error) {
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	out := e.buf.Bytes()
	return out[:len(out)-1], nil // without Encode's newline
}

// MarshalIndent is Marshal with indentation, for files meant for people.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	return json.MarshalIndent(v, prefix, indent)
}

// Unmarshal decodes data into v.
//
// When v has its own UnmarshalJSON (every protocol type does), Unmarshal validates data
// and calls it directly, as encoding/json would, but without encoding/json's per-call
// decoder state: on the session/update hot path that is a third of the allocations.
func Unmarshal(data []byte, v any) error {
	if Valid(data) {
		if u, ok := direct(v); ok {
			return u.UnmarshalJSON(trimSpace(data))
		}
	}
	return json.Unmarshal(data, v)
}

// UnmarshalValid is Unmarshal for data the caller has already checked with Valid, or
// that is a sub-slice holding one whole value of data so checked (jsonrpc2 checks each
// line, then decodes its params): it does not check again. Given data not valid, it may
// decode part of it or fail, but it never reads outside data.
func UnmarshalValid(data []byte, v any) error {
	if u, ok := direct(v); ok {
		return u.UnmarshalJSON(trimSpace(data))
	}
	return json.Unmarshal(data, v)
}

// DecodeString decodes the JSON string data. A string without escapes is copied as it
// is, without encoding/json's decoder.
func DecodeString(data []byte) (string, error) {
	var s string
	err := decodeStringInto(data, &s)
	return s, err
}

// direct returns v's own UnmarshalJSON when encoding/json would call it directly: v is a
// non-nil pointer implementing Unmarshaler.
func direct(v any) (Unmarshaler, bool) {
	u, ok := v.(Unmarshaler)
	if !ok {
		return nil, false
	}
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, false
	}
	return u, true
}

func trimSpace(data []byte) []byte {
	i := skipSpace(data, 0)
	j := len(data)
	for j > i {
		switch data[j-1] {
		case ' ', '\t', '\n', '\r':
			j--
			continue
		}
		break
	}
	return data[i:j]
}

// Compact returns data without insignificant whitespace (and so without newlines).
func Compact(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(data))
	if err := json.Compact(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Extra holds the members of a JSON object that a Go struct has no field for, keyed by
// member name, with their raw values.
type Extra map[string]RawMessage

// MarshalObject encodes v (a struct, usually a method-less alias) and adds the members of
// extra that the encoding does not already contain.
func MarshalObject(v any, extra Extra) ([]byte, error) {
	return marshalObject("", "", v, extra)
}

// MarshalVariant is MarshalObject for one variant of a tagged union: the encoding starts
// with the discriminator member tag set to kind.
func MarshalVariant(tag, kind string, v any, extra Extra) ([]byte, error) {
	return marshalObject(tag, kind, v, extra)
}

func marshalObject(tag, kind string, v any, extra Extra) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	body, err := e.encode(v)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("json: %T does not encode as an object", v)
	}
	members := body[1 : len(body)-1]
	size := len(body) + len(tag) + len(kind) + 6
	for name, value := range extra {
		size += len(name) + len(value) + 4
	}
	out := make([]byte, 0, size)
	out = append(out, '{')
	if tag != "" {
		out = appendString(out, tag)
		out = append(out, ':')
		out = appendString(out, kind)
		if len(members) > 0 {
			out = append(out, ',')
		}
	}
	out = append(out, members...)
	for _, name := range sortedKeys(extra) {
		if name == tag || Member(body, name) != nil {
			continue // a field or the discriminator wins over a stale extra
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendString(out, name)
		out = append(out, ':')
		if out, err = appendCompact(out, extra[name]); err != nil {
			return nil, fmt.Errorf("json: member %q: %w", name, err)
		}
	}
	return append(out, '}'), nil
}

func appendCompact(out, value []byte) ([]byte, error) {
	buf := bytes.NewBuffer(out)
	if err := json.Compact(buf, value); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func sortedKeys(m Extra) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Insertion sort: extras are few, and the order must be stable for golden files.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// appendString appends s as a JSON string.
func appendString(out []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			quoted, _ := Marshal(s)
			return append(out, quoted...)
		}
	}
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}
