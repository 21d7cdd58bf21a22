package main

// Issue 28, "reach a server from anywhere parley runs": `parley acp --connect` in front of
// a running parley web, driven by the project's ACP client: several clients on one
// conversation (session/list, session/load), a question asked in all of them and closed
// by the first answer, a client killed mid-turn, and the relay's own failures.

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// connectClient records what reaches one `parley acp --connect` client: the agent's
// reply, per session, and the permission questions it was asked. It answers a question
// only when told to (answer); a question withdrawn (another view answered it) is noted.
type connectClient struct {
	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change
	text      map[acp.SessionID]string
	asked     []string // the titles of the questions asked
	withdrawn []string // the titles of those withdrawn before this client answered
	answer    chan string
}

func newConnectClient() *connectClient {
	return &connectClient{changed: make(chan struct{}), text: map[acp.SessionID]string{}, answer: make(chan string, 1)}
}

func (c *connectClient) touch() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *connectClient) SessionUpdate(_ context.Context, n *acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := n.Update.AgentMessageChunk; u != nil {
		text, _ := u.Content.AsText()
		c.text[n.SessionID] += text
		c.touch()
	}
	return nil
}

func (c *connectClient) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, req.ToolCall.Title)
	c.touch()
	c.mu.Unlock()
	select {
	case kind := <-c.answer:
		for _, o := range req.Options {
			if string(o.Kind) == kind {
				return &acp.RequestPermissionResponse{Outcome: acp.SelectedOutcome(o.OptionID)}, nil
			}
		}
		return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
	case <-ctx.Done():
		c.mu.Lock()
		c.withdrawn = append(c.withdrawn, req.ToolCall.Title)
		c.touch()
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

// waitFor waits until ok holds of what the client has seen.
func (c *connectClient) waitFor(t *testing.T, what string, ok func(c *connectClient) bool) {
	t.Helper()
	guard := time.NewTimer(60 * time.Second) // a hang guard
	defer guard.Stop()
	for {
		c.mu.Lock()
		done, changed := ok(c), c.changed
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-guard.C:
			c.mu.Lock()
			defer c.mu.Unlock()
			t.Fatalf("waiting for %s: the client has text %q, asked %q, withdrawn %q", what, c.text, c.asked, c.withdrawn)
		}
	}
}

func (c *connectClient) textOf(id acp.SessionID) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.text[id]
}

// connected is one `parley acp --connect` process and the client driving it.
type connected struct {
	conn   *acp.ClientConn
	client *connectClient
	cmd    *exec.Cmd
	srv    *webServer
}

// connect runs `parley acp --connect` to srv (the token in $PARLEY_TOKEN) and
// initializes it.
func connect(t *testing.T, srv *webServer) connected {
	t.Helper()
	cmd := exec.Command(self(t), "acp", "--connect", srv.base+"/")
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley", "PARLEY_TOKEN="+srv.token), isolatedXDG(t)...)
	cmd.Stderr = os.Stderr
	client := newConnectClient()
	conn, err := acp.StartAgent(cmd, func(*acp.ClientConn) acp.Client { return client }, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	if _, err := conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersion}); err != nil {
		t.Fatalf("initialize through --connect: %v", err)
	}
	return connected{conn: conn, client: client, cmd: cmd, srv: srv}
}

// attach lists the server's sessions through c, checks id is among them, and loads it.
func (c connected) attach(t *testing.T, id acp.SessionID) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	list, err := c.conn.ListSessions(ctx, &acp.ListSessionsRequest{})
	if err != nil {
		t.Fatalf("session/list through --connect: %v", err)
	}
	var ids []acp.SessionID
	for _, s := range list.Sessions {
		ids = append(ids, s.SessionID)
	}
	if !slices.Contains(ids, id) {
		t.Fatalf("session/list through --connect: %v, not the live session %s", ids, id)
	}
	if _, err := c.conn.LoadSession(ctx, &acp.LoadSessionRequest{SessionID: id, Cwd: clientDir(t), MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatalf("session/load %s through --connect: %v", id, err)
	}
}

