package acpserver

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// One conversation, many views: what every attached view sees, who answers a question,
// what a view that goes away changes (nothing), and what the server's log says of it.

// logRecorder is a slog.Handler that keeps what the server logged, for a test to read.
type logRecorder struct {
	mu      sync.Mutex
	records []map[string]string // message under "msg", then each attribute
	changed chan struct{}
}

func newLogRecorder() *logRecorder { return &logRecorder{changed: make(chan struct{}, 1)} }

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecorder) WithGroup(string) slog.Handler            { return r }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	m := map[string]string{"msg": rec.Message}
	rec.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	r.mu.Lock()
	r.records = append(r.records, m)
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
	return nil
}

// find returns the records with message msg whose attributes include want.
func (r *logRecorder) find(msg string, want map[string]string) []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]string
	for _, m := range r.records {
		if m["msg"] != msg {
			continue
		}
		ok := true
		for k, v := range want {
			ok = ok && m[k] == v
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// waitFor waits for a record with message msg and the attributes want.
func (r *logRecorder) waitFor(t testing.TB, msg string, want map[string]string) map[string]string {
	t.Helper()
	p := &page{changed: r.changed}
	var got []map[string]string
	p.waitFor(t, "the log's "+msg, func() bool { got = r.find(msg, want); return len(got) > 0 })
	return got[0]
}

func newLoggedServer(t testing.TB) (*Server, *logRecorder) {
	t.Helper()
	rec := newLogRecorder()
	srv, err := New(Options{Launcher: testLauncher{t}, DefaultAgent: "eliza", Workspace: t.TempDir(), Logger: slog.New(rec)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, rec
}

// elicitingPage is a page that answers elicitations with elicit; when that returns nil,
// it waits until the question is withdrawn.
type elicitingPage struct {
	*page
	elicit func(*acp.CreateElicitationRequest) *acp.CreateElicitationResponse
}

func (p elicitingPage) CreateElicitation(ctx context.Context, req *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
	p.mu.Lock()
	p.ext = append(p.ext, "elicitation/create "+req.Message)
	p.mu.Unlock()
	p.signal()
	if resp := p.elicit(req); resp != nil {
		return resp, nil
	}
	<-ctx.Done()
	p.noteWithdrawn()
	return nil, ctx.Err()
}

func (p elicitingPage) CompleteElicitation(context.Context, *acp.CompleteElicitationNotification) error {
	return nil
}

// view is one client connection of a test: a page served as peer.
type testView struct {
	*page
	close func() // ends the connection and waits until the server has let go of it
}

// attachView connects a page as peer (a remote client when peer.Remote); elicit, if set,
// makes it answer elicitations.
func attachView(t testing.TB, srv *Server, peer Peer, elicit func(*acp.CreateElicitationRequest) *acp.CreateElicitationResponse) *testView {
	t.Helper()
	a, b := net.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(WithPeer(context.Background(), peer), a)
	}()
	p := &page{changed: make(chan struct{}, 1)}
	var client acp.Client = p
	if elicit != nil {
		client = elicitingPage{p, elicit}
	}
	p.conn = acp.NewClientConn(b, func(*acp.ClientConn) acp.Client { return client }, nil)
	v := &testView{page: p, close: sync.OnceFunc(func() { p.conn.Close(); <-served })}
	t.Cleanup(v.close)
	if _, err := p.conn.Initialize(t.Context(), &acp.InitializeRequest{ClientCapabilities: pageCapabilities}); err != nil {
		t.Fatal(err)
	}
	return v
}

func (v *testView) load(t testing.TB, id acp.SessionID) *acp.LoadSessionResponse {
	t.Helper()
	resp, err := v.conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: id, Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (v *testView) askedCount() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.asked)
}

func (v *testView) withdrawnCount() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.withdrawn
}

func (v *testView) elicitations() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, e := range v.ext {
		if strings.HasPrefix(e, "elicitation/create ") {
			n++
		}
	}
	return n
}

// userMessages counts the user's messages the view was shown with this text.
func (v *testView) userMessages(text string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, u := range v.updates {
		if u.UserMessageChunk != nil {
			if s, _ := u.UserMessageChunk.Content.AsText(); s == text {
				n++
			}
		}
	}
	return n
}

