package linechat

import (
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/toolstate"
)

func prompt(id int, text string) conversation.TurnStarted {
	return conversation.TurnStarted{Prompt: conversation.Prompt{ID: id, Content: []acp.ContentBlock{acp.TextBlock(text)}}}
}

func reply(turn int, text string) conversation.TurnUpdate {
	return conversation.TurnUpdate{Turn: turn, Update: toolstate.Event{Kind: toolstate.TextDelta, Text: text}}
}

// The transcript /find reads joins a reply's chunks (a word cut in two is found), keeps
// who said what in which turn, ignores case, and ignores what is not text.
func TestTranscriptFind(t *testing.T) {
	var tr transcript
	for _, ev := range []conversation.Event{
		prompt(1, "fix the Login page"),
		reply(1, "I changed the lo"),
		reply(1, "gin handler\nand its tests"),
		conversation.TurnUpdate{Turn: 1, Update: toolstate.Event{Kind: toolstate.ThoughtDelta, Text: "login is hard"}},
		prompt(2, "thanks"),
		reply(2, "You are welcome"),
	} {
		tr.record(ev)
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"LOGIN", []string{"  turn 1, you: fix the Login page", "  turn 1, agent: I changed the login handler"}},
		{"tests", []string{"  turn 1, agent: and its tests"}},
		{"welcome", []string{"  turn 2, agent: You are welcome"}},
		{"hard", nil}, // a thought is not what was said
	} {
		if got := tr.find(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("find(%q) = %q; want %q", tc.q, got, tc.want)
		}
	}
}

// The transcript keeps at most transcriptLimit bytes: the oldest goes first.
func TestTranscriptForgetsTheOldest(t *testing.T) {
	var tr transcript
	tr.record(prompt(1, "the first needle"))
	big := strings.Repeat("x", transcriptLimit/2)
	tr.record(prompt(2, big))
	tr.record(prompt(3, big))
	tr.record(prompt(4, "the last needle"))
	if got := tr.find("needle"); !slices.Equal(got, []string{"  turn 4, you: the last needle"}) {
		t.Errorf("find = %q; want only the last needle", got)
	}
	if tr.size > transcriptLimit {
		t.Errorf("the transcript holds %d bytes, over %d", tr.size, transcriptLimit)
	}
}
