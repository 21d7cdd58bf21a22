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
	"reflect"
	"strings"
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
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }

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

// UnmarshalObject decodes the JSON object data into v, a pointer to a struct (usually a
// method-less alias of the real type, to avoid recursion), and returns the members that
// v's type has no field for. A nil Extra means there were none.
func UnmarshalObject(data []byte, v any) (Extra, error) {
	if err := json.Unmarshal(data, v); err != nil {
		return nil, err
	}
	known := knownFields(reflect.TypeOf(v).Elem())
	var extra Extra
	err := EachMember(data, func(name string, value []byte) bool {
		if _, ok := known[name]; !ok {
			if extra == nil {
				extra = Extra{}
			}
			extra[name] = append(RawMessage(nil), value...)
		}
		return true
	})
	return extra, err
}

// MarshalObject encodes v (a struct, usually a method-less alias) and adds the members of
// extra that the encoding does not already contain.
func MarshalObject(v any, extra Extra) ([]byte, error) {
	data, err := json.Marshal(v)
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
		key, _ := json.Marshal(name)
		out = append(out, key...)
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

var knownCache sync.Map // reflect.Type -> map[string]struct{}

// knownFields returns the JSON member names that encoding/json maps to fields of t.
func knownFields(t reflect.Type) map[string]struct{} {
	if m, ok := knownCache.Load(t); ok {
		return m.(map[string]struct{})
	}
	m := map[string]struct{}{}
	addFields(t, m)
	knownCache.Store(t, m)
	return m
}

func addFields(t reflect.Type, m map[string]struct{}) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(ft, m)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = struct{}{}
	}
}
