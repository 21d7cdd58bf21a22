package conversation

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/eliza"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/workspace"
	"go.uber.org/goleak"
)

// The test binary is its own agent: run with PARLEY_TEST_AGENT=eliza it serves the
// built-in agent on stdin and stdout (and exits at once, status 3, when a prompt says
// "die now"), so the conversation drives a real process without building parley.
func TestMain(m *testing.M) {
	if os.Getenv("PARLEY_TEST_AGENT") == "stubborn" {
		os.Exit(runStubbornAgent())
	}
	if os.Getenv("PARLEY_TEST_AGENT") == "eliza" {
		err := eliza.Serve(context.Background(), stdio{dieOn("die now", os.Stdin), os.Stdout}, eliza.Options{Deterministic: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return os.Stdin.Close() }

// dieOn passes r's lines through, and exits the process on a line holding word.
func dieOn(word string, r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if bytes.Contains(sc.Bytes(), []byte(word)) {
				os.Exit(3)
			}
			pw.Write(append(sc.Bytes(), '\n'))
		}
		pw.Close()
	}()
	return pr
}

func testAgent(t *testing.T) *Agent {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := NewAgent(AgentOptions{
		Name:    "eliza",
		Spec:    agentproc.Spec{Command: exe, Env: []string{"PARLEY_TEST_AGENT=eliza"}},
		Timeout: 30 * time.Second,
	})
	t.Cleanup(a.Close)
	return a
}

func testConversation(t *testing.T, a *Agent, interactive bool) *Conversation {
	t.Helper()
	roots, err := workspace.NewRoots(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Agent: a, Roots: roots, Policy: &permission.Policy{}, Interactive: interactive})
	t.Cleanup(c.Close)
	return c
}

// view takes a subscription's events until one satisfies stop, failing the test after a
// generous deadline (a hang, not a slow machine).
type view struct {
	t   *testing.T
	sub *Subscription
	all []Event
}

func watch(t *testing.T, c *Conversation) *view {
	return &view{t: t, sub: c.Subscribe()}
}

func (v *view) until(stop func(Event) bool) []Event {
	v.t.Helper()
	var got []Event
	deadline := time.After(60 * time.Second)
	for {
		for _, ev := range v.sub.Take() {
			got = append(got, ev)
			v.all = append(v.all, ev)
			if stop(ev) {
				return got
			}
		}
		select {
		case <-v.sub.Ready():
		case <-deadline:
			v.t.Fatalf("timed out; events so far:\n%s", describe(got))
		}
	}
}

func isA[T Event](ev Event) bool { _, ok := ev.(T); return ok }

func turnEnded(ev Event) bool {
	e, ok := ev.(TurnEnded)
	return ok && !e.Replay
}

func describe(evs []Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "  %T %+v\n", ev, ev)
	}
	return b.String()
}

func replyText(evs []Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if u, ok := ev.(TurnUpdate); ok && u.Update.Kind == toolstate.TextDelta {
			b.WriteString(u.Update.Text)
		}
	}
	return b.String()
}

func last(evs []Event) Event { return evs[len(evs)-1] }

func text(s string) []acp.ContentBlock { return []acp.ContentBlock{acp.TextBlock(s)} }

func TestPromptAndReply(t *testing.T) {
	c := testConversation(t, testAgent(t), false)
	v := watch(t, c)
	evs := v.until(isA[Ready])
	if _, ok := evs[0].(Snapshot); !ok {
		t.Fatalf("the first event is %T, want Snapshot", evs[0])
	}
	ready := evs[len(evs)-1].(Ready)
	if ready.Session.ID == "" || ready.Session.Agent.Name != "eliza" {
		t.Fatalf("Ready = %+v", ready)
	}
	p := c.Send(text("I am worried about my tests"))
	evs = v.until(turnEnded)
	end := evs[len(evs)-1].(TurnEnded)
	if end.Turn != p.ID || end.StopReason != acp.StopReasonEndTurn || end.Err != nil {
		t.Fatalf("TurnEnded = %+v", end)
	}
	if got := replyText(evs); !strings.Contains(strings.ToLower(got), "tests") && got == "" {
		t.Fatalf("no reply text in:\n%s", describe(evs))
	}
	started := false
	for _, ev := range evs {
		if s, ok := ev.(TurnStarted); ok && s.Prompt.ID == p.ID {
			started = true
		}
	}
	if !started {
		t.Fatalf("no TurnStarted for the prompt:\n%s", describe(evs))
	}
}

