package acpserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/eliza"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/workspace"
	"go.uber.org/goleak"
)

// The test binary is its own agent: with PARLEY_TEST_AGENT=eliza it serves the built-in
// agent on stdin and stdout, so the server drives a real agent process.
func TestMain(m *testing.M) {
	if os.Getenv("PARLEY_TEST_AGENT") == "eliza" {
		if err := eliza.Serve(context.Background(), acp.Stdio(), eliza.Options{Deterministic: true}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

type testLauncher struct{ t testing.TB }

func (l testLauncher) AgentOptions(name string, roots *workspace.Roots) (conversation.AgentOptions, error) {
	if name != "eliza" {
		return conversation.AgentOptions{}, fmt.Errorf("unknown agent %q", name)
	}
	exe, err := os.Executable()
	if err != nil {
		return conversation.AgentOptions{}, err
	}
	return conversation.AgentOptions{Name: name, Spec: agentproc.Spec{Command: exe, Env: []string{"PARLEY_TEST_AGENT=eliza"}}, Timeout: 30 * time.Second, ElicitForms: true, ElicitURLs: true}, nil
}

func (testLauncher) Policy(name string, roots *workspace.Roots) *permission.Policy {
	return &permission.Policy{Agent: name, Workspace: roots.Dirs()[0], Roots: roots.Dirs()}
}

func (testLauncher) Changes(string, *workspace.Roots) *changes.Record { return nil }

func (testLauncher) Agents() []AgentEntry { return []AgentEntry{{Name: "eliza", Source: "built-in"}} }

func newTestServer(t testing.TB) *Server {
	t.Helper()
	srv, err := New(Options{Launcher: testLauncher{t}, DefaultAgent: "eliza", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// page is a client of the server, as the web page is: it records what it is sent and
// answers permission questions with its answer function.
type page struct {
	conn *acp.ClientConn

	mu      sync.Mutex
	updates []acp.SessionUpdate
	changed chan struct{}
	answer  func(*acp.RequestPermissionRequest) acp.RequestPermissionOutcome
	asked   []*acp.RequestPermissionRequest
	ext     []string // extension notifications, by method
	// withdrawn counts the questions (permission, elicitation) withdrawn from this page
	// ($/cancel_request) before it answered.
	withdrawn int
}

func (p *page) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	p.mu.Lock()
	p.updates = append(p.updates, n.Update)
	p.mu.Unlock()
	p.signal()
	return nil
}

func (p *page) signal() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func (p *page) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	p.mu.Lock()
	p.asked = append(p.asked, req)
	answer := p.answer
	p.mu.Unlock()
	p.signal()
	if answer == nil {
		<-ctx.Done() // withdrawn
		p.noteWithdrawn()
		return nil, ctx.Err()
	}
	return &acp.RequestPermissionResponse{Outcome: answer(req)}, nil
}

func (p *page) noteWithdrawn() {
	p.mu.Lock()
	p.withdrawn++
	p.mu.Unlock()
	p.signal()
}

func (p *page) HandleExtension(ctx context.Context, method string, params json.RawMessage, isNotification bool) (any, error) {
	p.mu.Lock()
	p.ext = append(p.ext, method+" "+string(params))
	p.mu.Unlock()
	p.signal()
	return nil, nil
}

// text is the agent's reply text the page was sent.
func (p *page) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, u := range p.updates {
		if u.AgentMessageChunk != nil {
			s, _ := u.AgentMessageChunk.Content.AsText()
			b.WriteString(s)
		}
	}
	return b.String()
}

// waitFor waits until cond holds, failing after a generous deadline (a hang guard).
func (p *page) waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-p.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; text so far %q", what, p.text())
		}
	}
}

// pageCapabilities are the web page's: it speaks parley's extensions and answers
// elicitations.
var pageCapabilities = acp.ClientCapabilities{
	Meta:        acp.Meta{"parley": json.RawMessage(`{}`)},
	Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}, URL: &acp.ElicitationURLCapabilities{}},
}

// connect connects a page (see pageCapabilities).
func connect(t *testing.T, srv *Server) *page {
	t.Helper()
	p, _ := connectAs(t, srv, pageCapabilities)
	return p
}