// sendPrompt sends a prompt on its own goroutine; its answer comes on the channel.
func sendPrompt(t testing.TB, v *testView, id acp.SessionID, text string) <-chan *acp.PromptResponse {
	done := make(chan *acp.PromptResponse, 1)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	wg.Go(func() {
		resp, err := v.conn.Prompt(context.Background(), &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		if err != nil {
			resp = nil
		}
		done <- resp
	})
	return done
}

// gate is a channel closed by free (or at the test's end, to let go of what waits on it).
func gate(t testing.TB) (<-chan struct{}, func()) {
	c := make(chan struct{})
	free := sync.OnceFunc(func() { close(c) })
	t.Cleanup(free)
	return c, free
}

func answerWith(id acp.PermissionOptionID, release <-chan struct{}) func(*acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
	return func(*acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		<-release
		return acp.SelectedOutcome(id)
	}
}

// TestAPermissionQuestionIsAskedInEveryViewAndTheFirstAnswerWins: two views of one
// conversation are asked; one answers; the other's request is withdrawn
// ($/cancel_request), the turn goes on in both, and a view that attaches afterwards is
// not asked (the question is closed). The log names who answered, with what.
func TestAPermissionQuestionIsAskedInEveryViewAndTheFirstAnswerWins(t *testing.T) {
	srv, log := newLoggedServer(t)
	release, free := gate(t)
	first := attachView(t, srv, Peer{Name: "laptop", Remote: true}, nil)
	s := openTestSession(t, first.page, "")
	second := attachView(t, srv, Peer{Name: "phone", Remote: true}, nil)
	second.answer = answerWith("allow_once", release)
	second.load(t, s.SessionID)

	ended := sendPrompt(t, first, s.SessionID, "request permission ls")
	first.waitFor(t, "the question in the first view", func() bool { return first.askedCount() == 1 })
	second.waitFor(t, "the question in the second view", func() bool { return second.askedCount() == 1 })
	free()
	if resp := <-ended; resp == nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the turn ended %+v", resp)
	}
	first.waitFor(t, "the first view's request withdrawn", func() bool { return first.withdrawnCount() == 1 })
	for _, v := range []*testView{first, second} {
		v.waitFor(t, "the turn's end", func() bool { return strings.Contains(v.text(), "permission: allow_once") })
	}
	if n := second.withdrawnCount(); n != 0 {
		t.Errorf("the view that answered was withdrawn %d times", n)
	}
	answered := log.waitFor(t, "a question answered", map[string]string{"session": string(s.SessionID)})
	if answered["token"] != "phone" || answered["answer"] != "Allow once" {
		t.Errorf("the log says %v, want phone's Allow once", answered)
	}
	if n := len(log.find("a question answered", nil)); n != 1 {
		t.Errorf("%d answers logged, want 1", n)
	}

	late := attachView(t, srv, Peer{Name: "tablet", Remote: true}, nil)
	late.load(t, s.SessionID)
	if !strings.Contains(late.text(), "permission: allow_once") || late.askedCount() != 0 {
		t.Errorf("a view attached after the answer: text %q, asked %d times", late.text(), late.askedCount())
	}
}

// TestAQuestionWaitsForTheViewsThatStay: a view that goes away while a question is
// open neither answers nor withdraws it; the view that stays still has it, a view that
// attaches meanwhile is asked it, and the one that answers first decides it.
func TestAQuestionWaitsForTheViewsThatStay(t *testing.T) {
	srv, log := newLoggedServer(t)
	gone := attachView(t, srv, Peer{Name: "laptop", Remote: true}, nil)
	s := openTestSession(t, gone.page, "")
	stays := attachView(t, srv, Peer{Name: "desktop"}, nil)
	stays.load(t, s.SessionID)
	ended := sendPrompt(t, gone, s.SessionID, "request permission ls")
	gone.waitFor(t, "the question", func() bool { return gone.askedCount() == 1 })
	stays.waitFor(t, "the question", func() bool { return stays.askedCount() == 1 })
	gone.close()
	log.waitFor(t, "a view detached", map[string]string{"token": "laptop", "session": string(s.SessionID)})
	if resp := <-ended; resp != nil {
		t.Errorf("the prompt of a connection that ended was answered %+v", resp)
	}

	late := attachView(t, srv, Peer{Name: "tablet", Remote: true}, nil)
	late.answer = func(*acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		return acp.SelectedOutcome("reject_once")
	}
	late.load(t, s.SessionID)
	late.waitFor(t, "the turn's end", func() bool { return strings.Contains(late.text(), "permission: reject_once") })
	stays.waitFor(t, "the question withdrawn", func() bool { return stays.withdrawnCount() == 1 })
	stays.waitFor(t, "the turn's end", func() bool { return strings.Contains(stays.text(), "permission: reject_once") })
	if answered := log.waitFor(t, "a question answered", nil); answered["token"] != "tablet" {
		t.Errorf("answered by %v, want tablet", answered)
	}
	if late.askedCount() != 1 {
		t.Errorf("the late view was asked %d times", late.askedCount())
	}
}

