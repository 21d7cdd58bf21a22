package permission

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/store"
)

const (
	agent     = "codex"
	workspace = "/srv/project"
)

var goTest = execute(`{"command":"go vet ./..."}`, "Bash", "go vet ./...")

// goTestKey is what a decision about goTest is remembered under.
var goTestKey = (&Policy{Workspace: workspace}).Subject(goTest).Key

// outcome is a response as a short string: the selected option id, or "cancelled".
func outcome(resp *acp.RequestPermissionResponse) string {
	switch {
	case resp == nil:
		return "<nil>"
	case resp.Outcome.Selected != nil:
		return string(resp.Outcome.Selected.OptionID)
	case resp.Outcome.Cancelled != nil:
		return "cancelled"
	}
	return "<empty>"
}

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDecide(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "parley.db"))
	const unasked = Answer(-1) // Ask is nil: nobody to ask
	for _, tc := range []struct {
		name       string
		options    []acp.PermissionOption
		tool       acp.ToolCallUpdate // goTest if zero
		yolo       bool
		rules      []Rule
		remembered *store.Rule // in the store before the request
		answer     Answer      // what Ask answers; unasked for a nil Ask
		askErr     error

		want       string         // option id or "cancelled"
		wantAsked  bool           // Ask was called
		wantStored store.Decision // remembered afterwards for goTest's key ("" none)
		wantErr    bool
	}{
		// The user answers.
		{name: "allow once", options: codexLike, answer: AllowOnce, want: "approved", wantAsked: true},
		{name: "allow always is remembered", options: codexLike, answer: AllowAlways, want: "accept_execpolicy_amendment", wantAsked: true, wantStored: store.Allow},
		{name: "allow always without allow_always offered", options: onceOnly, answer: AllowAlways, want: "ok", wantAsked: true, wantStored: store.Allow},
		{name: "reject once: not the option that ends the turn", options: codexLike, answer: RejectOnce, want: "decline", wantAsked: true},
		{name: "reject always is remembered", options: codexLike, answer: RejectAlways, want: "reject_permissions", wantAsked: true, wantStored: store.Reject},
		{name: "reject always without reject_always offered", options: onceOnly, answer: RejectAlways, want: "nope", wantAsked: true, wantStored: store.Reject},
		{name: "a dismissed question is a refusal", options: codexLike, answer: Cancelled, want: "decline", wantAsked: true},
		{name: "the aborting reject when it is the only one", options: abortOnly, answer: RejectOnce, want: "cancel", wantAsked: true},
		{name: "reject once with only reject_always offered", options: alwaysOnly, answer: RejectOnce, want: "reject_permissions", wantAsked: true},
		{name: "no reject offered: a refusal is cancelled", options: noReject, answer: RejectOnce, want: "cancelled", wantAsked: true},
		{name: "allow once is never widened to allow_always", options: alwaysOnly, answer: AllowOnce, want: "reject_permissions", wantAsked: true, wantErr: true},
		{name: "allow with only unknown allow kinds", options: unknownAllows, answer: AllowAlways, want: "reject_once", wantAsked: true, wantErr: true},
		{name: "an unknown answer refuses", options: codexLike, answer: Answer(42), want: "decline", wantAsked: true, wantErr: true},
		{name: "the zero answer refuses", options: codexLike, answer: 0, want: "decline", wantAsked: true, wantErr: true},
		{name: "asking fails: refused", options: codexLike, answer: AllowOnce, askErr: errors.New("stdin closed"), want: "decline", wantAsked: true, wantErr: true},

		// Nobody to ask: fail closed.
		{name: "fail closed", options: codexLike, answer: unasked, want: "decline"},
		{name: "fail closed with only reject_always", options: alwaysOnly, answer: unasked, want: "reject_permissions"},
		{name: "fail closed with no reject offered", options: noReject, answer: unasked, want: "cancelled"},
		{name: "fail closed never takes an unknown kind", options: unknownAllows, answer: unasked, want: "reject_once"},

		// --yolo.
		{name: "yolo allows once without asking", options: codexLike, yolo: true, answer: RejectOnce, want: "approved"},
		{name: "yolo with only allow_always", options: alwaysOnly, yolo: true, answer: unasked, want: "allow_permissions_session"},
		{name: "yolo never takes an unknown kind", options: unknownAllows, yolo: true, answer: unasked, want: "reject_once"},
		{name: "yolo with nothing to allow asks", options: unknownAllows, yolo: true, answer: RejectOnce, want: "reject_once", wantAsked: true},
		{name: "yolo does not beat a remembered reject", options: codexLike, yolo: true, answer: unasked,
			remembered: &store.Rule{Agent: agent, Workspace: workspace, ToolKey: goTestKey, Decision: store.Reject},
			want:       "reject_permissions", wantStored: store.Reject},

		// Remembered decisions.
		{name: "remembered allow", options: codexLike, answer: unasked,
			remembered: &store.Rule{Agent: agent, Workspace: workspace, ToolKey: goTestKey, Decision: store.Allow},
			want:       "accept_execpolicy_amendment", wantStored: store.Allow},
		{name: "remembered allow, allow_once only", options: onceOnly, answer: unasked,
			remembered: &store.Rule{Agent: agent, Workspace: workspace, ToolKey: goTestKey, Decision: store.Allow},
			want:       "ok", wantStored: store.Allow},
		{name: "remembered allow with nothing to allow asks", options: unknownAllows, answer: RejectOnce,
			remembered: &store.Rule{Agent: agent, Workspace: workspace, ToolKey: goTestKey, Decision: store.Allow},
			want:       "reject_once", wantAsked: true, wantStored: store.Allow},
		{name: "remembered reject, reject_once only", options: onceOnly, answer: unasked,
			remembered: &store.Rule{Agent: agent, Workspace: workspace, ToolKey: goTestKey, Decision: store.Reject},
			want:       "nope", wantStored: store.Reject},
		{name: "remembered for another command", options: codexLike, answer: RejectOnce,
			remembered: &store.Rule{Agent: agent, Workspace: workspace, ToolKey: "execute:go", Decision: store.Allow},
			want:       "decline", wantAsked: true},
		{name: "remembered for another workspace", options: codexLike, answer: RejectOnce,
			remembered: &store.Rule{Agent: agent, Workspace: "/elsewhere", ToolKey: goTestKey, Decision: store.Allow},
			want:       "decline", wantAsked: true},
		{name: "remembered for another agent", options: codexLike, answer: RejectOnce,
			remembered: &store.Rule{Agent: "claude", Workspace: workspace, ToolKey: goTestKey, Decision: store.Allow},
			want:       "decline", wantAsked: true},

		// Configured rules.
		{name: "configured allow", options: codexLike, answer: unasked, rules: []Rule{{"execute:go *", ActionAllow}}, want: "approved"},
		{name: "configured allow, allow_always only", options: alwaysOnly, answer: unasked, rules: []Rule{{"*", ActionAllow}}, want: "allow_permissions_session"},
		{name: "configured allow with nothing to allow falls through", options: unknownAllows, answer: unasked, rules: []Rule{{"*", ActionAllow}}, want: "reject_once"},
		{name: "configured reject beats yolo", options: codexLike, yolo: true, answer: AllowOnce, rules: []Rule{{"execute:*", ActionReject}}, want: "decline"},
		{name: "configured reject beats a remembered allow", options: codexLike, answer: unasked, rules: []Rule{{"execute:*", ActionReject}},
			remembered: &store.Rule{Agent: agent, Workspace: workspace, ToolKey: goTestKey, Decision: store.Allow},
			want:       "decline", wantStored: store.Allow},
		{name: "configured ask beats a remembered allow", options: codexLike, answer: RejectOnce, rules: []Rule{{"execute:go vet *", ActionAsk}},
			remembered: &store.Rule{Agent: agent, Workspace: workspace, ToolKey: goTestKey, Decision: store.Allow},
			want:       "decline", wantAsked: true, wantStored: store.Allow},
		{name: "configured ask beats yolo", options: codexLike, yolo: true, answer: RejectOnce, rules: []Rule{{"*", ActionAsk}}, want: "decline", wantAsked: true},
		{name: "configured ask with nobody to ask fails closed", options: codexLike, yolo: true, answer: unasked, rules: []Rule{{"*", ActionAsk}},
			remembered: &store.Rule{Agent: agent, Workspace: workspace, ToolKey: goTestKey, Decision: store.Allow},
			want:       "decline", wantStored: store.Allow},
		{name: "the last matching rule wins", options: codexLike, answer: unasked,
			rules: []Rule{{"execute:*", ActionReject}, {"execute:go vet ./...", ActionAllow}, {"edit:*", ActionReject}}, want: "approved"},
		{name: "a rule for other tools does not apply", options: codexLike, answer: RejectOnce, rules: []Rule{{"edit:*", ActionAllow}}, want: "decline", wantAsked: true},
		{name: "an unknown action asks", options: codexLike, answer: RejectOnce, rules: []Rule{{"*", "maybe"}}, want: "decline", wantAsked: true},
		{name: "ask then always: remembered under the narrow key", options: codexLike, answer: AllowAlways, rules: []Rule{{"*", ActionAsk}},
			want: "accept_execpolicy_amendment", wantAsked: true, wantStored: store.Allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, options := range shuffles(tc.options) {
				// One database for every case (opening one runs the migrations, slow
				// under -race), emptied before each.
				if _, err := s.ResetRules(t.Context(), store.RuleFilter{}); err != nil {
					t.Fatal(err)
				}
				if tc.remembered != nil {
					if err := s.Remember(t.Context(), *tc.remembered); err != nil {
						t.Fatal(err)
					}
				}
				asked := false
				p := &Policy{Store: s, Agent: agent, Workspace: workspace, Yolo: tc.yolo, Rules: tc.rules}
				if tc.answer != unasked {
					p.Ask = func(ctx context.Context, q *Question) (Answer, error) {
						asked = true
						return tc.answer, tc.askErr
					}
				}
				tool := tc.tool
				if tool.ToolCallID == "" {
					tool = goTest
				}
				resp, err := p.Decide(t.Context(), &acp.RequestPermissionRequest{SessionID: "s1", ToolCall: tool, Options: options})
				if got := outcome(resp); got != tc.want {
					t.Errorf("order %d %v: outcome %s, want %s", i, ids(options), got, tc.want)
				}
				if asked != tc.wantAsked {
					t.Errorf("order %d: asked = %v, want %v", i, asked, tc.wantAsked)
				}
				if (err != nil) != tc.wantErr {
					t.Errorf("order %d: err = %v, want an error: %v", i, err, tc.wantErr)
				}
				rule, ok, err := s.Lookup(t.Context(), agent, workspace, p.Subject(tool).Key)
				if err != nil {
					t.Fatal(err)
				}
				if ok != (tc.wantStored != "") || rule.Decision != tc.wantStored {
					t.Errorf("order %d: remembered %v %q, want %q", i, ok, rule.Decision, tc.wantStored)
				}
				if t.Failed() {
					return
				}
			}
		})
	}
}

