package linechat

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/permission"
)

// The line chat offers "allow while confined" as [c] where the policy does, says what
// it covers, and takes "c" for it.
func TestQuestionOffersAllowWhileConfined(t *testing.T) {
	p := &permission.Policy{Workspace: t.TempDir(), Confined: true}
	tc := acp.ToolCallUpdate{ToolCallID: "t1", Title: "go test ./...", Kind: acp.ToolKindExecute, RawInput: []byte(`{"command":"go test ./..."}`)}
	q := &permission.Question{
		Request: &acp.RequestPermissionRequest{ToolCall: tc},
		Subject: p.Subject(tc),
		Answers: []permission.Answer{permission.AllowOnce, permission.AllowWhileConfined, permission.RejectOnce, permission.RejectAlways},
	}
	text := questionText(q)
	if !strings.Contains(text, "[c] allow while confined") || !strings.Contains(text, "allow while confined covers: ") {
		t.Errorf("the question:\n%s\nwant [c] allow while confined and what it covers", text)
	}
	if a, ok := parseAnswer("c", q.Answers); !ok || a != permission.AllowWhileConfined {
		t.Errorf(`"c" reads as %v, %v; want allow while confined`, a, ok)
	}
}
