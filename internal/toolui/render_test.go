package toolui

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/toolstate"
)

var (
	_ Renderer = (*TextRenderer)(nil)
	_ Renderer = (*MarkdownRenderer)(nil)
	_ Renderer = (*JSONEncoder)(nil)
)

// busyCall is a call that sends many updates of every kind while it runs, interleaved
// with text and another call: the updates a renderer must not turn into repeated blocks.
func busyCall(t *testing.T) []acp.SessionUpdate {
	var us []acp.SessionUpdate
	add := func(s string) { us = append(us, update(t, s)) }
	add(`{"sessionUpdate":"tool_call","toolCallId":"x","title":"Bash","kind":"execute","status":"pending","rawInput":{"command":"make all"}}`)
	add(`{"sessionUpdate":"tool_call_update","toolCallId":"x","status":"in_progress","content":[{"type":"terminal","terminalId":"t1"}]}`)
	for i := range 30 {
		add(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":"x","status":"in_progress","content":[{"type":"terminal","terminalId":"t1"},{"type":"content","content":{"type":"text","text":"output line %d"}}],"rawOutput":{"n":%d}}`, i, i))
		if i%10 == 0 {
			add(fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"still building %d\n"}}`, i))
			add(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"r%d","title":"Read","kind":"read","status":"in_progress","locations":[{"path":"/p/f%d.go"}]}`, i, i))
			add(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":"r%d","status":"completed"}`, i))
		}
		if i == 15 {
			add(`{"sessionUpdate":"tool_call_update","toolCallId":"x","title":"Build everything","locations":[{"path":"/p/Makefile"}]}`)
		}
	}
	add(`{"sessionUpdate":"tool_call_update","toolCallId":"x","status":"completed","content":[{"type":"content","content":{"type":"text","text":"output line final"}}]}`)
	add(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Built."}}`)
	return us
}

