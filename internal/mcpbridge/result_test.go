package mcpbridge

import (
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

func TestResultText(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{json.RawMessage(`[{"$mid":21,"value":"a"},{"value":"b"}]`), "ab"},
		{json.RawMessage(`"plain"`), "plain"},
		{json.RawMessage(`{"$mid":1,"x":[{"$mid":2,"y":1}]}`), `{"x":[{"y":1}]}`},
		{json.RawMessage(`[{"value":1}]`), `[{"value":1}]`},
		{[]any{map[string]any{"value": "go"}}, "go"},
		{42, "42"},
	} {
		if got := ResultText(tc.in); got != tc.want {
			t.Errorf("ResultText(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNormalizeSchema(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `{"type":"object","properties":{}}`},
		{`null`, `{"type":"object","properties":{}}`},
		{` { } `, `{"type":"object","properties":{}}`},
		{`{"properties":{"a":{}}}`, `{"type":"object","properties":{"a":{}}}`},
		{`{"type":"object","required":["a"]}`, `{"type":"object","required":["a"]}`},
		{`{"type":"string"}`, ``},
		{`{"type":["object","null"]}`, ``},
		{`[1]`, ``},
		{`{bad`, ``},
	} {
		got, err := normalizeSchema(json.RawMessage(tc.in))
		if tc.want == "" {
			if err == nil {
				t.Errorf("normalizeSchema(%s) = %s, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("normalizeSchema(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}
