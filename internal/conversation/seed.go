package conversation

import (
	"fmt"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/store"
)

// DefaultSeedBudget is how many characters of transcript a seeded session's first prompt
// carries at most (about 15,000 tokens): past it, the transcript is summarised.
const DefaultSeedBudget = 60000

// How an earlier turn is cut down in a summary.
const (
	summaryPromptChars = 300
	summaryReplyChars  = 400
	summaryTools       = 8
)

// SeedOptions say how to seed a session.
type SeedOptions struct {
	Budget int    // characters; 0 means DefaultSeedBudget
	Agent  string // the agent the conversation was held with, for the preamble
}

// Seed is what a seeded session's first prompt starts with: the transcript of the
// conversation it carries on, as text.
type Seed struct {
	Text       string
	Summarised bool // the earlier turns are cut down (or left out) to fit the budget
	Turns      int  // the turns it carries
}

// Blocks is the seed as a prompt's first content blocks (nil for an empty seed).
func (s Seed) Blocks() []acp.ContentBlock {
	if s.Text == "" {
		return []acp.ContentBlock{}
	}
	return []acp.ContentBlock{acp.TextBlock(s.Text)}
}

// MakeSeed renders turns as the text a new session starts with. Every line of what the
// user and the agent said is quoted ("| "), so that none reads as a command. When the
// whole does not fit o.Budget, it is summarised deterministically: the last turns are
// kept whole while they fit in three quarters of the budget, the earlier ones cut down
// (the prompt's and the reply's first characters, each tool call as one line), and the
// oldest of those left out, counted, when even that is too long.
func MakeSeed(turns []store.TranscriptTurn, o SeedOptions) Seed {
	if len(turns) == 0 {
		return Seed{}
	}
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultSeedBudget
	}
	whole := make([]string, len(turns))
	total := 0
	for i, t := range turns {
		whole[i] = renderTurn(i+1, t, false)
		total += len(whole[i])
	}
	head := seedHead(o.Agent, len(turns), false)
	if len(head)+total+len(seedTail) <= budget {
		return Seed{Text: head + strings.Join(whole, "") + seedTail, Turns: len(turns)}
	}
	// The last turns whole, while they fit in three quarters of the budget (the last
	// one at least, cut if it must be).
	head = seedHead(o.Agent, len(turns), true)
	room := (budget - len(head) - len(seedTail)) * 3 / 4
	keep, used := len(turns), 0
	for keep > 0 && used+len(whole[keep-1]) <= room {
		keep--
		used += len(whole[keep])
	}
	var tailText []string
	if keep == len(turns) { // the last turn alone is too long: cut down too
		keep = len(turns) - 1
		tailText = []string{renderTurn(len(turns), turns[len(turns)-1], true)}
	} else {
		tailText = whole[keep:]
	}
	short := make([]string, keep)
	left := budget - len(head) - len(seedTail) - len(strings.Join(tailText, ""))
	for i := range keep {
		short[i] = renderTurn(i+1, turns[i], true)
		left -= len(short[i])
	}
	dropped := 0
	if left < 0 {
		left -= len(fmt.Sprintf("(turns 1 to %d are left out)\n\n", keep)) // the note says it
	}
	for left < 0 && dropped < keep {
		left += len(short[dropped])
		dropped++
	}
	var b strings.Builder
	b.WriteString(head)
	if dropped > 0 {
		fmt.Fprintf(&b, "(turns 1 to %d are left out)\n\n", dropped)
	}
	for _, s := range short[dropped:] {
		b.WriteString(s)
	}
	for _, s := range tailText {
		b.WriteString(s)
	}
	b.WriteString(seedTail)
	return Seed{Text: b.String(), Summarised: true, Turns: len(turns)}
}

func seedHead(agent string, turns int, summarised bool) string {
	with := ""
	if agent != "" {
		with = " with " + agent
	}
	what := "Its transcript"
	if summarised {
		what = "A summary of it (the earlier turns cut down)"
	}
	n := fmt.Sprintf("%d turns", turns)
	if turns == 1 {
		n = "1 turn"
	}
	return fmt.Sprintf("[parley] This conversation goes on from an earlier session%s, of %s, in this same workspace. %s follows; then the user's new message.\n\n<transcript>\n", with, n, what)
}

const seedTail = "</transcript>\n\n"

// renderTurn is one turn of the seed; short cuts it down.
func renderTurn(n int, t store.TranscriptTurn, short bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Turn %d\nUser:\n", n)
	prompt, reply := t.Prompt, t.Reply
	if short {
		prompt, reply = cut(prompt, summaryPromptChars), cut(reply, summaryReplyChars)
	}
	quote(&b, prompt)
	if len(t.Tools) > 0 {
		b.WriteString("Tool calls:\n")
		for i, tool := range t.Tools {
			if short && i == summaryTools {
				fmt.Fprintf(&b, "- (%d more)\n", len(t.Tools)-i)
				break
			}
			fmt.Fprintf(&b, "- %s (%s)\n", oneLine(tool.Title), tool.Status)
		}
	}
	b.WriteString("Agent:\n")
	quote(&b, reply)
	if t.Stop != "" && t.Stop != string(acp.StopReasonEndTurn) {
		fmt.Fprintf(&b, "(the turn ended: %s)\n", t.Stop)
	}
	b.WriteString("\n")
	return b.String()
}

func quote(b *strings.Builder, text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		b.WriteString("| \n")
		return
	}
	for _, line := range strings.Split(text, "\n") {
		b.WriteString("| " + line + "\n")
	}
}

// cut keeps the first n characters of s (at a character's boundary), saying so.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !isRuneStart(s[i]) {
		i--
	}
	return s[:i] + fmt.Sprintf(" […%d characters cut]", len(s)-i)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return cut(s, 160)
}

// TurnsOfTranscript makes the turns of a conversation from what it showed (a Snapshot's
// Transcript): a turn for each of the user's messages, with the agent's text and tool
// calls after it. Those the Snapshot dropped (it is bounded) are not there.
func TurnsOfTranscript(updates []acp.SessionUpdate) []store.TranscriptTurn {
	var out []store.TranscriptTurn
	var reply strings.Builder
	userOpen := false // the last update was the user's: a next one is the same message
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].Reply += reply.String()
		}
		reply.Reset()
	}
	for _, u := range updates {
		switch {
		case u.UserMessageChunk != nil:
			text, _ := u.UserMessageChunk.Content.AsText()
			if userOpen && len(out) > 0 {
				out[len(out)-1].Prompt += text
				continue
			}
			flush()
			out = append(out, store.TranscriptTurn{Prompt: text, Stop: string(acp.StopReasonEndTurn)})
			userOpen = true
			continue
		case u.AgentMessageChunk != nil:
			text, _ := u.AgentMessageChunk.Content.AsText()
			reply.WriteString(text)
		case u.ToolCall != nil && len(out) > 0:
			tc := u.ToolCall
			out[len(out)-1].Tools = append(out[len(out)-1].Tools, store.TranscriptTool{Title: tc.Title, Kind: string(tc.Kind), Status: string(tc.Status)})
		}
		userOpen = false
	}
	flush()
	return out
}