func renderAll(t *testing.T, r Renderer, us []acp.SessionUpdate) {
	t.Helper()
	turn := toolstate.NewTurn(nil)
	for _, u := range us {
		for _, ev := range turn.Apply(u) {
			if err := r.Render(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := r.EndTurn(acp.StopReasonEndTurn); err != nil {
		t.Fatal(err)
	}
}

func linesWith(out, s string) int {
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// TestToolCallIsNeverPrintedTwice checks the rule for pipes and logs: a call gets one
// line when it starts and one when it is done, however many updates it has, and its
// output is never printed.
func TestToolCallIsNeverPrintedTwice(t *testing.T) {
	us := busyCall(t)
	var plain, md, live bytes.Buffer
	renderAll(t, NewTextRenderer(&plain, nil), us)
	renderAll(t, NewMarkdownRenderer(&md), us)
	renderAll(t, NewTextRenderer(&live, &TextOptions{Live: true, Color: true, Width: 100}), us)
	screen := emulate(live.String(), 100)
	for name, out := range map[string]string{"plain": plain.String(), "markdown": md.String()} {
		if n := linesWith(out, "make all"); n != 2 {
			t.Errorf("%s: %d lines about the call, want 2 (start, done):\n%s", name, n, out)
		}
		if strings.Contains(out, "output line") {
			t.Errorf("%s: the call's output was printed:\n%s", name, out)
		}
	}
	// Live, the call's line is rewritten where it is; text that followed it leaves it as
	// history, so it ends with the line it had then and one line when done.
	if n := linesWith(screen, "make all"); n != 2 {
		t.Errorf("live screen: %d lines about the call, want 2:\n%s", n, screen)
	}
	if n := linesWith(screen, "f10.go"); n != 1 {
		t.Errorf("live screen: %d lines about a read, want 1:\n%s", n, screen)
	}
	if strings.Contains(screen, "⠋") || strings.Contains(screen, "output line") {
		t.Errorf("live screen shows a stopped spinner or the output:\n%s", screen)
	}
}

func TestLiveBlockRewritesInPlace(t *testing.T) {
	var out bytes.Buffer
	r := NewTextRenderer(&out, &TextOptions{Live: true, Width: 60})
	turn := toolstate.NewTurn(nil)
	apply := func(s string) {
		for _, ev := range turn.Apply(update(t, s)) {
			r.Render(ev)
		}
	}
	for i := range 5 {
		apply(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"%d","title":"Read","kind":"read","status":"in_progress","locations":[{"path":"/f%d"}]}`, i, i))
	}
	for range 12 {
		r.Tick()
	}
	for i := range 5 {
		apply(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":"%d","status":"completed"}`, 4-i))
	}
	r.EndTurn(acp.StopReasonEndTurn)
	want := "✓ Read `/f0`\n✓ Read `/f1`\n✓ Read `/f2`\n✓ Read `/f3`\n✓ Read `/f4`\n"
	if got := emulate(out.String(), 60); got != want {
		t.Errorf("screen:\n%s\nwant:\n%s", got, want)
	}
}

func TestLiveLinesFitTheWidth(t *testing.T) {
	var out bytes.Buffer
	r := NewTextRenderer(&out, &TextOptions{Live: true, Width: 30})
	turn := toolstate.NewTurn(nil)
	long := strings.Repeat("very ", 20)
	for _, ev := range turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"1","title":"Run a `+long+`long job","kind":"execute","status":"in_progress"}`)) {
		r.Render(ev)
	}
	r.Tick()
	screen := emulate(out.String(), 30)
	if lines := strings.Count(screen, "\n"); lines != 1 {
		t.Errorf("a long line took %d rows:\n%s", lines, screen)
	}
	if !strings.HasSuffix(strings.TrimSpace(screen), "…") {
		t.Errorf("the cut is not marked: %q", screen)
	}
}

func TestTextFromTheAgentCannotDriveTheTerminal(t *testing.T) {
	var out bytes.Buffer
	r := NewTextRenderer(&out, &TextOptions{Color: true})
	turn := toolstate.NewTurn(nil)
	for _, s := range []string{
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a\u001b]52;c;ZXZpbA==\u0007b\r\n"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"1","title":"Run \u001b[2J now","kind":"execute"}`,
	} {
		for _, ev := range turn.Apply(update(t, s)) {
			r.Render(ev)
		}
	}
	// The renderer's own colors start with ESC [ and a digit; nothing else may.
	got := out.String()
	for i := strings.IndexByte(got, 0x1b); i >= 0; i = strings.IndexByte(got, 0x1b) {
		if !strings.HasPrefix(got[i:], "\x1b[0m") && !strings.HasPrefix(got[i:], "\x1b[3") {
			t.Fatalf("an escape from the agent got through: %q", out.String())
		}
		got = got[i+1:]
	}
	if strings.ContainsAny(out.String(), "\a\r") {
		t.Errorf("control characters got through: %q", out.String())
	}
	if !strings.Contains(out.String(), "a␛]52;c;ZXZpbA==␇b") {
		t.Errorf("the escape sequence is not shown for what it is: %q", out.String())
	}
}

// Every renderer that prints the agent's text shows C1 and bidi controls for what they
// are (issue 12, case 6).
func TestRenderersShowControls(t *testing.T) {
	updates := []string{
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"csi \u009b2J and \u202egnp.exe \u001b[31m"}}`,
		`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"think \u2066x\u2069"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"1","title":"Run \u202e\u001b[2J","kind":"execute"}`,
		`{"sessionUpdate":"plan","entries":[{"content":"step \u009b","priority":"high","status":"pending"}]}`,
	}
	for name, newRenderer := range map[string]func(*bytes.Buffer) Renderer{
		"text":     func(b *bytes.Buffer) Renderer { return NewTextRenderer(b, nil) },
		"live":     func(b *bytes.Buffer) Renderer { return NewTextRenderer(b, &TextOptions{Live: true, Width: 200}) },
		"markdown": func(b *bytes.Buffer) Renderer { return NewMarkdownRenderer(b) },
	} {
		var out bytes.Buffer
		r := newRenderer(&out)
		turn := toolstate.NewTurn(nil)
		for _, s := range updates {
			for _, ev := range turn.Apply(update(t, s)) {
				r.Render(ev)
			}
		}
		r.EndTurn(acp.StopReasonEndTurn)
		got := out.String()
		for _, raw := range []string{"\u009b", "\u202e", "\u2066", "\x1b[31m", "\x1b[2J"} {
			if strings.Contains(got, raw) {
				t.Errorf("%s: %q got through: %q", name, raw, got)
			}
		}
		for _, shown := range []string{"<U+009B>2J", "<U+202E>gnp.exe", "␛[31m", "<U+2066>x<U+2069>"} {
			if !strings.Contains(got, shown) {
				t.Errorf("%s: %q is not shown: %q", name, shown, got)
			}
		}
	}
}

// The JSON encoder's lines are data, kept lossless, but hold no raw C1 control or bidi
// override: a terminal or a log viewer shown them is not driven by the agent's text.
func TestJSONEscapesInvisibleCharacters(t *testing.T) {
	updates := []string{
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"csi \u009b2J and \u202egnp.exe \u2066x\u2069 \u200b"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"1","title":"Run \u202e\u001b[2J","kind":"execute"}`,
	}
	var out bytes.Buffer
	r := NewJSONEncoder(&out)
	turn := toolstate.NewTurn(nil)
	for _, s := range updates {
		for _, ev := range turn.Apply(update(t, s)) {
			r.Render(ev)
		}
	}
	got := out.String()
	for _, raw := range []string{"\u009b", "\u202e", "\u2066", "\u2069", "\u200b", "\x1b"} {
		if strings.Contains(got, raw) {
			t.Errorf("%q got through: %q", raw, got)
		}
	}
	var first struct{ Text string }
	if err := json.Unmarshal([]byte(strings.SplitN(got, "\n", 2)[0]), &first); err != nil {
		t.Fatal(err)
	}
	if want := "csi \u009b2J and \u202egnp.exe \u2066x\u2069 \u200b"; first.Text != want {
		t.Errorf("the text decodes to %q, want %q: the escape must lose nothing", first.Text, want)
	}
}

