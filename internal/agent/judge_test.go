package agent

import (
	"errors"
	"github.com/parley-acp/parley/internal/safety"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// codeJudge is a fakeJudge that also says which commands run code the agent can change.
type codeJudge struct {
	fakeJudge
	code map[string]string
}

func (j codeJudge) command(c tools.Command, roots []string) verdict {
	v := j.fakeJudge.command(c, roots)
	v.noAlways = j.code[c.Line]
	return v
}

// Issue 23.4: without harmless in the settings (--auto-approve none), a harmless
// command asks; with it (the default), it does not.
func TestHarmlessCommandsFollowTheSettings(t *testing.T) {
	for _, tc := range []struct {
		auto  AutoApprove
		asked int
	}{{AutoApprove{}, 1}, {DefaultAutoApprove(), 0}, {Yolo(), 0}} {
		la := newLocalAgent(t, "", nil, Options{Auto: tc.auto, judge: fakeJudge{"ls": safety.None}},
			fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("ls")}},
			fakellm.Reply{Content: []string{"ok"}},
		)
		la.newSession()
		la.prompt("list")
		if n := len(la.client.questions()); n != tc.asked {
			t.Errorf("%+v: asked %d times, want %d", tc.auto, n, tc.asked)
		}
	}
}

// Issue 16, class 5: a command that runs code the agent can change offers no "always
// allow", for the session or the workspace, and says why.
func TestNoAlwaysForCodeTheAgentCanChange(t *testing.T) {
	judge := codeJudge{fakeJudge{"sh build.sh": safety.Medium}, map[string]string{"sh build.sh": "build.sh"}}
	la := newLocalAgent(t, "", openStore(t), Options{judge: judge},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("sh build.sh")}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("sh build.sh")}},
		fakellm.Reply{Content: []string{"ok"}},
	)
	la.client.answer = func(req *acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		return acp.SelectedOutcome(optAllowSession) // not offered: a refusal
	}
	la.newSession()
	la.prompt("build")
	q := la.client.questions()
	if len(q) != 2 {
		t.Fatalf("asked %d times, want 2", len(q))
	}
	if slices.Contains(kinds(q[0].Options), acp.PermissionOptionKindAllowAlways) {
		t.Errorf("offers %v", kinds(q[0].Options))
	}
	if text := questionContent(q[0]); !strings.Contains(text, "build.sh, which can change") {
		t.Errorf("the question does not say why: %q", text)
	}
}

// While the database cannot be read, nothing is approved without a question, --yolo
// or not: a rejection the user asked to remember may be hiding there.
func TestUnreadableStoreApprovesNothing(t *testing.T) {
	la := newLocalAgent(t, "", nil, Options{Auto: Yolo(), StoreErr: errors.New("database is locked"), judge: fakeJudge{"touch made": safety.Medium}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("touch made")}},
		fakellm.Reply{Content: []string{"ok"}},
	)
	la.newSession()
	la.prompt("make it")
	if n := len(la.client.questions()); n != 1 {
		t.Errorf("asked %d times, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(la.dir, "made")); err == nil {
		t.Error("the command ran though the client refused")
	}
}

func questionContent(q *acp.RequestPermissionRequest) string {
	var out string
	for _, c := range q.ToolCall.Content {
		if c.Content != nil {
			s, _ := c.Content.Content.AsText()
			out += s
		}
	}
	return out
}
