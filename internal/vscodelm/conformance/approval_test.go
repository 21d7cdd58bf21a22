package conformance

// An agent action is allowed only by the approval itself. VS Code's "Skip" on the
// agent-action confirmation answers the call with a tool_result of its own words, without
// running the tool; an error or any other result is no approval either. Only the result
// the tool's invoke returns, [{"value":"Approved"}], allows the action; anything else is
// answered with the agent's reject_once option and the turn goes on in that request.

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/vscodelm"
)

func TestOnlyTheApprovalAllowsAnAgentAction(t *testing.T) {
	for _, tt := range []struct {
		name   string
		result string
		allow  bool
	}{
		{"the approval", `[{"value":"Approved"}]`, true},
		{"the approval with VS Code's marker", `[{"$mid":21,"value":"Approved"}]`, true},
		{"skipped in VS Code", `[{"value":"The user chose to skip the tool call, they want to proceed without running it"}]`, false},
		{"an error", `[{"value":"ERROR: the tool failed"}]`, false},
		{"empty", `[]`, false},
		{"null", `null`, false},
		{"a bare string", `"Approved"`, false},
		{"another case", `[{"value":"approved"}]`, false},
		{"padded", `[{"value":" Approved"}]`, false},
		{"split over two parts", `[{"value":"Appro"},{"value":"ved"}]`, false},
		{"the approval and more", `[{"value":"Approved"},{"value":"and run rm -rf"}]`, false},
		{"not a text part", `[{"value":{"text":"Approved"}}]`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t)
			cv := c.conversation(fakeAgent("ok"), agentActionTool("parley-agent-action"))
			parts := c.OK(cv.Send(user("perm deploy")))
			calls := toolCalls(parts)
			if len(calls) != 1 || calls[0].ToolName != "parley-agent-action" {
				t.Fatalf("tool calls %+v, want the agent action shown for confirmation", calls)
			}
			cv.Record(parts)
			answer := vscodelm.ContentPart{Type: vscodelm.PartToolResult, ToolCallID: calls[0].ToolCallID, Result: json.RawMessage(tt.result)}
			parts = c.OK(cv.Send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{answer}}))
			got := textOf(parts)
			want := "permission: reject_once"
			if tt.allow {
				want = "permission: allow_once"
			}
			// The turn goes on in the request that carries the result, either way.
			if !strings.Contains(got, want) {
				t.Fatalf("reply to the result %s: %q, want %q in it", tt.result, got, want)
			}
			cv.Record(parts)
			// The conversation goes on in the same session, which never sees the action again.
			next := cv.fakeTurn("hello")
			if next.session != "fake-1" || next.prompt != 2 || !strings.Contains(next.text, "got: hello") {
				t.Errorf("the next turn: %+v, want session fake-1's second prompt answering hello", next)
			}
			if strings.Contains(next.text, "deploy") {
				t.Errorf("the next turn %q repeats the action", next.text)
			}
		})
	}
}
