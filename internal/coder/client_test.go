package coder

import (
	"context"
	"github.com/parley-acp/parley/internal/safety"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/coder/tools"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
	"github.com/parley-acp/parley/internal/store"
)

// permClient is an ACP client that offers no fs or terminal (so the agent acts on this
// machine) and answers permission requests with a test's choice, by option id.
type permClient struct {
	answer func(req *acp.RequestPermissionRequest) acp.RequestPermissionOutcome

	mu      sync.Mutex
	updates []acp.SessionNotification
	asked   []*acp.RequestPermissionRequest
	all     []acp.SessionNotification // every update, never taken
	changed chan struct{}             // signalled after each update
}

func (c *permClient) SessionUpdate(_ context.Context, n *acp.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, *n)
	c.all = append(c.all, *n)
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
	return nil
}

// waitFor waits until an update satisfies ok (updates outside a turn, such as the
// commands announced after session/new, may come after a later response).
func (c *permClient) waitFor(t *testing.T, ok func(acp.SessionUpdate) bool) acp.SessionUpdate {
	t.Helper()
	for {
		c.mu.Lock()
		for _, n := range c.all {
			if ok(n.Update) {
				c.mu.Unlock()
				return n.Update
			}
		}
		c.mu.Unlock()
		select {
		case <-c.changed:
		case <-t.Context().Done():
			t.Fatal("the update never came")
		}
	}
}

func (c *permClient) RequestPermission(_ context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, req)
	answer := c.answer
	c.mu.Unlock()
	if answer == nil {
		return &acp.RequestPermissionResponse{Outcome: acp.SelectedOutcome(optRejectOnce)}, nil
	}
	return &acp.RequestPermissionResponse{Outcome: answer(req)}, nil
}

func (c *permClient) questions() []*acp.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*acp.RequestPermissionRequest(nil), c.asked...)
}

func (c *permClient) take() []acp.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.updates
	c.updates = nil
	return out
}

// choose answers every question with the option id.
func choose(id string) func(*acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
	return func(*acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		return acp.SelectedOutcome(acp.PermissionOptionID(id))
	}
}

// localAgent is parley's agent with a permClient, a fake model and (optionally) a store.
type localAgent struct {
	t      *testing.T
	dir    string
	fake   *fakellm.Server
	store  *store.Store
	client *permClient
	conn   *acp.ClientConn
	id     acp.SessionID
	done   chan struct{}
}

// fakeJudge judges the commands it lists and calls everything else harmless; files
// named .env* are sensitive.
type fakeJudge map[string]safety.Tier

func (j fakeJudge) command(c tools.Command, roots []string) verdict {
	line := c.Line
	if line == "" {
		line = safety.JoinArgv(c.Argv)
	}
	return verdict{tier: j[line], reason: "judged by the test", key: "execute:" + line, covers: "`" + line + "`"}
}

func (fakeJudge) sensitive(path string, roots []string) bool {
	return strings.HasPrefix(filepath.Base(path), ".env")
}

// newLocalAgent starts an agent on a fresh workspace (dir, or a temp dir when "").
func newLocalAgent(t *testing.T, dir string, st *store.Store, opts Options, script ...fakellm.Reply) *localAgent {
	t.Helper()
	if dir == "" {
		var err error
		if dir, err = filepath.EvalSymlinks(t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	la := &localAgent{t: t, dir: dir, fake: fakellm.New(t, script...), store: st, client: &permClient{changed: make(chan struct{}, 1)}, done: make(chan struct{})}
	provider, model, err := llm.New("ollama:test-model", la.fake.URL(), "")
	if err != nil {
		t.Fatal(err)
	}
	opts.Provider, opts.Model, opts.Store = provider, model, st
	x, y := net.Pipe()
	go func() {
		defer close(la.done)
		Serve(context.Background(), y, opts)
	}()
	la.conn = acp.NewClientConn(x, func(*acp.ClientConn) acp.Client { return la.client }, nil)
	t.Cleanup(la.stop)
	if _, err := la.conn.Initialize(t.Context(), &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	return la
}

// stop ends the agent and waits for it.
func (la *localAgent) stop() {
	la.conn.Close()
	<-la.done
}

func (la *localAgent) newSession() acp.SessionID {
	la.t.Helper()
	resp, err := la.conn.NewSession(la.t.Context(), &acp.NewSessionRequest{Cwd: la.dir, MCPServers: []acp.MCPServer{}})
	if err != nil {
		la.t.Fatal(err)
	}
	la.id = resp.SessionID
	return la.id
}

func (la *localAgent) prompt(text string) acp.StopReason {
	la.t.Helper()
	resp, err := la.conn.Prompt(la.t.Context(), &acp.PromptRequest{SessionID: la.id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		la.t.Fatalf("prompt %q: %v", text, err)
	}
	return resp.StopReason
}

// reply is the agent's text in the updates taken.
func reply(updates []acp.SessionNotification) string {
	var b strings.Builder
	for _, n := range updates {
		if n.Update.AgentMessageChunk != nil {
			t, _ := n.Update.AgentMessageChunk.Content.AsText()
			b.WriteString(t)
		}
	}
	return b.String()
}

// lastToolMessage is the last tool result the model was sent.
func lastToolMessage(t *testing.T, fake *fakellm.Server) string {
	t.Helper()
	reqs := fake.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		msgs := reqs[i].Messages
		for j := len(msgs) - 1; j >= 0; j-- {
			if msgs[j].Role == "tool" {
				return msgs[j].Content
			}
		}
	}
	t.Fatal("the model was sent no tool result")
	return ""
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func runCall(command string) llm.ToolCall {
	return call("run_terminal_command", `{"command":`+quote(command)+`}`)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