func TestQueuedPromptsRunInOrder(t *testing.T) {
	c := testConversation(t, testAgent(t), false)
	v := watch(t, c)
	v.until(isA[Ready])
	first := c.Send(text("slowly one two three four"))
	second := c.Send(text("think next"))
	var order []int
	queued := false
	v.until(func(ev Event) bool {
		switch e := ev.(type) {
		case Queued:
			queued = queued || e.Prompt.ID == second.ID
		case TurnEnded:
			order = append(order, e.Turn)
		}
		return len(order) == 2
	})
	if !queued || order[0] != first.ID || order[1] != second.ID {
		t.Fatalf("queued=%v order=%v; want the second queued and the turns in order %d, %d", queued, order, first.ID, second.ID)
	}
}

func TestCancelGivesBackTheQueue(t *testing.T) {
	c := testConversation(t, testAgent(t), false)
	v := watch(t, c)
	v.until(isA[Ready])
	first := c.Send(text("slowly " + strings.Repeat("word ", 200)))
	second := c.Send(text("hello"))
	v.until(func(ev Event) bool { u, ok := ev.(TurnUpdate); return ok && u.Update.Kind == toolstate.TextDelta })
	c.Cancel()
	var unqueued []int
	evs := v.until(func(ev Event) bool {
		if u, ok := ev.(Unqueued); ok {
			unqueued = append(unqueued, u.Prompt.ID)
		}
		return turnEnded(ev)
	})
	end := evs[len(evs)-1].(TurnEnded)
	if end.Turn != first.ID || !end.Cancelled || end.StopReason != acp.StopReasonCancelled {
		t.Fatalf("TurnEnded = %+v, want the first turn cancelled", end)
	}
	if len(unqueued) != 1 || unqueued[0] != second.ID {
		t.Fatalf("unqueued %v, want [%d]", unqueued, second.ID)
	}
	// The conversation goes on.
	c.Send(text("hello again"))
	if end := v.until(turnEnded); end[len(end)-1].(TurnEnded).StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the next turn: %s", describe(end))
	}
}

func TestQuestionsAreAnsweredByAnyView(t *testing.T) {
	c := testConversation(t, testAgent(t), true)
	v1, v2 := watch(t, c), watch(t, c)
	v1.until(isA[Ready])
	c.Send(text("request permission Delete everything"))
	asked := v2.until(isA[QuestionAsked])
	q := asked[len(asked)-1].(QuestionAsked)
	if q.Question.Request.ToolCall.Title != "Delete everything" {
		t.Fatalf("question = %+v", q.Question.Request.ToolCall)
	}
	// A view that subscribes now sees the question in its snapshot.
	late := watch(t, c)
	snap := late.until(isA[Snapshot])[0].(Snapshot)
	if snap.Question == nil || snap.Question.ID != q.ID {
		t.Fatalf("snapshot question = %+v, want %d", snap.Question, q.ID)
	}
	if !c.AnswerFirst(q.ID, permission.RejectOnce) {
		t.Fatal("the first answer did not close the question")
	}
	evs := v1.until(turnEnded)
	closed := false
	for _, ev := range evs {
		if qc, ok := ev.(QuestionClosed); ok && qc.ID == q.ID && qc.Answer == permission.RejectOnce {
			closed = true
		}
	}
	if !closed || !strings.Contains(replyText(evs), "permission: reject_once") {
		t.Fatalf("the rejection did not reach the agent:\n%s", describe(evs))
	}
	// A second answer to the closed question changes nothing, and says so.
	if c.AnswerFirst(q.ID, permission.AllowOnce) {
		t.Error("a second answer closed the question again")
	}
	late.sub.Close()
}

