package conversation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/store"
)

// sampleTurns is a conversation of n turns, each with a prompt, a reply of replyChars
// characters and two tool calls.
func sampleTurns(n, replyChars int) []store.TranscriptTurn {
	turns := make([]store.TranscriptTurn, n)
	for i := range turns {
		turns[i] = store.TranscriptTurn{
			Prompt: fmt.Sprintf("step %d: fix the failing test in pkg%d\nand explain why", i+1, i),
			Reply:  strings.Repeat("The test failed because the clock was read twice. ", replyChars/50+1)[:replyChars],
			Tools: []store.TranscriptTool{
				{Title: fmt.Sprintf("Read pkg%d/clock_test.go", i), Kind: "read", Status: "completed"},
				{Title: "Run go test ./...", Kind: "execute", Status: "failed"},
			},
			Stop: string(acp.StopReasonEndTurn),
		}
	}
	return turns
}

func TestSeedCarriesTheWholeTranscriptWhenItFits(t *testing.T) {
	turns := sampleTurns(3, 200)
	s := MakeSeed(turns, SeedOptions{Agent: "claude"})
	if s.Summarised || s.Turns != 3 {
		t.Fatalf("seed: summarised %v, %d turns", s.Summarised, s.Turns)
	}
	for _, want := range []string{"earlier session with claude, of 3 turns", "Turn 3\nUser:\n| step 3: fix the failing test in pkg2\n| and explain why\n", "- Run go test ./... (failed)", turns[2].Reply} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("the seed lacks %q:\n%s", want, s.Text)
		}
	}
	for _, line := range strings.Split(s.Text, "\n") {
		if strings.HasPrefix(line, "step") || strings.HasPrefix(line, "The test") {
			t.Errorf("a line of the conversation is not quoted: %q", line)
		}
	}
}

func TestSeedIsSummarisedWithinTheBudget(t *testing.T) {
	turns := sampleTurns(200, 2000) // about 430,000 characters
	for _, budget := range []int{2000, 20000, DefaultSeedBudget} {
		s := MakeSeed(turns, SeedOptions{Budget: budget})
		if !s.Summarised || len(s.Text) > budget {
			t.Errorf("budget %d: summarised %v, %d characters", budget, s.Summarised, len(s.Text))
		}
		// The last turn whole; the earlier ones cut down or left out, and said so.
		if !strings.Contains(s.Text, "Turn 200\nUser:\n| step 200") || !strings.Contains(s.Text, "are left out") {
			t.Errorf("budget %d: the last turn or the note of what was left out is missing", budget)
		}
		if again := MakeSeed(turns, SeedOptions{Budget: budget}); again.Text != s.Text {
			t.Errorf("budget %d: two summaries of the same transcript differ", budget)
		}
	}
	// One turn longer than the budget is cut, not dropped.
	s := MakeSeed(sampleTurns(1, 50000), SeedOptions{Budget: 5000})
	if !s.Summarised || !strings.Contains(s.Text, "characters cut]") || len(s.Text) > 5000 {
		t.Errorf("a long last turn: summarised %v, %d characters", s.Summarised, len(s.Text))
	}
}

func TestTurnsBeforeARewind(t *testing.T) {
	turns := []store.TranscriptTurn{{Prompt: "a"}, {Prompt: "b", ChangeTurn: 1}, {Prompt: "c"}, {Prompt: "d", ChangeTurn: 3}}
	for n, want := range map[int]int{1: 1, 2: 3, 3: 3, 4: 4} {
		if got := len(TurnsBefore(turns, n)); got != want {
			t.Errorf("before turn %d: %d turns, want %d", n, got, want)
		}
	}
	plain := []store.TranscriptTurn{{Prompt: "a"}, {Prompt: "b"}}
	if got := len(TurnsBefore(plain, 2)); got != 1 {
		t.Errorf("unnumbered, before turn 2: %d turns, want 1", got)
	}
}

func TestTurnsOfTranscript(t *testing.T) {
	updates := []acp.SessionUpdate{
		acp.UserMessageChunk(acp.TextBlock("hello")),
		acp.AgentMessageChunk(acp.TextBlock("hi ")),
		{ToolCall: &acp.ToolCall{ToolCallID: "1", Title: "Read a.go", Kind: acp.ToolKindRead, Status: acp.ToolCallStatusCompleted}},
		acp.AgentMessageChunk(acp.TextBlock("there")),
		acp.UserMessageChunk(acp.TextBlock("again")),
	}
	got := TurnsOfTranscript(updates)
	if len(got) != 2 || got[0].Prompt != "hello" || got[0].Reply != "hi there" || len(got[0].Tools) != 1 || got[1].Prompt != "again" {
		t.Errorf("turns: %+v", got)
	}
}

// BenchmarkSeed measures seeding a long conversation: the size of the first prompt
// against the transcript's, and the time to make it.
func BenchmarkSeed(b *testing.B) {
	for _, c := range []struct{ turns, reply int }{{10, 500}, {50, 2000}, {200, 4000}} {
		turns := sampleTurns(c.turns, c.reply)
		size := 0
		for _, t := range turns {
			size += len(t.Prompt) + len(t.Reply)
		}
		b.Run(fmt.Sprintf("turns=%d", c.turns), func(b *testing.B) {
			var s Seed
			for b.Loop() {
				s = MakeSeed(turns, SeedOptions{})
			}
			b.ReportMetric(float64(size), "transcript-chars")
			b.ReportMetric(float64(len(s.Text)), "seed-chars")
		})
	}
}