func TestTextResumesOnAFreshLine(t *testing.T) {
	var out bytes.Buffer
	r := NewTextRenderer(&out, nil)
	turn := toolstate.NewTurn(nil)
	for _, s := range []string{
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Looking"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"1","title":"ls","kind":"execute","status":"completed"}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Found it"}}`,
		`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}`,
	} {
		for _, ev := range turn.Apply(update(t, s)) {
			r.Render(ev)
		}
	}
	r.EndTurn(acp.StopReasonEndTurn)
	want := "Looking\n✓ Ran `ls`\nFound it\n│ hm\nok\n"
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("pipe closed")
	}
	w.n--
	return len(p), nil
}

func TestWriteErrorsStick(t *testing.T) {
	for name, r := range map[string]Renderer{
		"text":     NewTextRenderer(&failingWriter{n: 1}, nil),
		"markdown": NewMarkdownRenderer(&failingWriter{n: 1}),
		"json":     NewJSONEncoder(&failingWriter{n: 1}),
	} {
		ev := toolstate.Event{Kind: toolstate.TextDelta, Text: "x"}
		if err := r.Render(ev); err != nil {
			t.Fatalf("%s: first write: %v", name, err)
		}
		if err := r.Render(ev); err == nil {
			t.Errorf("%s: a failed write reported no error", name)
		}
		if err := r.EndTurn(acp.StopReasonEndTurn); err == nil {
			t.Errorf("%s: the error did not stick", name)
		}
	}
}

// textChunk is a typical streamed piece of a reply.
var textChunk = acp.AgentMessageChunk(acp.TextBlock("Here is the next piece of the answer, with `code`. "))

// turnWithCalls returns a Turn that has seen n finished tool calls: text must not get
// slower as a turn gets longer.
func turnWithCalls(t testing.TB, n int) *toolstate.Turn {
	turn := toolstate.NewTurn(nil)
	for i := range n {
		turn.Apply(update(t, fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"%d","title":"Read","kind":"read","status":"completed","locations":[{"path":"/f%d"}]}`, i, i)))
	}
	return turn
}

func renderers(w io.Writer) map[string]Renderer {
	return map[string]Renderer{
		"plain":    NewTextRenderer(w, nil),
		"live":     NewTextRenderer(w, &TextOptions{Live: true, Color: true}),
		"markdown": NewMarkdownRenderer(w),
	}
}

