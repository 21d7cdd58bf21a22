//go:build unix

package conformance

// Issue 8, case 6, which needs a FIFO to say when the fake agent makes its late call.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/vscodelm"
)

// Case 6: a call that arrives after the response ended (opencode makes its calls tens of
// milliseconds apart) is shown in the next response, the one that carries the first
// result; it is never failed.
func TestLateParallelCallIsShownNext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "go")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	c := start(t, "--log", "debug", "vscodelm")
	cv := c.conversation(fakeAgent("ok", fakeFIFOEnv+"="+fifo), threeTools...)
	parts := c.OK(cv.Send(user("stagger a b")))
	calls := toolCalls(parts)
	if len(calls) != 1 || calls[0].ToolName != "a" {
		t.Fatalf("first response: tool calls %+v, want the call of a", calls)
	}
	cv.Record(parts)
	// The response has ended; now the agent makes its second call.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
	c.AwaitStderr("tool=b", "held for the next request")

	parts = c.OK(cv.Send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{toolResult(calls[0].ToolCallID, "alpha")}}))
	late := toolCalls(parts)
	if len(late) != 1 || late[0].ToolName != "b" {
		t.Fatalf("second response: tool calls %+v (text %q), want the late call of b", late, textOf(parts))
	}
	cv.Record(parts)
	got := textOf(c.OK(cv.Send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{toolResult(late[0].ToolCallID, "beta")}})))
	if !strings.Contains(got, "OK: alpha\nOK: beta") {
		t.Errorf("reply %q, want both results, neither failed", got)
	}
}