// connectAs connects a client with caps and returns its initialize answer.
func connectAs(t *testing.T, srv *Server, caps acp.ClientCapabilities) (*page, *acp.InitializeResponse) {
	t.Helper()
	a, b := net.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(context.Background(), a)
	}()
	p := &page{changed: make(chan struct{}, 1)}
	p.conn = acp.NewClientConn(b, func(*acp.ClientConn) acp.Client { return p }, nil)
	t.Cleanup(func() {
		p.conn.Close()
		<-served
	})
	init, err := p.conn.Initialize(t.Context(), &acp.InitializeRequest{ClientCapabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	return p, init
}

func openTestSession(t testing.TB, p *page, agent string) *acp.NewSessionResponse {
	t.Helper()
	req := &acp.NewSessionRequest{MCPServers: []acp.MCPServer{}}
	if agent != "" {
		req.Meta = parleyMeta(parleyapi.RequestMeta{Agent: agent})
	}
	resp, err := p.conn.NewSession(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func prompt(t testing.TB, p *page, id acp.SessionID, text string) *acp.PromptResponse {
	t.Helper()
	resp, err := p.conn.Prompt(t.Context(), &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestPromptIsAnsweredByTheAgentBehindParley(t *testing.T) {
	srv := newTestServer(t)
	p := connect(t, srv)
	s := openTestSession(t, p, "")
	if !strings.HasPrefix(string(s.SessionID), "parley-") {
		t.Errorf("session id %q: want parley's own", s.SessionID)
	}
	resp := prompt(t, p, s.SessionID, "I am worried about my tests")
	if resp.StopReason != acp.StopReasonEndTurn {
		t.Errorf("stop reason %q", resp.StopReason)
	}
	if !strings.Contains(p.text(), "worried about your tests") {
		t.Errorf("reply %q", p.text())
	}
}

func TestUnknownAgentAndCwdOutsideTheWorkspaceAreRefused(t *testing.T) {
	srv := newTestServer(t)
	p := connect(t, srv)
	_, err := p.conn.NewSession(t.Context(), &acp.NewSessionRequest{Meta: parleyMeta(parleyapi.RequestMeta{Agent: "nobody"})})
	if err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("unknown agent: %v", err)
	}
	_, err = p.conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: os.TempDir()})
	if err == nil {
		t.Errorf("a cwd outside the workspace was accepted")
	}
}

func TestPermissionGoesToThePageWithParleysAnswers(t *testing.T) {
	for _, tc := range []struct {
		pick acp.PermissionOptionID
		want string
	}{{"allow_once", "permission: allow_once"}, {"reject_once", "permission: reject_once"}} {
		t.Run(string(tc.pick), func(t *testing.T) {
			srv := newTestServer(t)
			p := connect(t, srv)
			p.answer = func(*acp.RequestPermissionRequest) acp.RequestPermissionOutcome { return acp.SelectedOutcome(tc.pick) }
			s := openTestSession(t, p, "")
			prompt(t, p, s.SessionID, "request permission rm -rf /")
			if !strings.Contains(p.text(), tc.want) {
				t.Errorf("reply %q, want %q", p.text(), tc.want)
			}
			req := p.asked[0]
			var kinds []string
			for _, o := range req.Options {
				kinds = append(kinds, string(o.Kind))
			}
			// rm -rf / is critical, and Eliza shows it only as a title: nothing about it
			// can be remembered, so no "always" answer is offered.
			if got := strings.Join(kinds, ","); got != "allow_once,reject_once" {
				t.Errorf("options %s", got)
			}
			if req.SessionID != s.SessionID || !strings.Contains(string(req.Meta["parley"]), `"tier":"critical"`) {
				t.Errorf("request %+v meta %s", req, req.Meta["parley"])
			}
		})
	}
}

func TestAQueuedPromptCanBeTakenBack(t *testing.T) {
	srv := newTestServer(t)
	p := connect(t, srv)
	s := openTestSession(t, p, "")
	first := make(chan *acp.PromptResponse, 1)
	go func() {
		resp, _ := p.conn.Prompt(context.Background(), &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("request permission ls")}})
		first <- resp
	}()
	p.waitFor(t, "the question", func() bool { p.mu.Lock(); defer p.mu.Unlock(); return len(p.asked) > 0 })
	second := make(chan *acp.PromptResponse, 1)
	go func() {
		resp, _ := p.conn.Prompt(context.Background(), &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("hello")}})
		second <- resp
	}()
	p.waitFor(t, "the queue", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, e := range p.ext {
			if strings.Contains(e, `"text":"hello"`) {
				return true
			}
		}
		return false
	})
	var res struct{ Unqueued bool }
	if err := p.conn.CallExtension(t.Context(), parleyapi.MethodUnqueue, parleyapi.UnqueueParams{SessionID: s.SessionID, PromptID: 2}, &res); err != nil || !res.Unqueued {
		t.Fatalf("unqueue: %v %v", res, err)
	}
	resp := <-second
	if resp.StopReason != acp.StopReasonCancelled || !strings.Contains(string(resp.Meta["parley"]), `"unqueued":true`) {
		t.Errorf("unqueued prompt answered %+v %s", resp, resp.Meta["parley"])
	}
	p.conn.Cancel(t.Context(), &acp.CancelNotification{SessionID: s.SessionID})
	// The question is withdrawn and the turn ends (Eliza may finish it as end_turn).
	if resp := <-first; resp == nil {
		t.Errorf("the cancelled turn was not answered")
	}
	// The question was answered for the page: cancelled, or refused (how depends on
	// whether the agent heard of the cancel first).
	p.waitFor(t, "the question answered", func() bool { return strings.Contains(p.text(), "permission: ") })
}

