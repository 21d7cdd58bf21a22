package toolstate

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// update decodes one session update written as JSON.
func update(t testing.TB, s string) acp.SessionUpdate {
	t.Helper()
	var u acp.SessionUpdate
	if err := json.Unmarshal([]byte(s), &u); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return u
}

func TestMessages(t *testing.T) {
	tests := []struct {
		name, toolCall     string
		invocation, past   string
		command            string
		toolName, parentID string
	}{
		{
			name:       "terse read with a location",
			toolCall:   `{"toolCallId":"1","title":"Read","kind":"read","locations":[{"path":"/srv/proj/cmd/main.go","line":3}]}`,
			invocation: "Reading `cmd/main.go`", past: "Read `cmd/main.go`", toolName: "read",
		},
		{
			name:       "read named only in rawInput",
			toolCall:   `{"toolCallId":"1","title":"","kind":"read","rawInput":{"file_path":"/srv/proj/a.go"}}`,
			invocation: "Reading `a.go`", past: "Read `a.go`", toolName: "read",
		},
		{
			name:       "a path outside the root stays absolute",
			toolCall:   `{"toolCallId":"1","title":"Read /etc/hosts","kind":"read","locations":[{"path":"/etc/hosts"}]}`,
			invocation: "Reading `/etc/hosts`", past: "Read `/etc/hosts`", toolName: "read",
		},
		{
			name:       "descriptive read title is kept while running",
			toolCall:   `{"toolCallId":"1","title":"Reading lines 10-40 of main.go","kind":"read","locations":[{"path":"/srv/proj/main.go"}]}`,
			invocation: "Reading lines 10-40 of main.go", past: "Read `main.go`", toolName: "read",
		},
		{
			name:       "title that is the command",
			toolCall:   `{"toolCallId":"1","title":"` + "`make build`" + `","kind":"execute","rawInput":{"command":"make build"}}`,
			invocation: "Running `make build`", past: "Ran `make build`", command: "make build", toolName: "execute",
		},
		{
			name:       "argv running a shell script",
			toolCall:   `{"toolCallId":"1","title":"Run tests","kind":"execute","rawInput":{"command":["/bin/zsh","-lc","go test ./..."]}}`,
			invocation: "Running tests", past: "Ran `go test ./...`", command: "go test ./...", toolName: "execute",
		},
		{
			name:       "argv without a shell",
			toolCall:   `{"toolCallId":"1","title":"ls","kind":"execute","rawInput":{"cmd":["ls","-la"]}}`,
			invocation: "Running `ls -la`", past: "Ran `ls -la`", command: "ls -la", toolName: "execute",
		},
		{
			name:       "terminal with the command only in the title",
			toolCall:   `{"toolCallId":"1","title":"npm install","kind":"execute","content":[{"type":"terminal","terminalId":"t"}]}`,
			invocation: "Running `npm install`", past: "Ran `npm install`", command: "npm install", toolName: "execute",
		},
		{
			name:       "a multi-line command shows its first line",
			toolCall:   `{"toolCallId":"1","title":"Bash","kind":"execute","rawInput":{"command":"cat <<EOF\nhi\nEOF"}}`,
			invocation: "Running `cat <<EOF …`", past: "Ran `cat <<EOF …`", command: "cat <<EOF\nhi\nEOF", toolName: "execute",
		},
		{
			name:       "command with backticks",
			toolCall:   `{"toolCallId":"1","title":"Bash","kind":"execute","rawInput":{"command":"echo ` + "`date`" + `"}}`,
			invocation: "Running `` echo `date` ``", past: "Ran `` echo `date` ``", command: "echo `date`", toolName: "execute",
		},
		{
			name:       "edit of two files",
			toolCall:   `{"toolCallId":"1","title":"Apply patch","kind":"edit","content":[{"type":"diff","path":"/srv/proj/a","oldText":"x\n","newText":"y\n"},{"type":"diff","path":"/srv/proj/b","oldText":"1\n2\n","newText":"1\n"}]}`,
			invocation: "Applying patch", past: "Edited 2 files (+1 −2)", toolName: "edit",
		},
		{
			name:       "search",
			toolCall:   `{"toolCallId":"1","title":"grep","kind":"search","rawInput":{"pattern":"TODO","path":"."}}`,
			invocation: "Searching for `TODO`", past: "Searched for `TODO`", toolName: "search",
		},
		{
			name:       "fetch",
			toolCall:   `{"toolCallId":"1","title":"WebFetch","kind":"fetch","rawInput":{"url":"https://go.dev/doc"}}`,
			invocation: "Fetching `https://go.dev/doc`", past: "Fetched `https://go.dev/doc`", toolName: "fetch",
		},
		{
			name:       "move",
			toolCall:   `{"toolCallId":"1","title":"mv","kind":"move","rawInput":{"source":"/srv/proj/a.go","destination":"/srv/proj/b.go"}}`,
			invocation: "Moving `a.go` to `b.go`", past: "Moved `a.go` to `b.go`", toolName: "move",
		},
		{
			name:       "other tool by name",
			toolCall:   `{"toolCallId":"1","title":"","name":"frobnicate"}`,
			invocation: "Running `frobnicate`", past: "Ran `frobnicate`", toolName: "frobnicate",
		},
		{
			name:       "nothing to go on",
			toolCall:   `{"toolCallId":"1","title":""}`,
			invocation: "Running a tool", past: "Ran a tool", toolName: "other",
		},
		{
			name:       "unknown kind",
			toolCall:   `{"toolCallId":"1","title":"Fetching the weather...","kind":"weather"}`,
			invocation: "Fetching the weather", past: "Fetched the weather", toolName: "other",
		},
		{
			name:       "claude tool name and parent from _meta",
			toolCall:   `{"toolCallId":"1","title":"Read","kind":"read","locations":[{"path":"/x"}],"_meta":{"claudeCode":{"toolName":"Read","parentToolUseId":"task"}}}`,
			invocation: "Reading `/x`", past: "Read `/x`", toolName: "Read", parentID: "task",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := NewTurn(&TurnOptions{Root: "/srv/proj"})
			evs := turn.Apply(update(t, `{"sessionUpdate":"tool_call",`+tt.toolCall[1:]))
			if len(evs) != 1 || evs[0].Kind != ToolStarted {
				t.Fatalf("events = %v, want one ToolStarted", evs)
			}
			tc := evs[0].Tool
			got := []string{tc.InvocationMessage, tc.PastTenseMessage, tc.TerminalCommand, tc.ToolName, string(tc.ParentID)}
			want := []string{tt.invocation, tt.past, tt.command, tt.toolName, tt.parentID}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("invocation, past, command, tool name, parent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMetaKeys(t *testing.T) {
	tests := []struct {
		meta         string
		parent       acp.ToolCallID
		presentation Presentation
	}{
		{`{"parentToolCallId":"p"}`, "p", Visible},
		{`{"claudeCode":{"parentToolUseId":"p"}}`, "p", Visible},
		{`{"claudeCode":{"parent_tool_use_id":"p"}}`, "p", Visible},
		{`{"parley":{"parentToolCallId":"p","presentation":"hidden"}}`, "p", Hidden},
		{`{"presentation":"hiddenAfterComplete"}`, "", HiddenAfterComplete},
		{`{"presentation":"sideways","parentToolCallId":7}`, "", Visible},
		{`{"parentToolCallId":"self"}`, "", Visible}, // a call is not its own parent
	}
	for _, tt := range tests {
		turn := NewTurn(nil)
		evs := turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"self","title":"x","_meta":`+tt.meta+`}`))
		tc := evs[0].Tool
		if tc.ParentID != tt.parent || tc.Presentation != tt.presentation {
			t.Errorf("_meta %s: parent %q, presentation %q; want %q, %q", tt.meta, tc.ParentID, tc.Presentation, tt.parent, tt.presentation)
		}
	}
}

func TestDepthFollowsVisibleAncestors(t *testing.T) {
	turn := NewTurn(nil)
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"a","title":"Task"}`))
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"b","title":"Task","_meta":{"parentToolCallId":"a"}}`))
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"h","title":"Hidden","_meta":{"parentToolCallId":"b","presentation":"hidden"}}`))
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"c","title":"x","_meta":{"parentToolCallId":"h"}}`))
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"o","title":"x","_meta":{"parentToolCallId":"never-seen"}}`))
	for id, want := range map[acp.ToolCallID]int{"a": 0, "b": 1, "h": 2, "c": 2, "o": 1} {
		if got := turn.Call(id).Depth; got != want {
			t.Errorf("depth of %s = %d, want %d", id, got, want)
		}
	}
}

