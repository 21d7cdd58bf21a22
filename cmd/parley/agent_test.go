package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// agentCommand runs `parley agent` (this test binary) against a model server.
func agentCommand(t *testing.T, model, baseURL string) string {
	return "env PARLEY_TEST_ROLE=parley " + self(t) + " agent --model " + model + " --base-url " + baseURL
}

func TestRunParleyAgentEndToEnd(t *testing.T) {
	t.Parallel()
	fake := fakellm.New(t,
		fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: json.RawMessage(`{"path":"notes.txt"}`)}}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: json.RawMessage(`{"path":"notes.txt","content":"tidy\n"}`)}}},
		fakellm.Reply{Content: []string{"I tidied notes.txt. ", "[TASK_COMPLETE]"}},
	)
	w := newWorkspace(t)
	os.WriteFile(filepath.Join(w.dir, "notes.txt"), []byte("messy\n"), 0o644)
	r := parleyIn(t, w.dir, w.env, "", "run", "--yolo", "--agent-command", agentCommand(t, "ollama:test-model", fake.URL()), "tidy up notes.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r.stdout != "I tidied notes.txt. \n" {
		t.Errorf("stdout %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "notes.txt") {
		t.Errorf("stderr shows no tool calls: %q", r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(w.dir, "notes.txt")); string(b) != "tidy\n" {
		t.Errorf("notes.txt = %q", b)
	}
}

func TestRunParleyAgentExplainsAMissingModelOrServer(t *testing.T) {
	// Not parallel: it needs a port nobody listens on, which a parallel test could take.
	fake := fakellm.New(t)
	fake.SetModel("present", fakellm.DefaultModel)
	r := parley(t, "", "run", "--agent-command", agentCommand(t, "ollama:absent", fake.URL()), "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "ollama pull absent") {
		t.Errorf("missing model: exit %d, stderr %q", r.code, r.stderr)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + l.Addr().String()
	l.Close()
	r = parley(t, "", "run", "--agent-command", agentCommand(t, "ollama:any", closed), "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "cannot reach Ollama") {
		t.Errorf("no server: exit %d, stderr %q", r.code, r.stderr)
	}
}