func TestTextChunkDoesNotAllocate(t *testing.T) {
	for name, r := range renderers(io.Discard) {
		turn := turnWithCalls(t, 1000)
		allocs := testing.AllocsPerRun(1000, func() {
			for _, ev := range turn.Apply(textChunk) {
				r.Render(ev)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per text chunk, want 0", name, allocs)
		}
	}
}

// BenchmarkTextChunk is the hot path of a long reply: Apply and render one text chunk,
// in a turn that already has 0 or 1000 tool calls.
func BenchmarkTextChunk(b *testing.B) {
	for _, calls := range []int{0, 1000} {
		for _, name := range []string{"plain", "live", "markdown"} {
			b.Run(fmt.Sprintf("%s/calls=%d", name, calls), func(b *testing.B) {
				turn := turnWithCalls(b, calls)
				r := renderers(io.Discard)[name]
				b.ReportAllocs()
				for b.Loop() {
					for _, ev := range turn.Apply(textChunk) {
						r.Render(ev)
					}
				}
			})
		}
	}
	b.Run("json", func(b *testing.B) {
		turn := toolstate.NewTurn(nil)
		r := NewJSONEncoder(io.Discard)
		b.ReportAllocs()
		for b.Loop() {
			for _, ev := range turn.Apply(textChunk) {
				r.Render(ev)
			}
		}
	})
}

// BenchmarkToolUpdate is one status change of a running call, rendered live.
func BenchmarkToolUpdate(b *testing.B) {
	turn := turnWithCalls(b, 10)
	r := NewTextRenderer(io.Discard, &TextOptions{Live: true, Color: true})
	start := update(b, `{"sessionUpdate":"tool_call","toolCallId":"x","title":"Bash","kind":"execute","status":"pending","rawInput":{"command":"go test ./..."}}`)
	running := update(b, `{"sessionUpdate":"tool_call_update","toolCallId":"x","status":"in_progress"}`)
	pending := update(b, `{"sessionUpdate":"tool_call_update","toolCallId":"x","status":"pending"}`)
	for _, ev := range turn.Apply(start) {
		r.Render(ev)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, ev := range turn.Apply(running) {
			r.Render(ev)
		}
		for _, ev := range turn.Apply(pending) {
			r.Render(ev)
		}
	}
}

// The messages of a structured tool part (VS Code shows them) are made safe too; the
// agent's own title stays as sent.
func TestToolCallPartMessagesAreSafe(t *testing.T) {
	turn := toolstate.NewTurn(nil)
	evs := turn.Apply(update(t, `{"sessionUpdate":"tool_call","toolCallId":"1","title":"Run \u202e\u001b[2J","kind":"execute"}`))
	if len(evs) == 0 || evs[len(evs)-1].Tool == nil {
		t.Fatalf("no tool event: %+v", evs)
	}
	b, err := ToolCallPart("tool_invocation", evs[len(evs)-1].Tool)
	if err != nil {
		t.Fatal(err)
	}
	var part struct {
		Title      string `json:"title"`
		Invocation string `json:"invocationMessage"`
	}
	if err := json.Unmarshal(b, &part); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(part.Invocation, "\u202e\x1b") || !strings.Contains(part.Invocation, "<U+202E>␛[2J") {
		t.Errorf("invocation message %q", part.Invocation)
	}
	if part.Title != "Run \u202e\x1b[2J" {
		t.Errorf("title %q: the agent's data changed", part.Title)
	}
}

// update decodes one session update written as JSON.
func update(t testing.TB, s string) acp.SessionUpdate {
	t.Helper()
	var u acp.SessionUpdate
	if err := json.Unmarshal([]byte(s), &u); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return u
}

// On a narrow terminal a refused call's line keeps how it ended; its command is cut
// first.
func TestNarrowLineKeepsTheOutcome(t *testing.T) {
	var out bytes.Buffer
	r := NewTextRenderer(&out, &TextOptions{Live: true, Width: 60})
	turn := toolstate.NewTurn(nil)
	req := &acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{ToolCallID: "1", Kind: acp.ToolKindExecute,
		RawInput: []byte(`{"command":"rm -rf ../victim ../and/a/much/longer/list/of/other/directories/too"}`)},
		Options: []acp.PermissionOption{{OptionID: "n", Kind: acp.PermissionOptionKindRejectOnce}}}
	updated, _ := turn.Decide(req, acp.SelectedOutcome("n"), "no_one_to_ask")
	r.Render(updated)
	r.EndTurn(acp.StopReasonEndTurn)
	screen := emulate(out.String(), 60)
	if !strings.Contains(screen, "— not run: refused (no one to ask)") || !strings.Contains(screen, "rm -rf") {
		t.Errorf("the refused call's line at 60 columns:\n%s", screen)
	}
}