func newRemoteSession(t *testing.T, c connected) acp.SessionID {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	// A directory of this machine's: the server opens the session in its own workspace.
	s, err := c.conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: clientDir(t), MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatalf("session/new through --connect: %v", err)
	}
	return s.SessionID
}

// twoOnOneConversation starts a parley web server and two --connect clients: a opens a
// conversation and b attaches to it.
func twoOnOneConversation(t *testing.T) (*webServer, connected, connected, acp.SessionID) {
	srv := startWeb(t, nil, "--no-open")
	a := connect(t, srv)
	id := newRemoteSession(t, a)
	b := connect(t, srv)
	b.attach(t, id)
	return srv, a, b, id
}

// clientDir is a directory of the client's machine, not in the server's workspace: the
// server opens the session in its workspace all the same.
var clientDir = func(t *testing.T) string { return t.TempDir() }

const slowReply = "one two three four five six seven eight nine ten eleven twelve"

// Two clients on one conversation: the second lists and loads it, and both see the same
// reply as it streams.
func TestConnectSecondClientSeesTheSameReply(t *testing.T) {
	t.Parallel()
	_, a, b, id := twoOnOneConversation(t)
	resp, err := promptACP(t, a.conn, id, acp.TextBlock("slowly "+slowReply))
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt through --connect: %v, %v", resp, err)
	}
	if got := a.client.textOf(id); got != slowReply {
		t.Errorf("the first client got %q, want %q", got, slowReply)
	}
	b.client.waitFor(t, "the reply in the second client", func(c *connectClient) bool { return strings.HasSuffix(c.text[id], "twelve") })
	if got := b.client.textOf(id); got != slowReply {
		t.Errorf("the second client got %q, want %q (the same, once)", got, slowReply)
	}
}

// A permission question shows in both clients; the second one's answer closes it in the
// first.
func TestConnectQuestionInBothFirstAnswerWins(t *testing.T) {
	t.Parallel()
	_, a, b, id := twoOnOneConversation(t)
	type result struct {
		resp *acp.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
		defer cancel()
		resp, err := a.conn.Prompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock("request permission deploy the site")}})
		done <- result{resp, err}
	}()
	asked := func(c *connectClient) bool { return slices.Contains(c.asked, "deploy the site") }
	a.client.waitFor(t, "the question in the first client", asked)
	b.client.waitFor(t, "the question in the second client", asked)
	b.client.answer <- string(acp.PermissionOptionKindAllowOnce)
	a.client.waitFor(t, "the question withdrawn in the first client", func(c *connectClient) bool {
		return slices.Contains(c.withdrawn, "deploy the site")
	})
	r := <-done
	if r.err != nil || r.resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the turn: %v, %v", r.resp, r.err)
	}
	for name, c := range map[string]*connectClient{"first": a.client, "second": b.client} {
		c.waitFor(t, "the agent's word on the answer in the "+name+" client", func(c *connectClient) bool {
			return strings.Contains(c.text[id], "permission: allow_once")
		})
	}
}

// Killing the client that sent the prompt, mid-turn, changes nothing for the other; a
// third attaching afterwards gets the whole turn, once.
func TestConnectClientKilledMidTurn(t *testing.T) {
	t.Parallel()
	srv, a, b, id := twoOnOneConversation(t)
	long := strings.Repeat("word ", 60) + "last"
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
		defer cancel()
		a.conn.Prompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock("slowly " + long)}})
	}()
	b.client.waitFor(t, "the reply starting in the second client", func(c *connectClient) bool { return strings.Contains(c.text[id], "word word") })
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	b.client.waitFor(t, "the whole reply in the second client", func(c *connectClient) bool { return strings.HasSuffix(c.text[id], "last") })
	if got := b.client.textOf(id); got != long {
		t.Errorf("the second client got %q, want the whole reply once", got)
	}
	c := connect(t, srv)
	c.attach(t, id)
	if got := c.client.textOf(id); strings.Count(got, long) != 1 || got != long {
		t.Errorf("a third client attaching after the turn got %q, want the whole reply once", got)
	}
}

