package coder

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/workspace"
)

// harness is parley's agent on one end of a pipe and parley's own ACP client host on
// the other (real fs/* and terminal/* in a temp workspace), with a fake model server.
type harness struct {
	t       testing.TB
	dir     string
	fake    *fakellm.Server
	conn    *acp.ClientConn
	client  *hostClient
	session acp.SessionID

	mu        sync.Mutex
	updates   []acp.SessionUpdate
	textOnce  sync.Once
	firstText chan struct{} // closed when the first reply text reaches the client
}

func start(t *testing.T, dialect string, opts Options, script ...fakellm.Reply) *harness {
	t.Helper()
	return startModel(t, dialect, fakellm.DefaultModel, opts, script...)
}

func startModel(t testing.TB, dialect string, info llm.ModelInfo, opts Options, script ...fakellm.Reply) *harness {
	t.Helper()
	return startWith(t, dialect, info, nil, opts, script...)
}

func startWith(t testing.TB, dialect string, info llm.ModelInfo, servers []acp.MCPServer, opts Options, script ...fakellm.Reply) *harness {
	t.Helper()
	if servers == nil {
		servers = []acp.MCPServer{}
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: dir, fake: fakellm.New(t, script...), firstText: make(chan struct{})}
	h.fake.SetModel("test-model", info)
	base := h.fake.URL()
	if dialect == "openai" {
		base = h.fake.OpenAIURL()
	}
	provider, model, err := llm.New(dialect+":test-model", base, "")
	if err != nil {
		t.Fatal(err)
	}
	opts.Provider, opts.Model = provider, model
	x, y := net.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		Serve(context.Background(), y, opts)
	}()
	h.client = newHostClient(hostClientOptions{
		Policy: &permission.Policy{Yolo: true},
		OnUpdate: func(_ context.Context, n *acp.SessionNotification) {
			h.mu.Lock()
			h.updates = append(h.updates, n.Update)
			h.mu.Unlock()
			if n.Update.AgentMessageChunk != nil {
				h.textOnce.Do(func() { close(h.firstText) })
			}
		},
	})
	h.conn = acp.NewClientConn(x, func(*acp.ClientConn) acp.Client { return h.client }, nil)
	t.Cleanup(func() {
		h.conn.Close()
		<-served
		h.client.Close()
	})
	if _, err := h.conn.Initialize(context.Background(), &acp.InitializeRequest{ClientCapabilities: h.client.Capabilities()}); err != nil {
		t.Fatal(err)
	}
	resp, err := h.conn.NewSession(context.Background(), &acp.NewSessionRequest{Cwd: dir, MCPServers: servers})
	if err != nil {
		t.Fatal(err)
	}
	h.session = resp.SessionID
	roots, _ := workspace.NewRoots(dir)
	h.client.AddSession(resp.SessionID, roots)
	return h
}

func (h *harness) prompt(ctx context.Context, text string) acp.StopReason {
	h.t.Helper()
	resp, err := h.conn.Prompt(ctx, &acp.PromptRequest{SessionID: h.session, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		h.t.Fatalf("prompt: %v", err)
	}
	return resp.StopReason
}

func (h *harness) text() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var b strings.Builder
	for _, u := range h.updates {
		if u.AgentMessageChunk != nil {
			t, _ := u.AgentMessageChunk.Content.AsText()
			b.WriteString(t)
		}
	}
	return b.String()
}

// toolCalls returns the final state of each tool call the client saw.
func (h *harness) toolCalls() []acp.ToolCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	var calls []acp.ToolCall
	index := map[acp.ToolCallID]int{}
	for _, u := range h.updates {
		switch {
		case u.ToolCall != nil:
			index[u.ToolCall.ToolCallID] = len(calls)
			calls = append(calls, *u.ToolCall)
		case u.ToolCallUpdate != nil:
			c := &calls[index[u.ToolCallUpdate.ToolCallID]]
			if u.ToolCallUpdate.Status != "" {
				c.Status = u.ToolCallUpdate.Status
			}
			if u.ToolCallUpdate.Content != nil {
				c.Content = u.ToolCallUpdate.Content
			}
		}
	}
	return calls
}

func call(name, args string) llm.ToolCall {
	return llm.ToolCall{ID: "id-" + name, Name: name, Arguments: json.RawMessage(args)}
}