// TestAFormIsAskedInEveryViewAndTheFirstAnswerWins: an elicitation goes to every view
// that takes forms, a view that attaches while it is open is asked it too, the first
// answer reaches the agent and the other views' requests are withdrawn.
func TestAFormIsAskedInEveryViewAndTheFirstAnswerWins(t *testing.T) {
	srv, log := newLoggedServer(t)
	waits := attachView(t, srv, Peer{Name: "laptop", Remote: true}, func(*acp.CreateElicitationRequest) *acp.CreateElicitationResponse { return nil })
	s := openTestSession(t, waits.page, "")
	ended := sendPrompt(t, waits, s.SessionID, "ask me about tests")
	waits.waitFor(t, "the form", func() bool { return waits.elicitations() == 1 })

	release, free := gate(t)
	answers := attachView(t, srv, Peer{Name: "phone", Remote: true}, func(req *acp.CreateElicitationRequest) *acp.CreateElicitationResponse {
		<-release
		return &acp.CreateElicitationResponse{Action: acp.ElicitationActionAccept, ElicitationAcceptAction: acp.ElicitationAcceptAction{Content: map[string]acp.ElicitationContentValue{
			"name": json.RawMessage(`"Ada"`), "color": json.RawMessage(`"green"`),
		}}}
	})
	answers.load(t, s.SessionID) // attached while the form is open: asked from the Snapshot
	answers.waitFor(t, "the form in the late view", func() bool { return answers.elicitations() == 1 })
	free()
	if resp := <-ended; resp == nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the turn ended %+v", resp)
	}
	const want = `you answered: color="green", name="Ada"`
	for _, v := range []*testView{waits, answers} {
		v.waitFor(t, "the answer", func() bool { return strings.Contains(v.text(), want) })
	}
	waits.waitFor(t, "the form withdrawn", func() bool { return waits.withdrawnCount() == 1 })
	if answered := log.waitFor(t, "a question answered", nil); answered["token"] != "phone" || answered["action"] != "accept" {
		t.Errorf("the log says %v", answered)
	}
}

// TestAViewThatDropsMidTurnGetsTheWholeTurnBack: a view whose connection is killed while
// Eliza floods changes nothing for the turn; attached again, it has what a view that
// stayed has: the whole turn, once.
func TestAViewThatDropsMidTurnGetsTheWholeTurnBack(t *testing.T) {
	srv, _ := newLoggedServer(t)
	release, free := gate(t)
	stays := attachView(t, srv, Peer{Name: "desktop"}, nil)
	stays.answer = answerWith("allow_once", release)
	s := openTestSession(t, stays.page, "")
	drops := attachView(t, srv, Peer{Name: "laptop", Remote: true}, nil)
	drops.load(t, s.SessionID)

	// A slow stream of 80 words (20 ms apart), then a question that holds the turn open,
	// then a flood: the connection is killed some words into the slow stream, and the
	// view comes back while it still streams, most likely (wherever it comes back, the
	// turn is still running).
	words := make([]string, 80)
	for i := range words {
		words[i] = "w" + strconv.Itoa(i)
	}
	turn := "slowly " + strings.Join(words, " ") + "\nrequest permission ls\nflood 4000"
	ended := sendPrompt(t, stays, s.SessionID, turn)
	drops.waitFor(t, "the slow stream", func() bool { return strings.Contains(drops.text(), " w9") })
	drops.close()

	back := attachView(t, srv, Peer{Name: "laptop", Remote: true}, nil)
	back.load(t, s.SessionID)
	if testing.Verbose() {
		t.Logf("attached again with %d bytes of the reply replayed", len(back.text()))
	}
	back.waitFor(t, "the question", func() bool { return back.askedCount() == 1 })
	free()
	if resp := <-ended; resp == nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the turn ended %+v", resp)
	}
	want := stays.text()
	if !strings.HasSuffix(want, "3999 ") || !strings.Contains(want, "permission: allow_once") {
		t.Fatalf("the view that stayed has %d bytes ending %q", len(want), want[max(0, len(want)-40):])
	}
	back.waitFor(t, "the whole turn", func() bool { return len(back.text()) >= len(want) })
	if got := back.text(); got != want {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the view attached again has %d bytes, the one that stayed %d; they part at %d: %q vs %q",
			len(got), len(want), i, got[i:min(len(got), i+40)], want[i:min(len(want), i+40)])
	}
	if n := back.userMessages(turn); n != 1 {
		t.Errorf("the prompt was shown %d times to the view attached again", n)
	}
}

