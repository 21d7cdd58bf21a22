package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/parley-acp/parley/internal/json"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// failAfter bounds a wait that should finish at once, so that a bug fails the test
// instead of hanging it. It is never used to let something happen.
const failAfter = 10 * time.Second

// pendingCall is a call the fake VS Code owner has received and not yet answered.
type pendingCall struct {
	Call
	reply chan Result
	ended chan struct{} // closed when onCall has returned
}

// fakeOwner answers calls through a channel, like the vscodelm session worker would.
type fakeOwner struct{ calls chan pendingCall }

func newFakeOwner() *fakeOwner { return &fakeOwner{calls: make(chan pendingCall, 16)} }

func (o *fakeOwner) onCall(ctx context.Context, call Call) (Result, error) {
	p := pendingCall{Call: call, reply: make(chan Result, 1), ended: make(chan struct{})}
	defer close(p.ended)
	o.calls <- p
	select {
	case r := <-p.reply:
		return r, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

func (o *fakeOwner) next(t *testing.T) pendingCall {
	t.Helper()
	select {
	case p := <-o.calls:
		return p
	case <-time.After(failAfter):
		t.Fatal("no tool call reached the owner")
		return pendingCall{}
	}
}

var testTools = []Tool{
	{Name: "read_file", Description: "Read a file", InputSchema: json.RawMessage(`{"properties":{"path":{"type":"string"}}}`)},
	{Name: "get_errors", Description: "List errors"},
	{Name: "bad", Description: "Not an object", InputSchema: json.RawMessage(`{"type":"string"}`)},
	{Name: "empty", Description: "Empty schema", InputSchema: json.RawMessage(`{}`)},
}

func newTestSession(t *testing.T) (*Bridge, *Session, *fakeOwner) {
	t.Helper()
	b, s, owner := newBareSession(t, nil)
	s.SetTools(testTools)
	return b, s, owner
}

// newBareSession is a bridge logging to logger (nil: nowhere) with one session and no tools.
func newBareSession(t *testing.T, logger *slog.Logger) (*Bridge, *Session, *fakeOwner) {
	t.Helper()
	b, err := New(Options{Executable: "/usr/bin/parley", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	owner := newFakeOwner()
	s, err := b.AddSession("sess-1", owner.onCall)
	if err != nil {
		t.Fatal(err)
	}
	return b, s, owner
}

// gets signals each successful standalone SSE GET, after which notifications reach the client.
type clientTransport struct {
	headers map[string]string
	next    *http.Transport
	gets    chan struct{}
}

func (c *clientTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range c.headers {
		r.Header.Set(k, v)
	}
	resp, err := c.next.RoundTrip(r)
	if err == nil && r.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
		select {
		case c.gets <- struct{}{}:
		default:
		}
	}
	return resp, err
}

func connectHTTP(t *testing.T, s *Session, opts *mcp.ClientOptions) (*mcp.ClientSession, *clientTransport) {
	t.Helper()
	url, headers := s.McpServerHTTP()
	ct := &clientTransport{headers: headers, next: &http.Transport{}, gets: make(chan struct{}, 1)}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, opts)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: ct}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ct.next.CloseIdleConnections() })
	return cs, ct
}

func callText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d contents, want 1", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("result content is %T, want text", res.Content[0])
	}
	return text.Text
}

func listSchemas(t *testing.T, cs *mcp.ClientSession) map[string]string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tool := range res.Tools {
		data, _ := json.Marshal(tool.InputSchema)
		got[tool.Name+" "+tool.Description] = string(data)
	}
	return got
}

