package main

import (
	"net"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// closedLoopbackURL is the address of a loopback port nobody listens on.
func closedLoopbackURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// --agent parley finds Ollama where ollama itself does ($OLLAMA_HOST, with or without a
// scheme); without one there, parley says which model it wanted and the ollama pull it
// needs, and parley agents says it needs a model server and where it looked.
func TestParleyAgentHonoursOllamaHost(t *testing.T) {
	fake := fakellm.New(t, fakellm.Reply{Content: []string{"Hello from elsewhere. ", "[TASK_COMPLETE]"}})
	w := newWorkspace(t)
	host := strings.TrimPrefix(fake.URL(), "http://")
	env := append(w.env, "OLLAMA_HOST="+host, "PARLEY_MODEL=ollama:m")
	r := parleyIn(t, w.dir, env, "", "run", "--agent", "parley", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "Hello from elsewhere.") {
		t.Errorf("OLLAMA_HOST=%s: exit %d, stdout %q, stderr %q", host, r.code, r.stdout, r.stderr)
	}
	r = parleyIn(t, w.dir, env, "", "agents")
	if !strings.Contains(r.stdout, "yes (Ollama at "+fake.URL()) {
		t.Errorf("parley agents, Ollama there: %s", r.stdout)
	}

	closed := closedLoopbackURL(t)
	env = append(w.env, "OLLAMA_HOST="+closed)
	r = parleyIn(t, w.dir, env, "", "run", "--agent", "parley", "hi")
	for _, want := range []string{"http://" + closed, "qwen2.5-coder:7b", "ollama pull qwen2.5-coder:7b", "OLLAMA_HOST"} {
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("no Ollama: exit %d, stderr %q; want it to say %q", r.code, r.stderr, want)
		}
	}
	r = parleyIn(t, w.dir, env, "", "agents")
	var row string
	for line := range strings.Lines(r.stdout) {
		if strings.HasPrefix(line, "parley ") {
			row = line
		}
	}
	if !strings.Contains(row, "needs a model server") || !strings.Contains(row, "http://"+closed) || strings.Contains(row, " yes") {
		t.Errorf("parley agents, no Ollama: parley's row %q; want it to need a model server at http://%s", row, closed)
	}
}
