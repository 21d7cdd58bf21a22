package agent

import (
	"context"
	"github.com/parley-acp/parley/internal/safety"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
	"github.com/parley-acp/parley/internal/store"
)

func kinds(opts []acp.PermissionOption) []acp.PermissionOptionKind {
	var out []acp.PermissionOptionKind
	for _, o := range opts {
		out = append(out, o.Kind)
	}
	return out
}

func TestCriticalCommandAsksUnderYoloAndRejectionReachesTheModel(t *testing.T) {
	judge := fakeJudge{"rm -rf ../victim": safety.Critical, "touch made": safety.Medium}
	la := newLocalAgent(t, "", nil, Options{Auto: Yolo(), judge: judge},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("touch made")}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("rm -rf ../victim")}},
		fakellm.Reply{Content: []string{"I will not delete it then."}},
	)
	victim := filepath.Join(filepath.Dir(la.dir), "victim")
	os.MkdirAll(victim, 0o755)
	t.Cleanup(func() { os.RemoveAll(victim) })
	la.newSession()
	if stop := la.prompt("clean up"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q: a rejection must not end the turn", stop)
	}
	if _, err := os.Stat(filepath.Join(la.dir, "made")); err != nil {
		t.Errorf("the medium command did not run under yolo: %v", err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the rejected critical command ran: %v", err)
	}
	asked := la.client.questions()
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once (the critical command only)", len(asked))
	}
	q := asked[0]
	if !strings.Contains(q.ToolCall.Title, "rm -rf ../victim") || len(q.ToolCall.Content) == 0 {
		t.Errorf("the question does not show the command: %+v", q.ToolCall)
	}
	if slices.Contains(kinds(q.Options), acp.PermissionOptionKindAllowAlways) {
		t.Errorf("a critical command offers %v: never 'always allow'", kinds(q.Options))
	}
	if got := lastToolMessage(t, la.fake); !strings.Contains(got, "rejected") {
		t.Errorf("the model was told %q", got)
	}
}

func TestAllFourKindsAreOffered(t *testing.T) {
	la := newLocalAgent(t, "", openStore(t), Options{judge: fakeJudge{"make": safety.Medium}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("make")}},
		fakellm.Reply{Content: []string{"ok"}},
	)
	la.newSession()
	la.prompt("build")
	q := la.client.questions()
	if len(q) != 1 {
		t.Fatalf("%d questions", len(q))
	}
	got := kinds(q[0].Options)
	for _, k := range []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways, acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways} {
		if !slices.Contains(got, k) {
			t.Errorf("options %v lack %s", got, k)
		}
	}
	// A client that chooses "always" by kind takes the first: the session's.
	for _, o := range q[0].Options {
		if o.Kind == acp.PermissionOptionKindAllowAlways {
			if o.OptionID != optAllowSession {
				t.Errorf("the first allow_always is %s, want the session's", o.OptionID)
			}
			break
		}
	}
}

func TestAlwaysForOneCommandDoesNotAllowAnother(t *testing.T) {
	judge := fakeJudge{"rm -f build.log": safety.Medium, "rm -rf src": safety.High}
	la := newLocalAgent(t, "", nil, Options{judge: judge},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("rm -f build.log")}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("rm -f build.log")}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("rm -rf src")}},
		fakellm.Reply{Content: []string{"done"}},
	)
	os.MkdirAll(filepath.Join(la.dir, "src"), 0o755)
	la.client.answer = func(req *acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		if strings.Contains(req.ToolCall.Title, "build.log") {
			return acp.SelectedOutcome(optAllowSession)
		}
		return acp.SelectedOutcome(optRejectOnce)
	}
	la.newSession()
	la.prompt("tidy")
	var titles []string
	for _, q := range la.client.questions() {
		titles = append(titles, q.ToolCall.Title)
	}
	want := []string{"Run `rm -f build.log`", "Run `rm -rf src`"}
	if !slices.Equal(titles, want) {
		t.Errorf("asked about %q, want %q: the second rm -f was remembered, rm -rf was not", titles, want)
	}
	if _, err := os.Stat(filepath.Join(la.dir, "src")); err != nil {
		t.Error("src was deleted without approval")
	}
}

func TestWorkspaceAlwaysIsRememberedAcrossRestartsButNeverForCritical(t *testing.T) {
	st := openStore(t)
	judge := fakeJudge{"make": safety.Medium}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	first := newLocalAgent(t, dir, st, Options{judge: judge},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("make")}},
		fakellm.Reply{Content: []string{"built"}},
	)
	first.client.answer = choose(optAllowWorkspace)
	first.newSession()
	first.prompt("build")
	first.stop()
	rules, err := st.ListRules(t.Context(), store.RuleFilter{Agent: storeAgent})
	if err != nil || len(rules) != 1 || rules[0].Workspace != dir || rules[0].Decision != store.Allow {
		t.Fatalf("remembered %+v (%v)", rules, err)
	}

	// A critical command with a remembered allow under its key is still asked about.
	// (The fake judge calls a harmless command critical: a test must never risk a wipe.)
	st.Remember(t.Context(), store.Rule{Agent: storeAgent, Workspace: dir, ToolKey: "execute:medium:touch wiped", Decision: store.Allow})
	judge["touch wiped"] = safety.Critical
	second := newLocalAgent(t, dir, st, Options{judge: judge},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("make")}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("touch wiped")}},
		fakellm.Reply{Content: []string{"ok"}},
	)
	second.newSession()
	second.prompt("build again, then wipe")
	q := second.client.questions()
	if len(q) != 1 || !strings.Contains(q[0].ToolCall.Title, "touch wiped") {
		t.Errorf("questions %d: make must be remembered, the critical command asked", len(q))
	}
	if _, err := os.Stat(filepath.Join(dir, "wiped")); err == nil {
		t.Error("the critical command ran on a remembered allow")
	}
}