func TestToolUpdatedOnlyWhenSomethingVisibleChanged(t *testing.T) {
	turn := NewTurn(nil)
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"1","title":"Read","kind":"read","status":"in_progress","locations":[{"path":"/a"}]}`))
	for _, u := range []string{
		`{"sessionUpdate":"tool_call_update","toolCallId":"1","status":"in_progress"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"1","rawOutput":{"bytes":12}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"1","locations":[{"path":"/a"}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"1","_meta":{"trace":"x"}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"1","status":"someday"}`,
	} {
		if evs := turn.Apply(update(t, u)); len(evs) != 0 {
			t.Errorf("%s: events %v, want none", u, evs)
		}
	}
	evs := turn.Apply(update(t, `{"sessionUpdate":"tool_call_update","toolCallId":"1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"hi"}}]}`))
	if len(evs) != 1 || evs[0].Kind != ToolUpdated || evs[0].Changed != ChangedState|ChangedContent {
		t.Fatalf("events %+v, want one ToolUpdated with state and content changed", evs)
	}
	if tc := evs[0].Tool; tc.RawStatus != acp.ToolCallStatusCompleted || tc.State != Completed || tc.Content != "hi" {
		t.Errorf("call = %+v", tc)
	}
}

func TestUnknownStatusKeepsTheStateAndTheRawValue(t *testing.T) {
	turn := NewTurn(nil)
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"1","title":"x","status":"in_progress"}`))
	turn.Apply(update(t, `{"sessionUpdate":"tool_call_update","toolCallId":"1","status":"paused"}`))
	if tc := turn.Call("1"); tc.State != Executing || tc.RawStatus != "paused" {
		t.Errorf("state %v, raw status %q; want executing, paused", tc.State, tc.RawStatus)
	}
}

func TestUpdateForAnUnseenCallCreatesIt(t *testing.T) {
	turn := NewTurn(nil)
	evs := turn.Apply(update(t, `{"sessionUpdate":"tool_call_update","toolCallId":"late","title":"Read","kind":"read","status":"completed"}`))
	if len(evs) != 1 || evs[0].Kind != ToolStarted || evs[0].Tool.State != Completed {
		t.Fatalf("events %+v, want a ToolStarted already completed", evs)
	}
}

func TestConfirmation(t *testing.T) {
	options := []acp.PermissionOption{
		{OptionID: "y", Name: "Yes", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionID: "n", Name: "No", Kind: acp.PermissionOptionKindRejectOnce},
	}
	tests := []struct {
		outcome     acp.RequestPermissionOutcome
		wantState   State
		wantOutcome string
	}{
		{acp.SelectedOutcome("y"), Executing, "allow_once"},
		{acp.SelectedOutcome("n"), Cancelled, "reject_once"},
		{acp.SelectedOutcome("made-up"), Cancelled, "unknown"}, // never an allow
		{acp.CancelledOutcome(), Cancelled, "cancelled"},
	}
	for _, tt := range tests {
		turn := NewTurn(nil)
		ev := turn.AwaitConfirmation(&acp.RequestPermissionRequest{
			ToolCall: acp.ToolCallUpdate{ToolCallID: "new", Title: "Delete temp.log?", Kind: acp.ToolKindDelete},
			Options:  options,
		})
		if ev.Kind != PermissionRequested || ev.Tool.State != WaitingForConfirmation || ev.Tool.Confirmation.Title != "Delete temp.log?" {
			t.Fatalf("AwaitConfirmation = %+v", ev)
		}
		ev = turn.ResolveConfirmation("new", tt.outcome)
		if ev.Kind != ToolUpdated || ev.Changed&ChangedState == 0 || ev.Changed&ChangedConfirmation == 0 {
			t.Errorf("%s: ResolveConfirmation = %+v, want a state and confirmation change", tt.wantOutcome, ev)
		}
		if tc := turn.Call("new"); tc.State != tt.wantState || tc.Confirmation.Outcome != tt.wantOutcome {
			t.Errorf("%s: state %v outcome %q", tt.wantOutcome, tc.State, tc.Confirmation.Outcome)
		}
		if ev := turn.ResolveConfirmation("new", tt.outcome); ev.Kind != NoEvent {
			t.Errorf("a second answer: %+v, want no event", ev)
		}
	}
}

func TestCancel(t *testing.T) {
	turn := NewTurn(nil)
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"done","title":"x","status":"completed"}`))
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"running","title":"x","status":"in_progress"}`))
	turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"pending","title":"x"}`))
	evs := turn.Cancel()
	var ids []acp.ToolCallID
	for _, ev := range evs {
		ids = append(ids, ev.Tool.ID)
		if ev.Kind != ToolUpdated || ev.Tool.State != Cancelled {
			t.Errorf("event %+v, want ToolUpdated to cancelled", ev)
		}
	}
	if diff := cmp.Diff([]acp.ToolCallID{"running", "pending"}, ids); diff != "" {
		t.Errorf("cancelled calls (-want +got):\n%s", diff)
	}
	// The agent reports the call failed afterwards: the user was told it was cancelled.
	evs = turn.Apply(update(t, `{"sessionUpdate":"tool_call_update","toolCallId":"running","status":"failed"}`))
	if tc := turn.Call("running"); tc.State != Cancelled || len(evs) != 0 {
		t.Errorf("after a late failed: state %v, events %v", tc.State, evs)
	}
}

