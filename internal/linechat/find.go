package linechat

import (
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/toolstate"
)

// The line chat's /find: the conversation's words (the user's prompts and the agent's
// replies) kept as they were shown, so that a line scrolled away can be found again.

// transcriptLimit bounds what the chat keeps for /find; the oldest entries go first.
const transcriptLimit = 8 << 20

type said struct {
	turn int
	who  string // "you" or "agent"
	text string
}

type transcript struct {
	entries []said
	size    int
}

// record notes what an event adds to the conversation's words.
func (t *transcript) record(ev conversation.Event) {
	switch e := ev.(type) {
	case conversation.TurnStarted:
		t.add(said{turn: e.Prompt.ID, who: "you", text: e.Prompt.Text()})
	case conversation.TurnUpdate:
		if e.Update.Kind != toolstate.TextDelta {
			return
		}
		if n := len(t.entries); n > 0 && t.entries[n-1].turn == e.Turn && t.entries[n-1].who == "agent" {
			t.entries[n-1].text += e.Update.Text
			t.size += len(e.Update.Text)
		} else {
			t.add(said{turn: e.Turn, who: "agent", text: e.Update.Text})
		}
		t.trim()
	}
}

func (t *transcript) add(s said) {
	t.entries = append(t.entries, s)
	t.size += len(s.text)
	t.trim()
}

func (t *transcript) trim() {
	for t.size > transcriptLimit && len(t.entries) > 1 {
		t.size -= len(t.entries[0].text)
		t.entries = t.entries[1:]
	}
}

// find lists the lines that hold q (case does not matter), each with its turn and who
// said it.
func (t *transcript) find(q string) []string {
	q = strings.ToLower(q)
	var out []string
	for _, s := range t.entries {
		for line := range strings.SplitSeq(s.text, "\n") {
			if strings.Contains(strings.ToLower(line), q) {
				out = append(out, fmt.Sprintf("  turn %d, %s: %s", s.turn, s.who, OneLineSafe(strings.TrimSpace(line))))
			}
		}
	}
	return out
}

// findCommand is /find TEXT.
func (c *chat) findCommand(q string) {
	lines := c.words.find(q)
	if len(lines) == 0 {
		c.con.Say("Nothing in this conversation says %q.", OneLineSafe(q))
		return
	}
	c.con.Say("%s %q:\n%s", toolstate.Count(len(lines), "line says", "lines say"), OneLineSafe(q), strings.Join(lines, "\n"))
}
