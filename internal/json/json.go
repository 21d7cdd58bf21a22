// Package json is the one place where parley encodes and decodes JSON.
//
// Every package goes through these functions instead of importing encoding/json, so the
// codec (today encoding/json, later encoding/json/v2) and its settings change in one place.
// It also holds the two helpers that make parley's protocol types lossless: members a
// struct has no field for are kept in an Extra map on decode and written back on encode,
// so a bridge forwards what it does not understand.
package json

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// Marshal returns the compact JSON encoding of v. The output never contains a raw
// newline, so it can be framed as one line.
//
// Unlike encoding/json.Marshal it leaves <, > and & alone: protocol text is full of code,
// escaping would make it bigger, and raw values forwarded for a peer must come out as
// they went in.
func Marshal(v any) ([]byte, error) {
	buf := bufferPool.Get().(*bytes.Buffer)
	defer bufferPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	return append([]byte(nil), out[:len(out)-1]...), nil // without Encode's newline
}

var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// MarshalIndent is Marshal with indentation, for files meant for people.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	return json.MarshalIndent(v, prefix, indent)
}

// Unmarshal decodes data into v.
func Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// Valid reports whether data is valid JSON.
func Valid(data []byte) bool { return json.Valid(data) }

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
	data, err := Marshal(v)
	if err != nil || len(extra) == 0 {
		return data, err
	}
	present := map[string]bool{}
	EachMember(data, func(name string, _ []byte) bool { present[name] = true; return true })
	out := data[:len(data)-1] // drop the closing brace
	for _, name := range sortedKeys(extra) {
		if present[name] {
			continue
		}
		value, err := Compact(extra[name])
		if err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendString(out, name)
		out = append(out, ':')
		out = append(out, value...)
	}
	return append(out, '}'), nil
}

func sortedKeys(m Extra) []string {
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

// MarshalVariant is MarshalObject for one variant of a tagged union: the encoding starts
// with the discriminator member tag set to kind.
func MarshalVariant(tag, kind string, v any, extra Extra) ([]byte, error) {
	if _, ok := extra[tag]; ok {
		trimmed := make(Extra, len(extra))
		for name, value := range extra {
			if name != tag {
				trimmed[name] = value
			}
		}
		extra = trimmed
	}
	data, err := MarshalObject(v, extra)
	if err != nil {
		return nil, err
	}
	if len(data) < 2 || data[0] != '{' {
		return nil, fmt.Errorf("json: variant %q does not encode as an object", kind)
	}
	out := make([]byte, 0, len(data)+len(tag)+len(kind)+6)
	out = append(out, '{')
	out = appendString(out, tag)
	out = append(out, ':')
	out = appendString(out, kind)
	if rest := data[1:]; rest[0] != '}' {
		out = append(out, ',')
		out = append(out, rest...)
	} else {
		out = append(out, '}')
	}
	return out, nil
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