// TestPromptsFromTwoViewsQueueInOneConversation: a prompt from a second view while the
// first's turn runs waits behind it, and both views see both turns, in order.
func TestPromptsFromTwoViewsQueueInOneConversation(t *testing.T) {
	srv, _ := newLoggedServer(t)
	release, free := gate(t)
	one := attachView(t, srv, Peer{Name: "laptop", Remote: true}, nil)
	one.answer = answerWith("allow_once", release)
	s := openTestSession(t, one.page, "")
	two := attachView(t, srv, Peer{Name: "phone", Remote: true}, nil)
	two.load(t, s.SessionID)

	first := sendPrompt(t, one, s.SessionID, "request permission ls")
	one.waitFor(t, "the question", func() bool { return one.askedCount() == 1 })
	second := sendPrompt(t, two, s.SessionID, "I am worried about my tests")
	one.waitFor(t, "the second prompt queued", func() bool {
		one.mu.Lock()
		defer one.mu.Unlock()
		return slices.ContainsFunc(one.ext, func(e string) bool {
			return strings.HasPrefix(e, parleyapi.MethodQueue+" ") && strings.Contains(e, "worried about my tests")
		})
	})
	free()
	r1, r2 := <-first, <-second
	if r1 == nil || r2 == nil || r1.StopReason != acp.StopReasonEndTurn || r2.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the turns ended %+v and %+v", r1, r2)
	}
	var m1, m2 parleyapi.PromptMeta
	json.Unmarshal(r1.Meta["parley"], &m1)
	json.Unmarshal(r2.Meta["parley"], &m2)
	if m1.PromptID != 1 || m2.PromptID != 2 {
		t.Errorf("prompt ids %d and %d, want 1 and 2: one conversation", m1.PromptID, m2.PromptID)
	}
	for _, v := range []*testView{one, two} {
		v.waitFor(t, "both turns", func() bool { return strings.Contains(v.text(), "worried about your tests") })
		text := v.text()
		if i, j := strings.Index(text, "permission: allow_once"), strings.Index(text, "worried about your tests"); i < 0 || j < i {
			t.Errorf("the turns out of order: %q", text)
		}
	}
	// Each view sees the other's prompt as the user's message (a plain ACP client shows its own).
	if one.userMessages("I am worried about my tests") != 1 {
		t.Error("the first view was not shown the second's prompt")
	}
}

// TestARemoteClientsCwdOpensInTheWorkspace: the cwd a remote client sends names a
// directory on its machine: its session opens in the server's workspace and it is told
// so, its additional directories dropped, said too; a local client's is refused as
// before. The log names who attached, how, and who left.
func TestARemoteClientsCwdOpensInTheWorkspace(t *testing.T) {
	srv, log := newLoggedServer(t)
	elsewhere := t.TempDir() // not inside the workspace
	remote := attachView(t, srv, Peer{Name: "laptop", Remote: true}, nil)
	resp, err := remote.conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: elsewhere, AdditionalDirectories: []string{elsewhere + "/lib"}, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatalf("a remote client's session/new: %v", err)
	}
	var meta parleyapi.SessionMeta
	if err := json.Unmarshal(resp.Meta["parley"], &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Cwd != srv.Workspace() || meta.RequestedCwd != elsewhere || !slices.Equal(meta.DroppedDirectories, []string{elsewhere + "/lib"}) {
		t.Errorf("_meta.parley %+v: want cwd %s, requestedCwd %s and the dropped directory", meta, srv.Workspace(), elsewhere)
	}
	at := log.waitFor(t, "a view attached", map[string]string{"session": string(resp.SessionID)})
	if at["token"] != "laptop" || at["by"] != "session/new" || at["remote"] != "true" {
		t.Errorf("the log says %v", at)
	}

	local := attachView(t, srv, Peer{}, nil)
	if _, err := local.conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: elsewhere, MCPServers: []acp.MCPServer{}}); err == nil {
		t.Error("a local client's cwd outside the workspace was accepted")
	}
	local.load(t, resp.SessionID)
	log.waitFor(t, "a view attached", map[string]string{"session": string(resp.SessionID), "by": "session/load", "token": ""})
	remote.close()
	log.waitFor(t, "a view detached", map[string]string{"session": string(resp.SessionID), "token": "laptop", "views": "1"})
}