// Whatever the options, nothing is allowed without a decision to allow, and nothing not
// offered (or of an unknown kind) is ever selected.
func TestNeverAllowsWithoutADecision(t *testing.T) {
	kinds := []acp.PermissionOptionKind{allowOnce, allowAlways, rejectOnce, rejectAlways, "allow_persistent", "Allow_Once", ""}
	r := rand.New(rand.NewPCG(3, 4))
	refusals := []Answer{RejectOnce, RejectAlways, Cancelled, 0, Answer(99)}
	for i := range 500 {
		var options []acp.PermissionOption
		for j := range r.IntN(6) {
			options = append(options, opt(string(rune('a'+j)), kinds[r.IntN(len(kinds))], ""))
		}
		answer := refusals[r.IntN(len(refusals))]
		policies := []*Policy{
			{}, // nobody to ask
			{Rules: []Rule{{"*", ActionReject}}},
			{Rules: []Rule{{"*", ActionAsk}}, Yolo: true},
			{Ask: func(context.Context, *Question) (Answer, error) { return answer, nil }},
			{Ask: func(context.Context, *Question) (Answer, error) {
				return AllowOnce, errors.New("broken")
			}},
		}
		for k, p := range policies {
			resp, _ := p.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: goTest, Options: options})
			sel := resp.Outcome.Selected
			if sel == nil {
				if resp.Outcome.Cancelled == nil {
					t.Fatalf("case %d policy %d: empty outcome", i, k)
				}
				continue
			}
			idx := slices.IndexFunc(options, func(o acp.PermissionOption) bool { return o.OptionID == sel.OptionID })
			if idx < 0 {
				t.Fatalf("case %d policy %d: selected %s, which was not offered", i, k, sel.OptionID)
			}
			if kind := options[idx].Kind; kind != rejectOnce && kind != rejectAlways {
				t.Fatalf("case %d policy %d: selected %s of kind %q without a decision to allow", i, k, sel.OptionID, kind)
			}
		}
	}
}

func TestAlwaysPersistsAcrossStoreOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "parley.db")
	edit := acp.ToolCallUpdate{ToolCallID: "c2", Kind: acp.ToolKindEdit, Name: "Write", Title: "Write main.go"}

	s1, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	first := &Policy{Store: s1, Agent: agent, Workspace: workspace,
		Ask: func(ctx context.Context, q *Question) (Answer, error) {
			if q.Request.ToolCall.Kind == acp.ToolKindEdit {
				return RejectAlways, nil
			}
			return AllowAlways, nil
		}}
	for _, tool := range []acp.ToolCallUpdate{goTest, edit} {
		if _, err := first.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: tool, Options: codexLike}); err != nil {
			t.Fatal(err)
		}
	}
	s1.Close()

	// A later run: nobody to ask, so only what was remembered can allow.
	s2 := openStore(t, path)
	later := &Policy{Store: s2, Agent: agent, Workspace: workspace}
	for _, tc := range []struct {
		tool acp.ToolCallUpdate
		want string
	}{
		{goTest, "accept_execpolicy_amendment"},
		{edit, "reject_permissions"},
		{execute(`{"command":"go run ./evil"}`, "Bash", ""), "decline"}, // "always allow go vet" does not cover go run
	} {
		for _, options := range shuffles(codexLike) {
			resp, err := later.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: tc.tool, Options: options})
			if got := outcome(resp); got != tc.want || err != nil {
				t.Errorf("%s: %s, %v; want %s", later.Subject(tc.tool).Key, got, err, tc.want)
			}
		}
	}
	// Another workspace of the same agent starts afresh.
	other := &Policy{Store: s2, Agent: agent, Workspace: "/srv/other"}
	if resp, _ := other.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: goTest, Options: codexLike}); outcome(resp) != "decline" {
		t.Errorf("another workspace: %s, want decline", outcome(resp))
	}
}