func TestNativeToolsReadEditRun(t *testing.T) {
	for _, dialect := range []string{"ollama", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			h := start(t, dialect, Options{},
				fakellm.Reply{Thinking: []string{"Let me look."}, ToolCalls: []llm.ToolCall{call("read_file", `{"path":"a.txt"}`)}},
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("edit_file", `{"path":"a.txt","old_string":"helo","new_string":"hello"}`)}},
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("run_terminal_command", `{"command":"cat a.txt"}`)}},
				fakellm.Reply{Content: []string{"Fixed the ", "typo in a.txt. [TASK_", "COMPLETE]"}},
			)
			os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("helo world\n"), 0o644)
			if stop := h.prompt(t.Context(), "fix the typo in a.txt"); stop != acp.StopReasonEndTurn {
				t.Fatalf("stop reason %q", stop)
			}
			if b, _ := os.ReadFile(filepath.Join(h.dir, "a.txt")); string(b) != "hello world\n" {
				t.Errorf("a.txt = %q", b)
			}
			if got := h.text(); got != "Fixed the typo in a.txt. " {
				t.Errorf("text %q: the completion marker must not show", got)
			}
			calls := h.toolCalls()
			wantKinds := []acp.ToolKind{acp.ToolKindRead, acp.ToolKindEdit, acp.ToolKindExecute}
			if len(calls) != 3 {
				t.Fatalf("%d tool calls: %+v", len(calls), calls)
			}
			for i, c := range calls {
				if c.Kind != wantKinds[i] || c.Status != acp.ToolCallStatusCompleted {
					t.Errorf("call %d: kind %s status %s", i, c.Kind, c.Status)
				}
			}
			if len(calls[1].Content) == 0 || calls[1].Content[0].Diff == nil {
				t.Errorf("the edit carries no diff: %+v", calls[1].Content)
			}
			// History: the second request carries the assistant's call and the tool result.
			reqs := h.fake.Requests()
			var chats []*fakellm.Recorded
			for _, r := range reqs {
				if strings.Contains(r.Path, "chat") {
					chats = append(chats, r)
				}
			}
			msgs := chats[1].Messages
			last := msgs[len(msgs)-1]
			paired := last.ToolName == "read_file" // Ollama pairs results by tool name
			if dialect == "openai" {
				paired = last.ToolCallID == "id-read_file" // OpenAI by the call's id
			}
			if last.Role != "tool" || !paired || !strings.Contains(last.Content, "helo world") {
				t.Errorf("second request ends with %+v; want the read_file result", last)
			}
			prev := msgs[len(msgs)-2]
			if prev.Role != "assistant" || len(prev.ToolCalls) != 1 || (dialect == "ollama" && prev.Thinking != "Let me look.") {
				t.Errorf("the assistant message lost its call or thinking: %+v", prev)
			}
		})
	}
}

func TestTextFallback(t *testing.T) {
	h := startModel(t, "ollama", llm.ModelInfo{ContextLength: 8192, Tools: false}, Options{},
		fakellm.Reply{Content: []string{"Let me read it.", "<tool_", `call>{"name":"read","arguments":{"path":"a.txt"}}</tool_call>`}},
		fakellm.Reply{Content: []string{"It says hi. [TASK_COMPLETE]"}},
	)
	os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("hi\n"), 0o644)
	if stop := h.prompt(t.Context(), "what does a.txt say?"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q", stop)
	}
	if got := h.text(); strings.Contains(got, "tool_call") || !strings.Contains(got, "Let me read it.") || !strings.Contains(got, "It says hi.") {
		t.Errorf("text %q", got)
	}
	reqs := h.fake.Requests()
	second := reqs[len(reqs)-1]
	if _, ok := second.Body["tools"]; ok {
		t.Error("tools were sent to a model without native tools")
	}
	last := second.Messages[len(second.Messages)-1]
	if last.Role != "user" || !strings.Contains(last.Content, "<tool_result") || !strings.Contains(last.Content, "hi") {
		t.Errorf("the results went back as %+v", last)
	}
	if !strings.Contains(second.Messages[0].Content, "<tool_call>") {
		t.Error("the system prompt does not describe the text format")
	}
}

func TestMalformedCallIsReportedAndCorrected(t *testing.T) {
	h := start(t, "ollama", Options{},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("frobnicate", `{}`)}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("list_files", `{}`)}},
		fakellm.Reply{Content: []string{"All listed."}},
	)
	if stop := h.prompt(t.Context(), "list the files"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q", stop)
	}
	reqs := h.fake.Requests()
	var second *fakellm.Recorded
	n := 0
	for _, r := range reqs {
		if strings.Contains(r.Path, "chat") {
			if n++; n == 2 {
				second = r
			}
		}
	}
	last := second.Messages[len(second.Messages)-1]
	if !strings.Contains(last.Content, `no tool named "frobnicate"`) || !strings.Contains(last.Content, "read_file") {
		t.Errorf("the model was told %q", last.Content)
	}
}

func TestLoopIsStopped(t *testing.T) {
	h := start(t, "ollama", Options{},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("list_files", `{}`)}, Reuse: true},
	)
	if stop := h.prompt(t.Context(), "look around"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q", stop)
	}
	if !strings.Contains(h.text(), "kept repeating") {
		t.Errorf("text %q", h.text())
	}
	if n := len(h.toolCalls()); n > 10 {
		t.Errorf("%d calls before the loop was stopped", n)
	}
}

func TestTurnLimit(t *testing.T) {
	script := []fakellm.Reply{}
	for i := range 5 {
		script = append(script, fakellm.Reply{ToolCalls: []llm.ToolCall{call("search_workspace", `{"pattern":"x`+strings.Repeat("y", i)+`"}`)}})
	}
	h := start(t, "ollama", Options{MaxTurnRequests: 3}, script...)
	if stop := h.prompt(t.Context(), "search"); stop != acp.StopReasonMaxTurnRequests {
		t.Fatalf("stop %q", stop)
	}
}