func TestListToolsNormalisesSchemas(t *testing.T) {
	_, s, _ := newTestSession(t)
	cs, _ := connectHTTP(t, s, nil)
	if got := cs.InitializeResult().ServerInfo.Name; got != "vscode_tools" {
		t.Errorf("server name = %q", got)
	}
	want := map[string]string{
		"read_file Read a file":  `{"properties":{"path":{"type":"string"}},"type":"object"}`,
		"get_errors List errors": `{"properties":{},"type":"object"}`,
		"empty Empty schema":     `{"properties":{},"type":"object"}`,
	}
	if diff := cmp.Diff(want, listSchemas(t, cs)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// Schemas the go-sdk's AddTool panics on leave their tool out; the rest are served, and a
// tool offered again is not warned about again.
func TestBadSchemasLeaveTheirToolOut(t *testing.T) {
	deep := `{"type":"object","properties":{"x":` + strings.Repeat(`{"type":"object","properties":{"x":`, 500) +
		`{}` + strings.Repeat(`}}`, 500) + `}}`
	var logs strings.Builder
	_, s, _ := newBareSession(t, slog.New(slog.NewTextHandler(&logs, nil)))
	tools := []Tool{
		{Name: "deep", InputSchema: json.RawMessage(deep)},
		{Name: "twotypes", InputSchema: json.RawMessage(`{"type":"object","type":"string"}`)},
		{Name: "nestedtwice", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","type":"number"}}}`)},
		{Name: "inarray", InputSchema: json.RawMessage(`{"type":"object","anyOf":[{"required":["a"],"required":["b"]}]}`)},
		{Name: "good", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
	}
	s.SetTools(tools)
	s.SetTools(tools)
	cs, _ := connectHTTP(t, s, nil)
	want := map[string]string{"good ": `{"properties":{"a":{"type":"string"}},"type":"object"}`}
	if diff := cmp.Diff(want, listSchemas(t, cs)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, name := range []string{"deep", "twotypes", "nestedtwice", "inarray"} {
		if n := strings.Count(logs.String(), "tool="+name+" "); n != 1 {
			t.Errorf("%d warnings about %s, want 1:\n%s", n, name, logs.String())
		}
	}
}

func TestMissingSecretIsUnauthorized(t *testing.T) {
	_, s, _ := newTestSession(t)
	url, _ := s.McpServerHTTP()
	for _, secret := range []string{"", "wrong"} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if secret != "" {
			req.Header.Set(SecretHeader, secret)
		}
		tr := &http.Transport{}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		tr.CloseIdleConnections()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("secret %q: status %d, want 401", secret, resp.StatusCode)
		}
	}
}

func TestCallOneTool(t *testing.T) {
	_, s, owner := newTestSession(t)
	cs, _ := connectHTTP(t, s, nil)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "mcp__vscode_tools__get_errors"})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	p := owner.next(t)
	if p.Tool != "get_errors" || string(p.Arguments) != "{}" || len(p.ID) != 36 || p.ID[14] != '4' {
		t.Errorf("call = %+v", p.Call)
	}
	p.reply <- Result{Text: "no errors"}
	res := <-done
	if res == nil || res.IsError || callText(t, res) != "no errors" {
		t.Errorf("result = %+v", res)
	}
}

func TestConcurrentCallsAnsweredInReverse(t *testing.T) {
	_, s, owner := newTestSession(t)
	cs, _ := connectHTTP(t, s, nil)
	calls := []struct{ tool, arg string }{{"read_file", "a"}, {"get_errors", "b"}, {"read_file", "c"}}
	var wg sync.WaitGroup
	for _, c := range calls {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
				Name: c.tool, Arguments: map[string]any{"path": c.arg},
			})
			if err != nil {
				t.Error(err)
				return
			}
			if got, want := callText(t, res), c.tool+":"+c.arg; got != want {
				t.Errorf("call %s(%s) got %q", c.tool, c.arg, got)
			}
		})
	}
	var pending []pendingCall
	ids := map[string]bool{}
	for range calls {
		p := owner.next(t)
		ids[p.ID] = true
		pending = append(pending, p)
	}
	if len(ids) != len(calls) {
		t.Errorf("call ids not distinct: %v", ids)
	}
	for i := len(pending) - 1; i >= 0; i-- {
		var args struct{ Path string }
		if err := json.Unmarshal(pending[i].Arguments, &args); err != nil {
			t.Fatal(err)
		}
		pending[i].reply <- Result{Text: pending[i].Tool + ":" + args.Path}
	}
	wg.Wait()
}

func TestUnknownTool(t *testing.T) {
	_, s, _ := newTestSession(t)
	cs, _ := connectHTTP(t, s, nil)
	for _, name := range []string{"nope", "mcp__vscode_tools__nope", "bad"} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
		want := fmt.Sprintf("tool '%s' not found", strings.TrimPrefix(name, toolPrefix))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("call %q: err = %v, want %q", name, err, want)
		}
	}
}

func TestCancelledCallEndsOwnerContext(t *testing.T) {
	_, s, owner := newTestSession(t)
	cs, _ := connectHTTP(t, s, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_errors"})
		errc <- err
	}()
	p := owner.next(t)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	select {
	case <-p.ended:
	case <-time.After(failAfter):
		t.Fatal("the owner's context did not end when the agent cancelled")
	}
}