// TestElicitForDecidesAtEachElicitation: with ElicitFor, an elicitation is declined at
// once while nobody can answer its mode, and asked once someone can; the first answer
// closes it, a second is ignored and says so.
func TestElicitForDecidesAtEachElicitation(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := NewAgent(AgentOptions{Name: "eliza", Spec: agentproc.Spec{Command: exe, Env: []string{"PARLEY_TEST_AGENT=eliza"}}, Timeout: 30 * time.Second, ElicitForms: true})
	t.Cleanup(a.Close)
	roots, err := workspace.NewRoots(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var someone atomic.Bool
	c := New(Options{Agent: a, Roots: roots, Policy: &permission.Policy{}, Interactive: true,
		ElicitFor: func(m acp.ElicitationMode) bool { return m == acp.ElicitationModeForm && someone.Load() }})
	t.Cleanup(c.Close)
	v := watch(t, c)
	v.until(isA[Ready])
	c.Send(text("ask me about tests"))
	evs := v.until(turnEnded)
	declined := false
	for _, ev := range evs {
		_, ok := ev.(ElicitationDeclined)
		declined = declined || ok
	}
	if !declined || !strings.Contains(replyText(evs), "you chose to decline") {
		t.Fatalf("with nobody to answer, want a decline at once:\n%s", describe(evs))
	}
	someone.Store(true)
	c.Send(text("ask me about tests"))
	q := last(v.until(isA[ElicitationAsked])).(ElicitationAsked)
	if taken, err := c.AnswerElicitationFirst(q.ID, ElicitationAnswer{Action: acp.ElicitationActionCancel}); !taken || err != nil {
		t.Fatalf("the first answer: taken %v, %v", taken, err)
	}
	if taken, err := c.AnswerElicitationFirst(q.ID, ElicitationAnswer{Action: acp.ElicitationActionDecline}); taken || err != nil {
		t.Errorf("a second answer: taken %v, %v", taken, err)
	}
	if evs := v.until(turnEnded); !strings.Contains(replyText(evs), "you chose to cancel") {
		t.Errorf("the first answer did not reach the agent:\n%s", describe(evs))
	}
}

func TestNobodyToAskRefuses(t *testing.T) {
	c := testConversation(t, testAgent(t), false)
	v := watch(t, c)
	v.until(isA[Ready])
	c.Send(text("request permission Format the disk"))
	evs := v.until(turnEnded)
	refused := false
	for _, ev := range evs {
		if r, ok := ev.(Refused); ok && r.Title == "Format the disk" {
			refused = true
		}
	}
	end := evs[len(evs)-1].(TurnEnded)
	if !refused || end.Refused != "Format the disk" || !strings.Contains(replyText(evs), "reject_once") {
		t.Fatalf("want a refusal:\n%s", describe(evs))
	}
}

func TestADeadAgentIsRestartedForTheNextPrompt(t *testing.T) {
	c := testConversation(t, testAgent(t), false)
	v := watch(t, c)
	first := last(v.until(isA[Ready])).(Ready)
	c.Send(text("die now"))
	if end := v.until(turnEnded); end[len(end)-1].(TurnEnded).Err == nil {
		t.Fatalf("a turn whose agent died ended without an error:\n%s", describe(end))
	}
	c.Send(text("hello"))
	evs := v.until(turnEnded)
	var restarted, ready bool
	for _, ev := range evs {
		switch e := ev.(type) {
		case Starting:
			restarted = e.Restart
		case Ready:
			ready = e.Session.ID != "" && first.Session.ID != ""
		}
	}
	end := evs[len(evs)-1].(TurnEnded)
	if !restarted || !ready || end.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("want a restart, a new session and the turn:\n%s", describe(evs))
	}
}

