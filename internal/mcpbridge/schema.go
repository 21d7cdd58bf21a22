package mcpbridge

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/parley-acp/parley/internal/json"
)

// emptyObjectSchema is what a tool without parameters gets: MCP requires an object schema.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// maxSchemaDepth bounds how deeply a tool's input schema may nest objects and arrays.
// Real tool schemas nest a few levels; the go-sdk refuses (by panicking) past 1000.
const maxSchemaDepth = 64

// normalizeSchema makes a VS Code tool's input schema acceptable to MCP and to the go-sdk,
// whose AddTool panics on what it cannot take: missing, null or {} becomes an empty object
// schema; an object schema without "type" gets "type":"object". A schema that is not a
// JSON object, is not of type "object", nests deeper than maxSchemaDepth, or has an
// object with a member twice (which decoders read differently) is refused, so the caller
// leaves that tool out.
func normalizeSchema(schema json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return emptyObjectSchema, nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, errors.New("input schema is not a JSON object")
	}
	if depth := nesting(trimmed); depth > maxSchemaDepth {
		return nil, fmt.Errorf("input schema nests %d levels deep (at most %d)", depth, maxSchemaDepth)
	}
	if err := uniqueMembers(trimmed); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	compact, err := json.Compact(trimmed)
	if err != nil {
		return nil, fmt.Errorf("compacting input schema: %w", err)
	}
	if string(compact) == "{}" {
		return emptyObjectSchema, nil
	}
	typ := json.Member(compact, "type")
	if typ == nil {
		out := make([]byte, 0, len(compact)+16)
		out = append(out, `{"type":"object",`...)
		return append(out, compact[1:]...), nil
	}
	if string(typ) != `"object"` {
		return nil, fmt.Errorf("input schema has type %s, not \"object\"", typ)
	}
	return compact, nil
}

// nesting returns the deepest nesting of objects and arrays in valid JSON.
func nesting(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString && b == '"':
			inString = false
		case inString:
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			deepest = max(deepest, depth)
		case b == '}' || b == ']':
			depth--
		}
	}
	return deepest
}

// uniqueMembers reports an object anywhere in valid JSON that has a member twice.
func uniqueMembers(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil
	}
	switch data[0] {
	case '{':
		seen := map[string]bool{}
		var err error
		json.EachMember(data, func(name string, value []byte) bool {
			if seen[name] {
				err = fmt.Errorf("member %q appears twice in one object", name)
				return false
			}
			seen[name] = true
			err = uniqueMembers(value)
			return err == nil
		})
		return err
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return err
		}
		for _, item := range items {
			if err := uniqueMembers(item); err != nil {
				return err
			}
		}
	}
	return nil
}
