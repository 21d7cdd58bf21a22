package mcpbridge

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/parley-acp/parley/internal/json"
)

// emptyObjectSchema is what a tool without parameters gets: MCP requires an object schema.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// normalizeSchema makes a VS Code tool's input schema acceptable to MCP (and to the
// go-sdk, whose AddTool panics otherwise): missing, null or {} becomes an empty object
// schema; an object schema without "type" gets "type":"object". Any other schema cannot
// describe tool arguments and is refused, so the caller skips that tool.
func normalizeSchema(schema json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return emptyObjectSchema, nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, errors.New("input schema is not a JSON object")
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