func TestDescriptionChangeSendsListChanged(t *testing.T) {
	_, s, _ := newTestSession(t)
	changed := make(chan struct{}, 8)
	cs, ct := connectHTTP(t, s, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	select {
	case <-ct.gets:
	case <-time.After(failAfter):
		t.Fatal("client never opened its standalone stream")
	}
	tools := append([]Tool(nil), testTools...)
	tools[0].Description = "Read a file, better"
	s.SetTools(tools)
	select {
	case <-changed:
	case <-time.After(failAfter):
		t.Fatal("no notifications/tools/list_changed")
	}
	if _, ok := listSchemas(t, cs)["read_file Read a file, better"]; !ok {
		t.Errorf("tools after change: %v", listSchemas(t, cs))
	}
}

func TestShimEndToEnd(t *testing.T) {
	_, s, owner := newTestSession(t)
	url, headers := s.McpServerHTTP()
	cmd, args, env := s.McpServerStdio()
	if cmd != "/usr/bin/parley" || !cmp.Equal(args, []string{"mcp-shim", "--url", url}) || env[SecretEnv] != headers[SecretHeader] {
		t.Errorf("stdio server = %q %q %v", cmd, args, env)
	}
	for _, a := range args {
		if strings.Contains(a, headers[SecretHeader]) {
			t.Error("secret on the command line")
		}
	}

	agentIn, shimOut := io.Pipe()
	shimIn, agentOut := io.Pipe()
	shimDone := make(chan error, 1)
	go func() { shimDone <- RunShim(context.Background(), url, env[SecretEnv], shimIn, shimOut) }()

	changed := make(chan struct{}, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: agentIn, Writer: agentOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := listSchemas(t, cs); len(got) != 3 || got["read_file Read a file"] == "" {
		t.Errorf("tools through the shim: %v", got)
	}

	var wg sync.WaitGroup
	for _, name := range []string{"mcp__vscode_tools__read_file", "get_errors"} {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
			if err != nil {
				t.Error(err)
				return
			}
			if got := callText(t, res); got != strings.TrimPrefix(name, toolPrefix)+" done" {
				t.Errorf("%s: %q", name, got)
			}
		})
	}
	first, second := owner.next(t), owner.next(t)
	second.reply <- Result{Text: second.Tool + " done"}
	first.reply <- Result{Text: first.Tool + " done"}
	wg.Wait()

	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"}); err == nil || !strings.Contains(err.Error(), "tool 'nope' not found") {
		t.Errorf("unknown tool through the shim: %v", err)
	}

	// The shim relays list_changed; the shim's own stdio side needs no standalone stream.
	s.SetTools(testTools[:1])
	select {
	case <-changed:
	case <-time.After(failAfter):
		t.Fatal("no list_changed through the shim")
	}

	cs.Close()
	agentOut.Close()
	select {
	case err := <-shimDone:
		if err != nil {
			t.Errorf("RunShim: %v", err)
		}
	case <-time.After(failAfter):
		t.Fatal("RunShim did not return after stdin closed")
	}
	agentIn.Close()
}

func TestCloseLeaksNothing(t *testing.T) {
	b, err := New(Options{Executable: "parley"})
	if err != nil {
		t.Fatal(err)
	}
	owner := newFakeOwner()
	s, err := b.AddSession("leak", owner.onCall)
	if err != nil {
		t.Fatal(err)
	}
	s.SetTools(testTools)
	url, headers := s.McpServerHTTP()
	tr := &http.Transport{}
	client := mcp.NewClient(&mcp.Implementation{Name: "a", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: &clientTransport{headers: headers, next: tr, gets: make(chan struct{}, 1)}}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_errors"})
		errc <- err
	}()
	owner.next(t) // a call is pending when the bridge closes
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-errc; err == nil {
		t.Error("pending call succeeded after Close")
	}
	cs.Close()
	tr.CloseIdleConnections()
	if _, err := b.AddSession("late", owner.onCall); err == nil {
		t.Error("AddSession after Close succeeded")
	}
	goleak.VerifyNone(t)
}

// lockedBuffer is a log destination the test may read while the bridge writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// The go-sdk logs each MCP session's connection at info; parley logs it at debug, so that
// --log info is not one line per agent session.
func TestMCPSessionLogsAreDebug(t *testing.T) {
	var logs lockedBuffer
	_, s, _ := newBareSession(t, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	s.SetTools(testTools)
	cs, _ := connectHTTP(t, s, nil)
	listSchemas(t, cs) // the session is connected and answering
	got := logs.String()
	if !strings.Contains(got, `level=DEBUG msg="server session connected"`) {
		t.Errorf("no debug line for the MCP session's connection:\n%s", got)
	}
	if strings.Contains(got, "level=INFO") {
		t.Errorf("info lines from the MCP server:\n%s", got)
	}
}

// Connected and Settled tell the agent's discovery apart: connected, then settled once it
// has the tool list; an agent that leaves before listing settles it too.
func TestDiscoveryIsTracked(t *testing.T) {
	t.Run("listed", func(t *testing.T) {
		_, s, _ := newTestSession(t)
		if isClosed(s.Connected()) || isClosed(s.Settled()) {
			t.Fatal("connected or settled before any agent came")
		}
		cs, _ := connectHTTP(t, s, nil)
		<-s.Connected()
		if isClosed(s.Settled()) {
			t.Fatal("settled before the agent listed the tools")
		}
		if _, err := cs.ListTools(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		<-s.Settled()
	})
	t.Run("left before listing", func(t *testing.T) {
		_, s, _ := newTestSession(t)
		cs, _ := connectHTTP(t, s, nil)
		<-s.Connected()
		cs.Close()
		<-s.Settled()
	})
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