func TestCancelMidStream(t *testing.T) {
	hold := make(chan struct{})
	h := start(t, "ollama", Options{}, fakellm.Reply{Content: []string{"Thinking about it, ", "let me see"}, Hold: hold})
	defer close(hold)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan acp.StopReason)
	go func() { done <- h.prompt(ctx, "explain") }()
	// Cancel once the first text has reached the client.
	select {
	case <-h.firstText:
	case <-done:
		t.Fatal("the turn ended early")
	}
	cancel()
	if stop := <-done; stop != acp.StopReasonCancelled {
		t.Errorf("stop %q, want cancelled", stop)
	}
}

func TestWriteValidationNudges(t *testing.T) {
	h := start(t, "ollama", Options{},
		fakellm.Reply{Content: []string{"Done! [TASK_COMPLETE]"}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("write_file", `{"path":"new.txt","content":"x"}`)}},
		fakellm.Reply{Content: []string{"Now it is done. [TASK_COMPLETE]"}},
	)
	if stop := h.prompt(t.Context(), "create new.txt"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q", stop)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "new.txt")); err != nil {
		t.Error("new.txt was not written")
	}
}

func TestMissingModelIsAClearError(t *testing.T) {
	fake := fakellm.New(t)
	fake.SetModel("other", llm.ModelInfo{})
	provider, _, _ := llm.New("ollama:absent", fake.URL(), "")
	x, y := net.Pipe()
	go Serve(context.Background(), y, Options{Provider: provider, Model: "absent"})
	conn := acp.NewClientConn(x, func(*acp.ClientConn) acp.Client {
		return newHostClient(hostClientOptions{Policy: &permission.Policy{}})
	}, nil)
	defer conn.Close()
	conn.Initialize(t.Context(), &acp.InitializeRequest{})
	_, err := conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
	if err == nil || !strings.Contains(err.Error(), "absent") {
		t.Errorf("got %v, want an error naming the model", err)
	}
}

func TestMCPServerToolsAreOffered(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "shouter", Version: "1"}, nil)
	type shoutArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "shout", Description: "upper-case the text"}, func(ctx context.Context, _ *mcp.CallToolRequest, in shoutArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(srv.Close)
	servers := []acp.MCPServer{acp.HTTPMCPServer("loud", srv.URL, nil)}
	h := startWith(t, "ollama", fakellm.DefaultModel, servers, Options{},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("loud__shout", `{"text":"hello"}`)}},
		fakellm.Reply{Content: []string{"Shouted."}},
	)
	if stop := h.prompt(t.Context(), "shout hello"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q", stop)
	}
	reqs := h.fake.Requests()
	first, last := reqs[0], reqs[len(reqs)-1]
	for _, r := range reqs {
		if strings.Contains(r.Path, "chat") {
			first = r
			break
		}
	}
	if tools, _ := json.Marshal(first.Body["tools"]); !strings.Contains(string(tools), "loud__shout") {
		t.Errorf("the MCP tool was not offered: %s", tools)
	}
	if msg := last.Messages[len(last.Messages)-1]; msg.Role != "tool" || msg.Content != "HELLO" {
		t.Errorf("the MCP result came back as %+v", msg)
	}
}

// TestUsageIsReported: after a turn, usage_update says what the next request will carry
// (the conversation so far, counted by the server where it counted it) against the
// window, and the prompt response carries the turn's usage as the server counted it.
func TestUsageIsReported(t *testing.T) {
	h := start(t, "ollama", Options{}, fakellm.Reply{Content: []string{"Hello there."}}, fakellm.Reply{Content: []string{"Again."}})
	resp, err := h.conn.Prompt(t.Context(), &acp.PromptRequest{SessionID: h.session, Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	first := h.fake.Requests()[len(h.fake.Requests())-1]
	if resp.Usage == nil || resp.Usage.InputTokens != uint64(first.PromptTokens) || resp.Usage.OutputTokens != uint64(fakellm.Tokens("Hello there.")) {
		t.Errorf("the turn's usage %+v; the server counted %d in", resp.Usage, first.PromptTokens)
	}
	var last *acp.UsageUpdate
	h.mu.Lock()
	for _, u := range h.updates {
		if u.UsageUpdate != nil {
			last = u.UsageUpdate
		}
	}
	h.mu.Unlock()
	if last == nil {
		t.Fatal("no usage_update")
	}
	h.prompt(t.Context(), "hi")
	second := h.fake.Requests()[len(h.fake.Requests())-1]
	carried := second.PromptTokens - fakellm.PromptTokens([]llm.Message{{Role: "user", Content: "hi"}}, nil) + fakellm.PromptTokens(nil, nil)
	if d := float64(last.Used) - float64(carried); d > 0.1*float64(carried) || d < -0.1*float64(carried) || last.Size != 16384 {
		t.Errorf("usage %d of %d; the next request carried %d besides the new prompt", last.Used, last.Size, carried)
	}
}