// rawConnect runs `parley acp --connect` with its stdio as pipes, for the relay's own
// failures: lines in, lines out, the exit status.
type rawConnect struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
}

func startRawConnect(t *testing.T, url, token string) *rawConnect {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, self(t), "acp", "--connect", url)
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley", "PARLEY_TOKEN="+token), isolatedXDG(t)...)
	r := &rawConnect{cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = r.stderr
	var err error
	if r.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.out = bufio.NewReader(out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return r
}

func (r *rawConnect) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		t.Fatalf("writing to parley acp --connect: %v", err)
	}
}

// response reads lines until the response to id, and returns it.
func (r *rawConnect) response(t *testing.T, id int) map[string]any {
	t.Helper()
	for {
		line, err := r.out.ReadString('\n')
		if err != nil {
			t.Fatalf("no response %d: %v; stderr: %s", id, err, r.stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON from parley acp --connect: %q", line)
		}
		if got, ok := m["id"].(float64); ok && int(got) == id && m["method"] == nil {
			return m
		}
	}
}

// exit waits for the process and returns its exit status.
func (r *rawConnect) exit(t *testing.T) int {
	t.Helper()
	err := r.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

func errorMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}

// The server going away mid-turn: the waiting prompt is answered with an error that says
// so, stderr says it too, and parley exits with status 1 (no hang).
func TestConnectServerGoneAnswersPendingRequests(t *testing.T) {
	t.Parallel()
	srv := startWeb(t, nil, "--no-open")
	r := startRawConnect(t, srv.base+"/", srv.token)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	r.response(t, 1)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"`+strings.ReplaceAll(srv.cwd(t), `\`, `\\`)+`","mcpServers":[]}}`)
	m := r.response(t, 2)
	result, _ := m["result"].(map[string]any)
	id, _ := result["sessionId"].(string)
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+id+`","prompt":[{"type":"text","text":"request permission wait for me"}]}}`)
	// The question is asked: the turn runs, waiting for an answer.
	for {
		line, err := r.out.ReadString('\n')
		if err != nil {
			t.Fatalf("no question: %v; stderr: %s", err, r.stderr.String())
		}
		if strings.Contains(line, `"session/request_permission"`) {
			break
		}
	}
	srv.cmd.Process.Kill()
	m = r.response(t, 3)
	if msg := errorMessage(m); !strings.Contains(msg, "connection to "+srv.base) || !strings.Contains(msg, "ended") {
		t.Errorf("the pending prompt was answered %v; want an error naming the server and that its connection ended", m)
	}
	if code := r.exit(t); code != 1 {
		t.Errorf("exit status %d, want 1; stderr: %s", code, r.stderr.String())
	}
	if !strings.Contains(r.stderr.String(), "connection to "+srv.base) {
		t.Errorf("stderr %q does not say the connection ended", r.stderr.String())
	}
}

