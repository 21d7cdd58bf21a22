package conversation

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// TestTranscriptFoldsAndStaysBounded: a tool call is one entry in its last state (its
// _meta merged, when it began and ended in _meta.parley), a turn's plan its last plan, a settings update the last of its kind;
// what a view was given does not change when the transcript takes more; past its bound
// the oldest entries go, and an update of a call that went is a call again.
func TestTranscriptFoldsAndStaysBounded(t *testing.T) {
	tr := newTranscript()
	tr.prompt([]acp.ContentBlock{acp.TextBlock("go")})
	tr.add(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c1", Title: "Build", Status: acp.ToolCallStatusPending, Meta: acp.Meta{"a": []byte(`1`)}}})
	given := tr.updates()
	tr.add(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: acp.ToolCallStatusCompleted, Meta: acp.Meta{"b": []byte(`2`)}}})
	for _, n := range []uint64{1, 2} {
		tr.add(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: n, Size: 10}})
		tr.add(acp.SessionUpdate{Plan: &acp.Plan{Entries: []acp.PlanEntry{{Content: fmt.Sprint("step ", n)}}}})
	}
	got := tr.updates()
	if len(got) != 4 {
		t.Fatalf("%d updates, want the prompt, the call, the usage and the plan: %+v", len(got), got)
	}
	if c := got[1].ToolCall; c == nil || c.Status != acp.ToolCallStatusCompleted || c.Title != "Build" || len(c.Meta) != 3 {
		t.Errorf("the folded call %+v", got[1].ToolCall)
	}
	if m := callTimes(t, got[1].ToolCall); m.Started == "" || m.Ended == "" || parseTime(m.Ended).Before(parseTime(m.Started)) {
		t.Errorf("the completed call's times: %+v", m)
	}
	if m := callTimes(t, given[1].ToolCall); m.Started == "" || m.Ended != "" {
		t.Errorf("the pending call's times: %+v, want a start and no end", m)
	}
	if got[2].UsageUpdate == nil || got[2].UsageUpdate.Used != 2 || got[3].Plan == nil || got[3].Plan.Entries[0].Content != "step 2" {
		t.Errorf("the usage and plan kept: %+v %+v", got[2].UsageUpdate, got[3].Plan)
	}
	if c := given[1].ToolCall; c.Status != acp.ToolCallStatusPending || len(c.Meta) != 2 {
		t.Errorf("what a view was given changed: %+v", c)
	}
	tr.prompt([]acp.ContentBlock{acp.TextBlock("again")})
	tr.add(acp.SessionUpdate{Plan: &acp.Plan{Entries: []acp.PlanEntry{{Content: "the next turn's"}}}})
	if n := len(tr.updates()); n != 6 {
		t.Errorf("%d updates: the next turn's prompt and plan are entries of their own", n)
	}

	for i := range maxTranscript {
		tr.add(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: acp.ToolCallID(fmt.Sprint("n", i)), Title: "x"}})
	}
	if len(tr.entries) != maxTranscript || tr.first != 6 {
		t.Fatalf("%d entries, the first at %d: want the bound, the oldest gone", len(tr.entries), tr.first)
	}
	if _, ok := tr.calls["c1"]; ok {
		t.Error("the call that went is still indexed")
	}
	tr.add(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: acp.ToolCallStatusFailed}})
	last := tr.updates()[maxTranscript-1]
	if last.ToolCall == nil || last.ToolCall.ToolCallID != "c1" || last.ToolCall.Status != acp.ToolCallStatusFailed {
		t.Errorf("an update of a call that went: %+v", last)
	}

	big := newTranscript()
	chunk := string(make([]byte, 1<<20))
	for i := range 70 {
		big.add(acp.AgentMessageChunk(acp.TextBlock(chunk)))
		big.add(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: acp.ToolCallID(fmt.Sprint("t", i))}}) // ends the run of text
	}
	if big.bytes > maxTranscriptBytes {
		t.Errorf("%d bytes held, over the bound", big.bytes)
	}
}

// callTimes reads the times parley put in a replayed call's _meta.parley.
func callTimes(t *testing.T, tc *acp.ToolCall) parleyapi.ToolCallMeta {
	t.Helper()
	var m parleyapi.ToolCallMeta
	if err := json.Unmarshal(tc.Meta["parley"], &m); err != nil {
		t.Fatalf("_meta.parley of %s: %v", tc.ToolCallID, err)
	}
	for _, s := range []string{m.Started, m.Ended} {
		if _, err := time.Parse(time.RFC3339Nano, s); s != "" && err != nil {
			t.Errorf("time %q: %v", s, err)
		}
	}
	return m
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// TestTranscriptJoinsALongReply: a reply streamed in chunks of every size, across the
// text's blocks and past the largest of them, replays as one chunk with all of its text;
// a replay taken part way is not changed by what comes after.
func TestTranscriptJoinsALongReply(t *testing.T) {
	tr := newTranscript()
	var want strings.Builder
	var early []acp.SessionUpdate
	earlyLen := 0
	for i := range 300 {
		piece := strings.Repeat(string(rune('a'+i%26)), i*i%(3*maxTextBlock/2)+1)
		want.WriteString(piece)
		tr.add(acp.AgentMessageChunk(acp.TextBlock(piece)))
		if i == 10 {
			early, earlyLen = tr.updates(), want.Len()
		}
	}
	got := tr.updates()
	if len(got) != 1 || got[0].AgentMessageChunk == nil {
		t.Fatalf("replay = %d updates, want one agent chunk", len(got))
	}
	if text := got[0].AgentMessageChunk.Content.Text.Text; text != want.String() {
		t.Fatalf("replayed %d bytes, want %d (first difference at %d)", len(text), want.Len(), firstDiff(text, want.String()))
	}
	if n := len(early[0].AgentMessageChunk.Content.Text.Text); n != earlyLen {
		t.Fatalf("the replay taken after 11 chunks now has %d bytes", n)
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
