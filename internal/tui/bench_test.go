package tui

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/toolstate"
)

// newTestModel is a model with one conversation view that no agent feeds: tests hand it
// events as the conversation would.
func newTestModel(width, height int) (*model, *convView) {
	m := &model{ctx: context.Background(), dark: true, width: width, height: height}
	m.st = newStyles(true)
	m.md = newMarkdown(true)
	m.comp = newComposer(m.st, loadHistory(""))
	m.comp.setWidth(width)
	cv := &convView{conv: Conv{Name: "test"}, tr: newTranscript(m.st, m.md), tools: map[acp.ToolCallID]*entry{}, labels: map[int][]string{}}
	m.convs = []*convView{cv}
	return m, cv
}

// BenchmarkFloodUpdate is the update path of a flood: 100,000 chunks of a reply, arriving
// in batches of 500 (a frame's worth at the speed parley eliza floods), each batch
// applied and the screen drawn once, as the program does.
func BenchmarkFloodUpdate(b *testing.B) {
	const chunks, batch = 100_000, 500
	evs := make([]conversation.Event, chunks)
	for i := range evs {
		evs[i] = conversation.TurnUpdate{Turn: 1, Update: toolstate.Event{Kind: toolstate.TextDelta, Text: strconv.Itoa(i) + " "}}
	}
	b.ReportAllocs()
	for b.Loop() {
		m, cv := newTestModel(120, 40)
		now := time.Now()
		cv.apply(conversation.TurnStarted{Prompt: conversation.Prompt{ID: 1, Content: []acp.ContentBlock{acp.TextBlock("flood 100000")}}}, now)
		for i := 0; i < chunks; i += batch {
			for _, ev := range evs[i:min(i+batch, chunks)] {
				cv.apply(ev, now)
			}
			m.View()
		}
		cv.apply(conversation.TurnEnded{Turn: 1, StopReason: acp.StopReasonEndTurn}, now)
		m.View()
	}
	b.ReportMetric(float64(chunks), "chunks/op")
}

// BenchmarkKeyDuringLongTranscript is a key typed into the composer while a long reply is
// on screen: its cost must not grow with the transcript.
func BenchmarkKeyDuringLongTranscript(b *testing.B) {
	m, cv := newTestModel(120, 40)
	now := time.Now()
	cv.apply(conversation.TurnStarted{Prompt: conversation.Prompt{ID: 1}}, now)
	for i := range 100_000 {
		cv.apply(conversation.TurnUpdate{Turn: 1, Update: toolstate.Event{Kind: toolstate.TextDelta, Text: strconv.Itoa(i) + " "}}, now)
	}
	m.View()
	b.ReportAllocs()
	for b.Loop() {
		m.comp.update(keyPress('x'))
		m.View()
	}
}

// benchReply is a reply of the usual kinds of Markdown: headings, paragraphs with inline
// styles, lists, a code block and a table.
const benchReply = "# Summary\n\nThe change moves **startup work** to first use, so that `parley --version` " +
	"pays only for what it prints. See [the issue](https://example.com/issues/32) for the figures.\n\n" +
	"## Steps\n\n1. Measure with *inittrace*.\n2. Move each ~~table~~ map literal behind a `sync.OnceValue`.\n" +
	"   - nested item one\n   - nested item two\n3. Measure again.\n\n" +
	"```go\nvar words = sync.OnceValue(func() map[string]int {\n\treturn map[string]int{\"a\": 1}\n})\n```\n\n" +
	"> A quoted remark that runs long enough to be wrapped over more than one line of the screen.\n\n" +
	"| package | before | after |\n|---------|-------:|------:|\n| styles | 5 ms | 0 |\n| lexers | 4 ms | 0 |\n\n" +
	"---\n\nThat is all: a paragraph at the end, with some words to wrap at the width of the transcript.\n"

// BenchmarkRenderMarkdown is one reply rendered whole at 80 columns, as a finished reply
// is, by a renderer kept across renders as the transcript keeps it.
func BenchmarkRenderMarkdown(b *testing.B) {
	md := newMarkdown(true)
	text := strings.Repeat(benchReply+"\n", 4)
	b.ReportAllocs()
	for b.Loop() {
		md.render(text, 80)
	}
}