// A page that reloads loads its session again and is shown what it was shown before.
func TestLoadAfterReconnectReplaysTheConversation(t *testing.T) {
	srv := newTestServer(t)
	p := connect(t, srv)
	s := openTestSession(t, p, "")
	prompt(t, p, s.SessionID, "flood 300")
	prompt(t, p, s.SessionID, "tool call Build")
	before := p.text()
	p.conn.Close()

	q := connect(t, srv)
	if _, err := q.conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: srv.Workspace(), MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	if got := q.text(); got != before {
		t.Errorf("replayed %q, want %q", got, before)
	}
	var user, tool bool
	for _, u := range q.updates {
		if u.UserMessageChunk != nil {
			if text, _ := u.UserMessageChunk.Content.AsText(); text == "flood 300" {
				user = true
			}
		}
		if u.ToolCall != nil && u.ToolCall.Title == "Build" {
			tool = true
		}
	}
	if !user || !tool || len(q.updates) > 12 {
		t.Errorf("replay: the user's message %v, the tool call %v, %d updates (chunks joined?)", user, tool, len(q.updates))
	}
	prompt(t, q, s.SessionID, "I feel fine")
	if !strings.HasPrefix(q.text(), before) || len(q.text()) == len(before) {
		t.Errorf("the loaded session does not go on: %q", q.text())
	}
}

func TestFilesForMentions(t *testing.T) {
	srv := newTestServer(t)
	dir := srv.Workspace()
	for _, f := range []string{"src/main.go", "src/mainframe/readme.md", "node_modules/x/main.js", "docs/domain.txt"} {
		os.MkdirAll(dir+"/"+f[:strings.LastIndex(f, "/")], 0o755)
		os.WriteFile(dir+"/"+f, nil, 0o644)
	}
	p := connect(t, srv)
	s := openTestSession(t, p, "")
	var res parleyapi.FilesResult
	if err := p.conn.CallExtension(t.Context(), parleyapi.MethodFiles, parleyapi.FilesParams{SessionID: s.SessionID, Query: "main"}, &res); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		got = append(got, f.Path)
	}
	if len(got) != 3 || got[0] != "src/main.go" || strings.Contains(strings.Join(got, " "), "node_modules") {
		t.Errorf("files %v", got)
	}
}

// A page that goes away leaves its turn running: a question it was asked waits for the
// next page, and the turn goes on once that one answers.
func TestATurnOutlivesThePageThatSentIt(t *testing.T) {
	srv := newTestServer(t)
	p := connect(t, srv)
	s := openTestSession(t, p, "")
	go p.conn.Prompt(context.Background(), &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("request permission ls")}})
	p.waitFor(t, "the question", func() bool { p.mu.Lock(); defer p.mu.Unlock(); return len(p.asked) > 0 })
	p.conn.Close()

	q := connect(t, srv)
	q.answer = func(*acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		return acp.SelectedOutcome("allow_once")
	}
	if _, err := q.conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: srv.Workspace(), MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the turn's end", func() bool { return strings.Contains(q.text(), "permission: allow_once") })
}

// TestASessionNobodyWatchesIsClosedWhenIdle: with an idle timeout, the session of a page
// that went away is closed (its agent ends with it), and the session a page still shows
// is kept, however long it waits.
func TestASessionNobodyWatchesIsClosedWhenIdle(t *testing.T) {
	srv, err := New(Options{Launcher: testLauncher{t}, DefaultAgent: "eliza", Workspace: t.TempDir(), IdleTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	kept := connect(t, srv)
	keptID := openTestSession(t, kept, "").SessionID
	gone := connect(t, srv)
	goneID := openTestSession(t, gone, "").SessionID
	prompt(t, gone, goneID, "hello")
	srv.mu.Lock()
	goneSession, keptSession := srv.sessions[goneID], srv.sessions[keptID]
	srv.mu.Unlock()

	gone.conn.Close() // the page went away
	select {
	case <-goneSession.done:
	case <-time.After(30 * time.Second): // hang guard
		t.Fatal("the session nobody watches was not closed")
	}
	if _, err := srv.session(goneID); err == nil {
		t.Error("the closed session is still served")
	}
	// The kept session's page stayed: its session outlived the other's idle time.
	select {
	case <-keptSession.done:
		t.Fatal("the session a page shows was closed")
	default:
	}
	if resp := prompt(t, kept, keptID, "I am worried about my tests"); resp.StopReason != acp.StopReasonEndTurn {
		t.Errorf("the kept session answered %q", resp.StopReason)
	}
}