func TestStoreFailureStillAnswers(t *testing.T) {
	s, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // every call now fails
	p := &Policy{Store: s, Agent: agent, Workspace: workspace, Ask: func(context.Context, *Question) (Answer, error) {
		return AllowAlways, nil
	}}
	resp, err := p.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: goTest, Options: codexLike})
	if got := outcome(resp); got != "accept_execpolicy_amendment" {
		t.Errorf("outcome %s: the user's answer should stand", got)
	}
	if err == nil {
		t.Error("no error reported for the broken store")
	}
}

func TestCancellation(t *testing.T) {
	req := func() *acp.RequestPermissionRequest {
		return &acp.RequestPermissionRequest{ToolCall: goTest, Options: codexLike}
	}
	t.Run("while asking", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		asking := make(chan struct{})
		p := &Policy{Ask: func(ctx context.Context, _ *Question) (Answer, error) {
			close(asking)
			<-ctx.Done()
			return 0, ctx.Err()
		}}
		done := make(chan *acp.RequestPermissionResponse)
		go func() {
			resp, err := p.Decide(ctx, req())
			if err != nil {
				t.Errorf("Decide: %v", err)
			}
			done <- resp
		}()
		select {
		case <-asking:
		case resp := <-done:
			t.Fatalf("decided %s without asking", outcome(resp))
		}
		cancel()
		select {
		case resp := <-done:
			if got := outcome(resp); got != "cancelled" {
				t.Errorf("outcome %s, want cancelled", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Decide did not return after cancellation")
		}
	})
	t.Run("an answer that races the cancellation", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		p := &Policy{Ask: func(context.Context, *Question) (Answer, error) {
			cancel()
			return AllowOnce, nil
		}}
		if resp, _ := p.Decide(ctx, req()); outcome(resp) != "cancelled" {
			t.Errorf("outcome %s, want cancelled", outcome(resp))
		}
	})
	t.Run("before the request", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		p := &Policy{Yolo: true, Ask: func(context.Context, *Question) (Answer, error) {
			t.Error("asked during a cancelled turn")
			return AllowOnce, nil
		}}
		if resp, _ := p.Decide(ctx, req()); outcome(resp) != "cancelled" {
			t.Errorf("outcome %s, want cancelled", outcome(resp))
		}
	})
}

func TestAnswers(t *testing.T) {
	for _, tc := range []struct {
		options []acp.PermissionOption
		want    []Answer
	}{
		{codexLike, []Answer{AllowOnce, AllowAlways, RejectOnce, RejectAlways}},
		{alwaysOnly, []Answer{AllowAlways, RejectOnce, RejectAlways}},
		{onceOnly, []Answer{AllowOnce, AllowAlways, RejectOnce, RejectAlways}},
		{unknownAllows, []Answer{RejectOnce, RejectAlways}},
	} {
		if got := Answers(tc.options); !slices.Equal(got, tc.want) {
			t.Errorf("Answers(%v) = %v, want %v", ids(tc.options), got, tc.want)
		}
	}
}