func TestApplyEventKinds(t *testing.T) {
	tests := []struct {
		update string
		want   EventKind
	}{
		{`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`, TextDelta},
		{`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"}}`, ThoughtDelta},
		{`{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AA==","mimeType":"image/png"}}`, Other},
		{`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}`, Other},
		{`{"sessionUpdate":"session_info_update","title":"Fixing"}`, Other},
		{`{"sessionUpdate":"config_option_update","configOptions":[]}`, Other},
		{`{"sessionUpdate":"plan","entries":[]}`, PlanChanged},
		{`{"sessionUpdate":"usage_update","used":1,"size":2}`, UsageChanged},
		{`{"sessionUpdate":"compaction_update","compactionId":"c","status":"in_progress"}`, Unknown},
	}
	for _, tt := range tests {
		turn := NewTurn(nil)
		evs := turn.Apply(update(t, tt.update))
		if len(evs) != 1 || evs[0].Kind != tt.want {
			t.Errorf("%s: events %+v, want one %v", tt.update, evs, tt.want)
		}
	}
	if evs := NewTurn(nil).Apply(acp.AgentMessageChunk(acp.TextBlock(""))); len(evs) != 0 {
		t.Errorf("an empty chunk: events %+v, want none", evs)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	turn := NewTurn(nil)
	evs := turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"1","title":"x","content":[{"type":"terminal","terminalId":"a"}]}`))
	c := evs[0].Tool.Clone()
	turn.Apply(update(t, `{"sessionUpdate":"tool_call_update","toolCallId":"1","status":"completed","content":[{"type":"terminal","terminalId":"b"}]}`))
	if c.State != Streaming || c.Terminals[0] != "a" {
		t.Errorf("the clone changed: %+v", c)
	}
}

func TestCountChanges(t *testing.T) {
	tests := []struct {
		old, new       string
		added, removed int
	}{
		{"", "a\nb\n", 2, 0},
		{"a\nb\n", "", 0, 2},
		{"a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"a\nb\nc\nd\n", "a\nc\nd\ne\n", 1, 1},
		{"same\n", "same\n", 0, 0},
		{"no newline", "no newline\n", 0, 0},
	}
	for _, tt := range tests {
		if a, r := countChanges(tt.old, tt.new); a != tt.added || r != tt.removed {
			t.Errorf("countChanges(%q, %q) = +%d −%d, want +%d −%d", tt.old, tt.new, a, r, tt.added, tt.removed)
		}
	}
}

func TestCountChangesOfAHugeRewriteIsBounded(t *testing.T) {
	var a, b []byte
	for i := range 5000 {
		a = append(a, []byte(string(rune('a'+i%26))+"\n")...)
		b = append(b, []byte(string(rune('A'+i%26))+"\n")...)
	}
	added, removed := countChanges(string(a), string(b))
	if added != 5000 || removed != 5000 {
		t.Errorf("+%d −%d, want +5000 −5000", added, removed)
	}
}

func TestShortUnified(t *testing.T) {
	d := Diff{
		OldText: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
		NewText: "1\n2\nthree\n4\n5\n6\n7\n8\nnine\n10\n",
	}
	want := []string{"@@ -2,3 +2,3 @@", " 2", "-3", "+three", " 4", "@@ -8,3 +8,3 @@", " 8", "-9", "+nine", " 10"}
	if diff := cmp.Diff(want, d.ShortUnified(20)); diff != "" {
		t.Errorf("ShortUnified(20) (-want +got):\n%s", diff)
	}
	short := d.ShortUnified(5)
	if len(short) > 5 || short[len(short)-1] != "… 2 more changed lines" {
		t.Errorf("ShortUnified(5) = %q", short)
	}
}

// TestTurnFoldsOldCompletedCalls: a turn remembers at most MaxCalls tool calls; beyond
// that the oldest finished ones are folded away (counted), never one still running.
func TestTurnFoldsOldCompletedCalls(t *testing.T) {
	turn := NewTurn(nil)
	running := acp.ToolCallID("running-0")
	turn.Apply(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: running, Title: "Run forever", Status: acp.ToolCallStatusInProgress}})
	const n = 3 * MaxCalls
	for i := range n {
		id := acp.ToolCallID(fmt.Sprintf("call-%d", i))
		turn.Apply(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: "Read", Status: acp.ToolCallStatusInProgress}})
		turn.Apply(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusCompleted}})
	}
	calls := turn.Calls()
	if len(calls) > MaxCalls {
		t.Errorf("the turn remembers %d calls, want at most %d", len(calls), MaxCalls)
	}
	if turn.Call(running) == nil {
		t.Error("a running call was folded")
	}
	if last := acp.ToolCallID(fmt.Sprintf("call-%d", n-1)); turn.Call(last) == nil {
		t.Error("the newest call was folded")
	}
	if got, want := turn.Folded(), n+1-len(calls); got != want {
		t.Errorf("Folded() = %d, want %d", got, want)
	}
}