// TestSessionListNamesEachLiveConversation: session/list lists the live conversations
// with their agent, a title (the first prompt's first line, as Eliza gives none) and
// the time; a remote client's cwd from elsewhere is taken as the workspace, a local
// client's lists nothing there.
func TestSessionListNamesEachLiveConversation(t *testing.T) {
	srv, _ := newLoggedServer(t)
	v := attachView(t, srv, Peer{Name: "laptop", Remote: true}, nil)
	short := openTestSession(t, v.page, "").SessionID
	prompt(t, v.page, short, "I am worried about my tests\nand my build")
	long := openTestSession(t, v.page, "").SessionID
	prompt(t, v.page, long, strings.Repeat("tell me more about everything ", 5))
	silent := openTestSession(t, v.page, "").SessionID

	list := func(v *testView, cwd string) map[acp.SessionID]acp.SessionInfo {
		t.Helper()
		resp, err := v.conn.ListSessions(t.Context(), &acp.ListSessionsRequest{Cwd: cwd})
		if err != nil {
			t.Fatal(err)
		}
		out := map[acp.SessionID]acp.SessionInfo{}
		for _, si := range resp.Sessions {
			out[si.SessionID] = si
		}
		return out
	}
	resp, err := v.conn.ListSessions(t.Context(), &acp.ListSessionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(resp.Sessions, func(a, b acp.SessionInfo) int { return strings.Compare(b.UpdatedAt, a.UpdatedAt) }) {
		t.Errorf("the list is not the latest first: %+v", resp.Sessions)
	}
	got := list(v, t.TempDir())
	if len(got) != 3 {
		t.Fatalf("a remote client from elsewhere lists %d sessions, want 3", len(got))
	}
	if title := got[short].Title; title != "I am worried about my tests" {
		t.Errorf("title %q", title)
	}
	if title := got[long].Title; utf8.RuneCountInString(title) > titleMax+1 || !strings.HasPrefix(title, "tell me more about") || !strings.HasSuffix(title, "…") {
		t.Errorf("a long prompt's title %q", title)
	}
	for id, si := range got {
		var meta parleyapi.SessionListMeta
		json.Unmarshal(si.Meta["parley"], &meta)
		if meta.Agent != "eliza" || !meta.Live || si.UpdatedAt == "" || si.Cwd != srv.Workspace() {
			t.Errorf("session %s listed %+v %+v", id, si, meta)
		}
	}
	if got[silent].Title != "" {
		t.Errorf("a session without a prompt is titled %q", got[silent].Title)
	}
	if n := len(list(v, srv.Workspace())); n != 3 {
		t.Errorf("the workspace lists %d sessions", n)
	}
	local := attachView(t, srv, Peer{}, nil)
	if n := len(list(local, t.TempDir())); n != 0 {
		t.Errorf("a local client lists %d sessions in a directory outside the workspace", n)
	}
}

// TestAFormGoesToTheViewThatTakesIt: in a conversation a plain ACP client opened (it
// answers no elicitations), a form is asked in an attached page that takes forms rather
// than declined; the plain client is not asked.
func TestAFormGoesToTheViewThatTakesIt(t *testing.T) {
	srv, _ := newLoggedServer(t)
	plain, _ := connectAs(t, srv, acp.ClientCapabilities{})
	s := openTestSession(t, plain, "")
	pg := attachView(t, srv, Peer{Name: "phone", Remote: true}, func(*acp.CreateElicitationRequest) *acp.CreateElicitationResponse {
		return &acp.CreateElicitationResponse{Action: acp.ElicitationActionDecline}
	})
	pg.load(t, s.SessionID)
	resp := prompt(t, plain, s.SessionID, "ask me about tests")
	if resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	if pg.elicitations() != 1 || !strings.Contains(plain.text(), "you chose to decline") {
		t.Errorf("the page was asked %d times; the reply %q", pg.elicitations(), plain.text())
	}
	// With the page gone only the plain client is attached: parley declines at once
	// (the turn goes on) rather than wait for a view that may never come.
	pg.close()
	resp = prompt(t, plain, s.SessionID, "ask me about tests")
	if resp.StopReason != acp.StopReasonEndTurn || strings.Count(plain.text(), "you chose to decline") != 2 {
		t.Errorf("with the page gone: %q, reply %q", resp.StopReason, plain.text())
	}
}
