package vscodetest

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestClientChecksFrames checks the fake client itself: every rule it enforces on parley's
// frames catches a frame that breaks it. It needs no server.
func TestClientChecksFrames(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"not JSON", []string{`hello`}, "not a JSON-RPC object"},
		{"no jsonrpc", []string{`{"method":"lm/responseComplete","params":{"requestId":1}}`}, `"jsonrpc":"2.0"`},
		{"requestId as string", []string{`{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":"1","part":{"type":"text","value":"x"}}}`}, "no request of ours"},
		{"result without complete", []string{`{"jsonrpc":"2.0","id":1,"result":{}}`}, "without lm/responseComplete"},
		{"result not {}", []string{`{"jsonrpc":"2.0","method":"lm/responseComplete","params":{"requestId":1}}`, `{"jsonrpc":"2.0","id":1,"result":null}`}, "want {}"},
		{"complete before error", []string{`{"jsonrpc":"2.0","method":"lm/responseComplete","params":{"requestId":1}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}`}, "answered with an error"},
		{"part after complete", []string{`{"jsonrpc":"2.0","method":"lm/responseComplete","params":{"requestId":1}}`, `{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":1,"part":{"type":"text","value":"x"}}}`}, "after its lm/responseComplete"},
		{"part after response", []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"request cancelled"}}`, `{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":1,"part":{"type":"text","value":"x"}}}`}, "after its response"},
		{"notification after complete", []string{`{"jsonrpc":"2.0","method":"lm/responseComplete","params":{"requestId":1}}`, `{"jsonrpc":"2.0","method":"lm/usage","params":{"requestId":1}}`}, "lm/usage for 1 after its lm/responseComplete"},
		{"unknown notification", []string{`{"jsonrpc":"2.0","method":"lm/whatever","params":{"requestId":1}}`}, "unknown notification"},
		{"answered twice", []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"request cancelled"}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"request cancelled"}}`}, "answered 2 times"},
		{"unknown id", []string{`{"jsonrpc":"2.0","id":7,"result":3}`}, "never sent"},
		{"tool_result streamed", []string{`{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":1,"part":{"type":"tool_result","toolCallId":"c","result":[]}}}`}, "tool_result"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := checker(t)
			for _, line := range tt.lines {
				c.handle([]byte(line), time.Now())
			}
			if !slices.ContainsFunc(c.violations, func(v string) bool { return strings.Contains(v, tt.want) }) {
				t.Errorf("violations %q, want one mentioning %q", c.violations, tt.want)
			}
		})
	}
	t.Run("a correct exchange", func(t *testing.T) {
		c := checker(t)
		for _, line := range []string{
			`{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":1,"part":{"type":"text","value":"x"}}}`,
			`{"jsonrpc":"2.0","method":"lm/usage","params":{"requestId":1,"usage":{}}}`,
			`{"jsonrpc":"2.0","method":"lm/responseComplete","params":{"requestId":1}}`,
			`{"jsonrpc":"2.0","id":1,"result":{}}`,
		} {
			c.handle([]byte(line), time.Now())
		}
		if len(c.violations) > 0 {
			t.Errorf("violations %q, want none", c.violations)
		}
		if n := c.Notifications(1); len(n) != 1 || n[0].Method != "lm/usage" {
			t.Errorf("notifications %+v, want the lm/usage", n)
		}
	})
}

// checker is a client without a process, with chat request 1 open.
func checker(t *testing.T) *Client {
	return &Client{T: t, changed: make(chan struct{}), calls: map[string]*call{"1": {id: "1", method: ChatMethod}}}
}