// A line over the limit is answered with an error and the relay goes on; the end of
// stdin closes the connection and parley exits 0.
func TestConnectOversizedLineAndEndOfInput(t *testing.T) {
	t.Parallel()
	srv := startWeb(t, nil, "--no-open")
	r := startRawConnect(t, srv.base+"/", srv.token)
	big := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 65<<20) + `"}}`
	go func() { io.WriteString(r.in, big+"\n") }() // the reply comes while it is written
	m := r.response(t, 7)
	if msg := errorMessage(m); !strings.Contains(msg, "MiB") {
		t.Errorf("an oversized request was answered %v; want an error saying it is too big", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if m := r.response(t, 8); m["result"] == nil {
		t.Errorf("after an oversized line, initialize was answered %v", m)
	}
	r.in.Close()
	if code := r.exit(t); code != 0 {
		t.Errorf("exit status %d after the end of input, want 0; stderr: %s", code, r.stderr.String())
	}
}

// A wrong token, a host nobody serves, and something that is not parley: each said.
func TestConnectSaysWhyItCannotConnect(t *testing.T) {
	t.Parallel()
	srv := startWeb(t, nil, "--no-open")
	for _, c := range []struct{ url, token, want string }{
		{srv.base + "/", "wrong", "refused the connection (HTTP 401"},
		{srv.base + "/elsewhere/", srv.token, "HTTP 401"}, // not /acp: the page's paths want a session
		{"http://127.0.0.1:1/", "any", "cannot reach http://127.0.0.1:1/"},
		{srv.base + "/", "", "no token"},
	} {
		r := startRawConnect(t, c.url, c.token)
		r.in.Close()
		code := r.exit(t)
		if code == 0 || !strings.Contains(r.stderr.String(), c.want) {
			t.Errorf("%s with token %q: exit %d, stderr %q; want a failure saying %q", c.url, c.token, code, r.stderr.String(), c.want)
		}
		if strings.Contains(r.stderr.String(), srv.token) && c.token != srv.token {
			t.Errorf("stderr shows a token: %q", r.stderr.String())
		}
	}
}

// parley chat --connect: a new conversation on the server from a directory of the
// client's, then the same one again with --session (its history replayed first).
func TestConnectChatNewThenAttach(t *testing.T) {
	t.Parallel()
	srv := startWeb(t, nil, "--no-open")
	chat := func(stdin string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
		defer cancel()
		cmd := exec.CommandContext(ctx, self(t), append([]string{"chat", "--connect", srv.base + "/"}, args...)...)
		cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley", "PARLEY_TOKEN="+srv.token), isolatedXDG(t)...)
		cmd.Dir = clientDir(t)
		cmd.Stdin = strings.NewReader(stdin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("parley chat --connect %v: %v; stderr:\n%s", args, err, stderr.String())
		}
		return string(out)
	}
	first := chat("slowly the first turn\n")
	if !strings.Contains(first, "the first turn") {
		t.Fatalf("Eliza's reply through chat --connect: %q", first)
	}
	// The conversation is the server's: leaving the chat did not close it.
	a := connect(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	list, err := a.conn.ListSessions(ctx, &acp.ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 1 {
		t.Fatalf("session/list after the chat left: %+v, %v; want its conversation", list, err)
	}
	again := chat("slowly the second turn\n", "--session", string(list.Sessions[0].SessionID))
	if !strings.Contains(again, "the first turn") || !strings.Contains(again, "the second turn") {
		t.Errorf("attached with --session, the chat showed %q; want the earlier reply %q, then the new one", again, first)
	}
}

// /changes, /diff and /undo over chat --connect are the server's (_parley/changes,
// _parley/diff, _parley/undo): the file is written and removed on the server.
func TestConnectChatChangesOnTheServer(t *testing.T) {
	t.Parallel()
	srv := startWeb(t, nil, "--no-open")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, self(t), "chat", "--connect", srv.base+"/")
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley", "PARLEY_TOKEN="+srv.token), isolatedXDG(t)...)
	cmd.Dir = clientDir(t)
	cmd.Stdin = strings.NewReader("write file notes.txt with hello there\n/changes\n/diff\n/undo\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("parley chat --connect: %v; stderr:\n%s", err, stderr.String())
	}
	said := string(out) + stderr.String()
	for _, want := range []string{"A notes.txt +1 −0", "+hello there", "notes.txt: deleted"} {
		if !strings.Contains(said, want) {
			t.Errorf("chat --connect said no %q:\n%s", want, said)
		}
	}
	if _, err := os.Stat(filepath.Join(srv.cwd(t), "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("after /undo, the server's notes.txt: %v; want it gone", err)
	}
}