func TestRejectAlwaysRefusesWithoutAsking(t *testing.T) {
	la := newLocalAgent(t, "", nil, Options{judge: fakeJudge{"curl x": safety.High}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("curl x")}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("curl x")}},
		fakellm.Reply{Content: []string{"fine"}},
	)
	la.client.answer = choose(optRejectSession)
	la.newSession()
	la.prompt("fetch")
	if n := len(la.client.questions()); n != 1 {
		t.Errorf("asked %d times; reject for the session should answer the second", n)
	}
	if got := lastToolMessage(t, la.fake); !strings.Contains(got, "refused") {
		t.Errorf("the model was told %q", got)
	}
}

func TestSensitiveEditAsksWithTheDiff(t *testing.T) {
	la := newLocalAgent(t, "", nil, Options{Auto: AutoApprove{Edits: true}, judge: fakeJudge{}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("write_file", `{"path":"notes.txt","content":"fine\n"}`)}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("write_file", `{"path":".env","content":"TOKEN=new\n"}`)}},
		fakellm.Reply{Content: []string{"left .env alone"}},
	)
	os.WriteFile(filepath.Join(la.dir, ".env"), []byte("TOKEN=old\n"), 0o600)
	la.newSession()
	la.prompt("update the token")
	q := la.client.questions()
	if len(q) != 1 {
		t.Fatalf("%d questions: only the .env edit asks", len(q))
	}
	var diff *acp.Diff
	for _, c := range q[0].ToolCall.Content {
		if c.Diff != nil {
			diff = c.Diff
		}
	}
	if diff == nil || diff.OldText == nil || *diff.OldText != "TOKEN=old\n" || diff.NewText != "TOKEN=new\n" || diff.Path != filepath.Join(la.dir, ".env") {
		t.Errorf("the question's diff: %+v", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(la.dir, ".env")); string(b) != "TOKEN=old\n" {
		t.Errorf(".env was written after a rejection: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(la.dir, "notes.txt")); string(b) != "fine\n" {
		t.Errorf("the ordinary edit: %q", b)
	}
}

func TestCancelledQuestionEndsTheTurn(t *testing.T) {
	la := newLocalAgent(t, "", nil, Options{judge: fakeJudge{"make": safety.Medium}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("make")}},
		fakellm.Reply{Content: []string{"never reached"}},
	)
	la.client.answer = func(*acp.RequestPermissionRequest) acp.RequestPermissionOutcome { return acp.CancelledOutcome() }
	la.newSession()
	if stop := la.prompt("build"); stop != acp.StopReasonCancelled {
		t.Errorf("stop %q, want cancelled", stop)
	}
}

func TestAnOptionThatWasNotOfferedIsARefusal(t *testing.T) {
	la := newLocalAgent(t, "", nil, Options{judge: fakeJudge{"touch x": safety.Medium}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runCall("touch x")}},
		fakellm.Reply{Content: []string{"ok"}},
	)
	la.client.answer = choose("allow_everything")
	la.newSession()
	la.prompt("touch")
	if _, err := os.Stat(filepath.Join(la.dir, "x")); err == nil {
		t.Error("an unknown option id allowed the command")
	}
}

func TestMCPToolCallsAskUnlessAutoApproved(t *testing.T) {
	for _, auto := range []bool{false, true} {
		t.Run(map[bool]string{false: "ask", true: "auto"}[auto], func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "1"}, nil)
			ran := make(chan struct{}, 1)
			mcp.AddTool(server, &mcp.Tool{Name: "deploy", Description: "deploy"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				ran <- struct{}{}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil, nil
			})
			srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
			t.Cleanup(srv.Close)
			la := newLocalAgent(t, "", nil, Options{Auto: AutoApprove{MCP: auto}, judge: fakeJudge{}},
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("ops__deploy", `{}`)}},
				fakellm.Reply{Content: []string{"ok"}},
			)
			resp, err := la.conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: la.dir, MCPServers: []acp.MCPServer{acp.HTTPMCPServer("ops", srv.URL, nil)}})
			if err != nil {
				t.Fatal(err)
			}
			la.id = resp.SessionID
			la.prompt("deploy")
			asked := len(la.client.questions())
			if auto && (asked != 0 || len(ran) != 1) {
				t.Errorf("auto-approved: asked %d times, ran %d", asked, len(ran))
			}
			if !auto && (asked != 1 || len(ran) != 0 || !strings.Contains(lastToolMessage(t, la.fake), "rejected")) {
				t.Errorf("asked %d times, ran %d (the client rejected it)", asked, len(ran))
			}
		})
	}
}
