package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// parley agent's model writes a sentence, calls a tool, writes another: the two are two
// paragraphs of the reply, not one glued sentence ("I will create the file.All done.").
func TestParleyAgentSeparatesItsMessages(t *testing.T) {
	fake := fakellm.New(t,
		fakellm.Reply{Content: []string{"I will create the file."}, ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: json.RawMessage(`{"path":"a.txt","content":"hi\n"}`)}}},
		fakellm.Reply{Content: []string{"All done. ", "[TASK_COMPLETE]"}},
	)
	w := newWorkspace(t)
	r := parleyIn(t, w.dir, w.env, "", "run", "--yolo", "--agent-command", agentCommand(t, "ollama:m", fake.URL()), "create a.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "file.All") || !strings.Contains(r.stdout, "I will create the file.\n\nAll done.") {
		t.Errorf("stdout %q: want the two messages as two paragraphs", r.stdout)
	}
}