func TestCloseEndsATurnAndItsQuestion(t *testing.T) {
	c := testConversation(t, testAgent(t), true)
	v := watch(t, c)
	v.until(isA[Ready])
	c.Send(text("request permission Wait forever"))
	v.until(isA[QuestionAsked])
	c.Close()
	evs := v.until(isA[Closed])
	var ended bool
	for _, ev := range evs {
		if e, ok := ev.(TurnEnded); ok {
			ended = e.Cancelled
		}
	}
	if !ended {
		t.Fatalf("the turn did not end cancelled:\n%s", describe(evs))
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Close returned before the conversation ended")
	}
}

func TestSessionsNewAndLoad(t *testing.T) {
	c := testConversation(t, testAgent(t), false)
	v := watch(t, c)
	first := last(v.until(isA[Ready])).(Ready).Session
	ctx := t.Context()
	c.Send(text("hello there"))
	v.until(turnEnded)
	s, err := c.NewSession(ctx)
	if err != nil || s.ID == first.ID || s.ID == "" {
		t.Fatalf("NewSession = %+v, %v", s.ID, err)
	}
	s, err = c.LoadSession(ctx, first.ID)
	if err != nil || s.ID != first.ID {
		t.Fatalf("LoadSession = %+v, %v", s.ID, err)
	}
	evs := v.until(func(ev Event) bool { e, ok := ev.(TurnEnded); return ok && e.Replay })
	replayedUser := false
	for _, ev := range evs {
		if u, ok := ev.(TurnUpdate); ok && u.Update.Update.UserMessageChunk != nil {
			replayedUser = true
		}
	}
	if !replayedUser {
		t.Fatalf("the load replayed no user message:\n%s", describe(evs))
	}
}

func TestALateViewLearnsTheStartFailed(t *testing.T) {
	a := NewAgent(AgentOptions{Name: "missing", Spec: agentproc.Spec{Command: "no-such-agent-binary"}, Timeout: 30 * time.Second})
	t.Cleanup(a.Close)
	c := testConversation(t, a, false)
	first := watch(t, c)
	first.until(func(ev Event) bool {
		snap, ok := ev.(Snapshot)
		return isA[StartFailed](ev) || ok && snap.Failed != nil && !snap.Starting
	})
	// A view that comes after the start failed must not wait for a Ready that never comes.
	snap := watch(t, c).until(isA[Snapshot])[0].(Snapshot)
	if snap.Ready || snap.Starting || snap.Failed == nil {
		t.Fatalf("snapshot = %+v, want the failure", snap)
	}
}

// A view that keeps the conversation itself gives a session that has not been sent a
// prompt yet another content (the earlier turns): the first prompt of the conversation's
// session gets it, the next one does not, and the first prompt of the new session the
// agent's restart opens gets it again.
func TestFirstInSessionGoesToNewSessionsOnly(t *testing.T) {
	c := testConversation(t, testAgent(t), false)
	v := watch(t, c)
	v.until(isA[Ready])
	send := func(normal, first string) (string, bool) {
		t.Helper()
		p := c.SendWith(text(normal), SendOptions{FirstInSession: text(first)})
		evs := v.until(turnEnded)
		sentFirst := false
		for _, ev := range evs {
			if s, ok := ev.(TurnStarted); ok && s.Prompt.ID == p.ID {
				sentFirst = s.Prompt.First
			}
		}
		return replyText(evs), sentFirst
	}
	if got, first := send("slowly normal one", "slowly first one"); !strings.Contains(got, "first one") || !first {
		t.Fatalf("the session's first prompt: reply %q (First %v), want the first-in-session content", got, first)
	}
	if got, first := send("slowly normal two", "slowly first two"); !strings.Contains(got, "normal two") || first {
		t.Fatalf("the second prompt: reply %q (First %v), want the normal content", got, first)
	}
	c.Send(text("die now"))
	v.until(turnEnded)
	if got, first := send("slowly normal three", "slowly first three"); !strings.Contains(got, "first three") || !first {
		t.Fatalf("the first prompt after a restart: reply %q (First %v), want the first-in-session content", got, first)
	}
}

