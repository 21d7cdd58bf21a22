package mcpbridge

import (
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// ResultText is the text the agent receives for a VS Code tool result (the result member
// of a tool_result part): the value strings of an array of {value: string} parts (VS
// Code's LanguageModelTextPart) joined; a JSON string as itself; anything else as its JSON
// text. VS Code's internal "$mid" markers never reach the agent.
func ResultText(result any) string {
	raw, ok := result.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(result); err != nil {
			return fmt.Sprint(result)
		}
	}
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		return string(raw)
	}
	result = json.WithoutMember(decoded, "$mid")
	switch r := result.(type) {
	case string:
		return r
	case []any:
		if text, ok := joinValues(r); ok {
			return text
		}
	}
	data, err := json.Marshal(result)
	if err != nil {
		return ""
	}
	return string(data)
}

// joinValues joins the "value" strings of parts when every part is an object with one.
func joinValues(parts []any) (string, bool) {
	if len(parts) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		obj, ok := p.(map[string]any)
		if !ok {
			return "", false
		}
		value, ok := obj["value"].(string)
		if !ok {
			return "", false
		}
		b.WriteString(value)
	}
	return b.String(), true
}
