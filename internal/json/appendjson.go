package json

import (
	"fmt"
	"reflect"
)

// Appender is a type that appends its own compact encoding to a buffer. The generated
// encoders of the protocol types call it for nested values, so that a message is written
// once into one buffer instead of each level returning bytes that encoding/json copies
// and compacts again; Marshal calls it for the top level.
type Appender interface {
	AppendJSON(buf []byte) ([]byte, error)
}

// AppendString appends s as a JSON string, escaped as Marshal escapes it.
func AppendString(buf []byte, s string) []byte { return appendString(buf, s) }

// AppendName appends the member name of an object begun at buf[start] (its '{'), with
// the comma before it unless it is the first member.
func AppendName(buf []byte, start int, name string) []byte {
	if len(buf) > start+1 {
		buf = append(buf, ',')
	}
	buf = appendString(buf, name)
	return append(buf, ':')
}

// AppendMarshal appends the encoding of v, as encoding/json would embed it in an object.
func AppendMarshal(buf []byte, v any) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	body, err := e.encode(v)
	if err != nil {
		return nil, err
	}
	return append(buf, body...), nil
}

// AppendCompact appends the JSON value raw without insignificant whitespace (a union's
// unknown variant, kept raw), or fails if raw is not valid JSON.
func AppendCompact(buf, raw []byte) ([]byte, error) { return appendCompact(buf, raw) }

// AppendExtra ends an object begun at buf[start] (its '{'): it appends the members of
// extra that the object does not already contain, in name order, and the '}'. A member
// named tag (a union's discriminator) is never taken from extra: as in MarshalVariant,
// a field or the discriminator wins over a stale extra.
func AppendExtra(buf []byte, start int, tag string, extra Extra) ([]byte, error) {
	if len(extra) == 0 {
		return append(buf, '}'), nil
	}
	written := append(append([]byte(nil), buf[start:]...), '}')
	var err error
	for _, name := range sortedKeys(extra) {
		if name == tag || Member(written, name) != nil {
			continue
		}
		buf = AppendName(buf, start, name)
		if buf, err = appendCompact(buf, extra[name]); err != nil {
			return nil, fmt.Errorf("json: member %q: %w", name, err)
		}
	}
	return append(buf, '}'), nil
}

// AppenderOf returns v as an Appender when it is one and not a nil pointer: what
// Marshal would encode through AppendJSON.
func AppenderOf(v any) (Appender, bool) { return appender(v) }

// appender returns v's AppendJSON unless v is a nil pointer (which encodes as null).
func appender(v any) (Appender, bool) {
	a, ok := v.(Appender)
	if !ok {
		return nil, false
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, false
	}
	return a, true
}