// Predecide sees each permission request, with what the agent reported of its tool call,
// before the policy: what it allows or refuses is never asked; what it leaves undecided
// is.
func TestPredecideComesBeforeThePolicy(t *testing.T) {
	roots, err := workspace.NewRoots(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan *toolstate.ToolCall, 3)
	c := New(Options{
		Agent: testAgent(t), Roots: roots, Policy: &permission.Policy{}, Interactive: true,
		Predecide: func(ctx context.Context, req *acp.RequestPermissionRequest, tc *toolstate.ToolCall) Predecision {
			seen <- tc
			switch req.ToolCall.Title {
			case "allowed":
				return AllowWithoutAsking
			case "refused":
				return RefuseWithoutAsking
			}
			return Undecided
		},
	})
	t.Cleanup(c.Close)
	v := watch(t, c)
	v.until(isA[Ready])
	for title, want := range map[string]string{"allowed": "permission: allow_once", "refused": "permission: reject_once"} {
		c.Send(text("request permission " + title))
		evs := v.until(turnEnded)
		for _, ev := range evs {
			if _, ok := ev.(QuestionAsked); ok {
				t.Errorf("%s: a question was asked:\n%s", title, describe(evs))
			}
		}
		if !strings.Contains(replyText(evs), want) {
			t.Errorf("%s: reply %q, want %q", title, replyText(evs), want)
		}
		if tc := <-seen; tc == nil || tc.Title != title || tc.RawKind != acp.ToolKindExecute {
			t.Errorf("%s: Predecide saw %+v, want the tool call the agent reported", title, tc)
		}
	}
	c.Send(text("request permission undecided"))
	q := last(v.until(isA[QuestionAsked])).(QuestionAsked)
	if q.Tool == nil || q.Tool.Title != "undecided" {
		t.Errorf("QuestionAsked.Tool = %+v, want the tool call", q.Tool)
	}
	c.Answer(q.ID, permission.AllowOnce)
	if got := replyText(v.until(turnEnded)); !strings.Contains(got, "permission: allow_once") {
		t.Errorf("the undecided request, allowed when asked: reply %q", got)
	}
}

// AnswerAndCancel refuses and ends the turn: the agent gets the refusal (not
// "cancelled"), then session/cancel, and the turn ends cancelled without waiting for the
// grace.
func TestAnswerAndCancelEndsTheTurn(t *testing.T) {
	c := testConversation(t, testAgent(t), true)
	v := watch(t, c)
	v.until(isA[Ready])
	c.Send(text("request permission deploy\nslowly " + strings.Repeat("word ", 500)))
	q := last(v.until(isA[QuestionAsked])).(QuestionAsked)
	c.AnswerAndCancel(q.ID, permission.RejectOnce)
	evs := v.until(turnEnded)
	end := last(evs).(TurnEnded)
	if !end.Cancelled || end.StopReason != acp.StopReasonCancelled {
		t.Fatalf("TurnEnded = %+v, want the turn cancelled by the agent", end)
	}
	outcome := ""
	for _, ev := range evs {
		if u, ok := ev.(TurnUpdate); ok && u.Update.Tool != nil && u.Update.Tool.Confirmation != nil && u.Update.Tool.Confirmation.Outcome != "" {
			outcome = u.Update.Tool.Confirmation.Outcome
		}
	}
	if outcome != string(acp.PermissionOptionKindRejectOnce) {
		t.Errorf("the request's outcome %q, want reject_once:\n%s", outcome, describe(evs))
	}
	if strings.Count(replyText(evs), "word") > 100 {
		t.Errorf("the turn went on after the refusal: %d words", strings.Count(replyText(evs), "word"))
	}
}

// runStubbornAgent is an agent whose permission requests outlive its turn's
// cancellation: it never withdraws one, and says how each was answered, cancelled or
// not. (ACP has the client answer them "cancelled" when it cancels the turn.)
func runStubbornAgent() int {
	a := &stubbornAgent{}
	conn := acp.NewAgentConn(acp.Stdio(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
	<-conn.Done()
	return 0
}

type stubbornAgent struct{ conn *acp.AgentConn }

func (a *stubbornAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: acp.NegotiateVersion(req.ProtocolVersion)}, nil
}

func (a *stubbornAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "stubborn-1"}, nil
}

func (a *stubbornAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	resp, err := a.conn.RequestPermission(context.WithoutCancel(ctx), &acp.RequestPermissionRequest{
		SessionID: req.SessionID,
		ToolCall:  acp.ToolCallUpdate{ToolCallID: "c1", Title: acp.PromptText(req.Prompt), Kind: acp.ToolKindExecute},
		Options: []acp.PermissionOption{
			{OptionID: "yes", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "no", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		},
	})
	outcome := "cancelled"
	switch {
	case err != nil:
		outcome = "error: " + err.Error()
	case resp.Outcome.Selected != nil:
		outcome = string(resp.Outcome.Selected.OptionID)
	}
	a.conn.Update(context.WithoutCancel(ctx), req.SessionID, acp.AgentMessageChunk(acp.TextBlock("outcome: "+outcome)))
	if ctx.Err() != nil {
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// Cancel answers the permission request being asked "cancelled", as ACP has a client
// that cancels a turn do: an agent that waits for the answer gets it, and its turn ends.
func TestCancelAnswersTheQuestionCancelled(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := NewAgent(AgentOptions{Name: "stubborn", Spec: agentproc.Spec{Command: exe, Env: []string{"PARLEY_TEST_AGENT=stubborn"}}, Timeout: 30 * time.Second})
	t.Cleanup(a.Close)
	c := testConversation(t, a, true)
	v := watch(t, c)
	v.until(isA[Ready])
	c.Send(text("deploy"))
	q := last(v.until(isA[QuestionAsked])).(QuestionAsked)
	c.Cancel()
	evs := v.until(turnEnded)
	closed := false
	for _, ev := range evs {
		if qc, ok := ev.(QuestionClosed); ok && qc.ID == q.ID {
			closed = true
		}
	}
	if !closed || !strings.Contains(replyText(evs), "outcome: cancelled") || !last(evs).(TurnEnded).Cancelled {
		t.Fatalf("want the question closed, the agent answered \"cancelled\" and the turn cancelled:\n%s", describe(evs))
	}
}

// The conversation decides with its own copy of the policy it was given: a caller that
// changes its policy afterwards (its rules, even an element of the slice it passed)
// changes nothing in the running session, and the Ask the conversation sets is not the
// caller's.
func TestNewCopiesThePolicy(t *testing.T) {
	roots, err := workspace.NewRoots(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	policy := &permission.Policy{Rules: []permission.Rule{{Tool: "*", Action: permission.ActionAllow}}}
	c := New(Options{Agent: testAgent(t), Roots: roots, Policy: policy, Interactive: true})
	t.Cleanup(c.Close)
	if policy.Ask != nil {
		t.Error("New set the caller's Policy.Ask")
	}
	policy.Rules[0].Action = permission.ActionReject
	policy.Rules = append(policy.Rules, permission.Rule{Tool: "*", Action: permission.ActionReject})
	v := watch(t, c)
	v.until(isA[Ready])
	c.Send(text("request permission deploy"))
	evs := v.until(turnEnded)
	if got := replyText(evs); !strings.Contains(got, "permission: allow_once") {
		t.Errorf("after the caller changed its rules to reject: reply %q, want the allow of the rules given to New\n%s", got, describe(evs))
	}
}
