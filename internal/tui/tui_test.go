package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/toolstate"
)

func TestHistoryKeepsPromptsAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history", "ws.jsonl")
	h := loadHistory(path)
	h.add("one")
	h.add("two\nlines")
	h.add("two\nlines") // not twice in a row
	h = loadHistory(path)
	if diff := cmp.Diff([]string{"one", "two\nlines"}, h.entries); diff != "" {
		t.Fatalf("entries (-want +got):\n%s", diff)
	}
	s, _ := h.prev("draft")
	s2, _ := h.prev(s)
	_, more := h.prev(s2)
	back, _ := h.next()
	draft, _ := h.next()
	if s != "two\nlines" || s2 != "one" || more || back != "two\nlines" || draft != "draft" {
		t.Errorf("browsing: %q %q %v %q %q", s, s2, more, back, draft)
	}
	if got, i := h.search("ONE", len(h.entries)); got != "one" || i != 0 {
		t.Errorf("search: %q %d", got, i)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	h := loadHistory(path)
	for i := range 2*maxHistory + 10 {
		h.add(fmt.Sprint(i))
	}
	h = loadHistory(path)
	if len(h.entries) != maxHistory || h.entries[len(h.entries)-1] != fmt.Sprint(2*maxHistory+9) {
		t.Errorf("%d entries, the last %q", len(h.entries), h.entries[len(h.entries)-1])
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != maxHistory {
		t.Errorf("the file keeps %d entries", n)
	}
}

func TestPathTokens(t *testing.T) {
	got := pathTokens(`look at @src/main.go, and 'shots/my shot.png' or shots/other\ shot.png "quoted words"`)
	want := []string{"look", "at", "@src/main.go", "and", "shots/my shot.png", "or", "shots/other shot.png", "quoted words"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPromptContentAttachesAsTheAgentAllows(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "notes.md"), []byte("# notes\n"), 0o644)
	png := filepath.Join(root, "shot.png")
	os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644)
	text := "read @notes.md and @nothing.txt and see " + png + " and plain.png"

	s := conversation.Session{Cwd: root}
	s.Agent.Capabilities.PromptCapabilities = acp.PromptCapabilities{EmbeddedContext: true, Image: true}
	blocks, labels, notes := promptContent(text, root, s.Attach)
	if len(blocks) != 3 || blocks[1].Resource == nil || blocks[2].Image == nil || blocks[2].Image.MIMEType != "image/png" {
		t.Errorf("with embedded context and images: %+v", blocks)
	}
	if diff := cmp.Diff([]string{"file notes.md", "image shot.png"}, labels); diff != "" || len(notes) != 0 {
		t.Errorf("labels (-want +got):\n%s\nnotes %q", diff, notes)
	}
	s.Agent.Capabilities.PromptCapabilities = acp.PromptCapabilities{}
	blocks, _, notes = promptContent(text, root, s.Attach)
	if len(blocks) != 3 || blocks[1].ResourceLink == nil || !strings.HasSuffix(blocks[1].ResourceLink.URI, "/notes.md") || blocks[2].ResourceLink == nil {
		t.Errorf("without capabilities, files and images are links: %+v", blocks)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "does not take images") {
		t.Errorf("notes %q", notes)
	}
}

func TestCommandCompletion(t *testing.T) {
	cmds := commandsFor([]acp.AvailableCommand{{Name: "review", Description: "review it", Input: &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "what"}}}})
	items := matchCommands("mo", cmds)
	if len(items) < 2 || items[0].label != "/mode" || items[1].label != "/model" {
		t.Errorf("mo: %+v", items)
	}
	items = matchCommands("rev", cmds)
	if len(items) == 0 || items[0].label != "/review" || !strings.Contains(items[0].desc, "‹what›") || !items[0].needsArg {
		t.Errorf("rev: %+v", items)
	}
}

// The streamed rendering (complete blocks kept, the growing one redrawn) shows the same
// lines as rendering the whole reply at once.
func TestStreamedMarkdownMatchesTheWhole(t *testing.T) {
	md := newMarkdown(true)
	r := &renderCtx{st: newStyles(true), md: md}
	text := "# Title\n\nA paragraph with **bold**.\n\n```go\nfunc f() {\n\n\treturn\n}\n```\n\n- a\n- b\n\nThe end."
	a := &agentItem{}
	for _, chunk := range strings.SplitAfter(text, " ") {
		a.append(chunk)
		a.render(r, 60)
	}
	streamed := strip(a.render(r, 60))
	whole := strip(md.render(text, 60))
	if diff := cmp.Diff(whole, streamed); diff != "" {
		t.Errorf("streamed (-whole +streamed):\n%s", diff)
	}
	a.finish()
	if diff := cmp.Diff(whole, strip(a.render(r, 60))); diff != "" {
		t.Errorf("finished (-whole +finished):\n%s", diff)
	}
}

func strip(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimRight(xansi.Strip(l), " ")
	}
	return out
}

func TestPlainWrapGrowsLikeAWholeWrap(t *testing.T) {
	var b strings.Builder
	p := plainWrap{width: 30}
	for i := range 2000 {
		s := fmt.Sprintf("%d ", i)
		b.WriteString(s)
		p.add(s)
	}
	if diff := cmp.Diff(plainLines(strings.TrimRight(b.String(), " "), 30), trimAll(p.lines())); diff != "" {
		t.Errorf("(-whole +grown):\n%s", diff)
	}
}

func trimAll(ls []string) []string {
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " ")
	}
	return ls
}

func TestTranscriptScrollsAndFinds(t *testing.T) {
	_, cv := newTestModel(40, 10)
	now := time.Now()
	for i := range 30 {
		cv.apply(conversation.Notice{Text: fmt.Sprintf("line %d", i)}, now)
	}
	cv.tr.setSize(40, 10)
	last := cv.tr.view()
	if !strings.Contains(strings.Join(last, "\n"), "line 29") {
		t.Fatalf("the end is not shown: %q", last)
	}
	cv.tr.scroll(1 << 20)
	top := strings.Join(cv.tr.view(), "\n")
	if !strings.Contains(top, "line 0") {
		t.Errorf("scrolled to the top: %q", top)
	}
	// Reading back, what is added does not move the view.
	cv.apply(conversation.Notice{Text: "line 30"}, now)
	if again := strings.Join(cv.tr.view(), "\n"); again != top {
		t.Errorf("the view moved:\n%s\n---\n%s", top, again)
	}
	if n := cv.tr.find("line 7"); n != 1 {
		t.Errorf("find: %d matches", n)
	}
	if v := strings.Join(cv.tr.view(), "\n"); !strings.Contains(v, "▶") || !strings.Contains(v, "line 7") {
		t.Errorf("the match is not shown: %q", v)
	}
}

func TestToolCallExpandsToItsInputOutputAndDiff(t *testing.T) {
	_, cv := newTestModel(80, 30)
	now := time.Now()
	turn := toolstate.NewTurn(&toolstate.TurnOptions{Root: "/w"})
	old := "a\nb\n"
	evs := turn.Apply(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "1", Title: "Edit f", Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusCompleted,
		Content: []acp.ToolCallContent{{Diff: &acp.Diff{Path: "/w/f", OldText: &old, NewText: "a\nc\n"}}}}})
	for _, ev := range evs {
		cv.apply(conversation.TurnUpdate{Turn: 1, Update: toolstate.Event{Kind: ev.Kind, Tool: ev.Tool.Clone()}}, now)
	}
	cv.tr.setSize(80, 30)
	folded := strings.Join(strip(cv.tr.view()), "\n")
	if !strings.Contains(folded, "✓") || strings.Contains(folded, "+c") {
		t.Errorf("folded:\n%s", folded)
	}
	cv.tr.toggleSelected()
	open := strings.Join(strip(cv.tr.view()), "\n")
	for _, want := range []string{"Diff /w/f (+1 −1)", "-b", "+c"} {
		if !strings.Contains(open, want) {
			t.Errorf("expanded lacks %q:\n%s", want, open)
		}
	}
}

func TestAgentTextCannotReachTheTerminal(t *testing.T) {
	_, cv := newTestModel(80, 10)
	now := time.Now()
	cv.apply(conversation.TurnUpdate{Turn: 1, Update: toolstate.Event{Kind: toolstate.TextDelta, Text: "hi \x1b]52;c;AAAA\x07 \x1b[2J there"}}, now)
	cv.tr.setSize(80, 10)
	for _, l := range cv.tr.view() {
		if strings.Contains(l, "\x1b]52") || strings.Contains(l, "\x1b[2J") {
			t.Errorf("an escape sequence of the agent's reached the screen: %q", l)
		}
	}
}

// A message of several lines typed with Ctrl+J shows whole: the editor grows with it
// instead of scrolling its first line away.
func TestComposerGrowsWithItsLines(t *testing.T) {
	c := newComposer(newStyles(true), loadHistory(""))
	c.setWidth(60)
	for i, word := range []string{"first", "second", "third"} {
		if i > 0 {
			c.update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl})
		}
		for _, r := range word {
			c.update(keyPress(r))
		}
	}
	view := xansi.Strip(c.view())
	if c.value() != "first\nsecond\nthird" || !strings.Contains(view, "first") || !strings.Contains(view, "third") {
		t.Errorf("value %q, view:\n%s", c.value(), view)
	}
}

func TestStatusLineShowsTheSessionAndItsUsage(t *testing.T) {
	m, cv := newTestModel(160, 20)
	cv.ready = true
	cv.session = conversation.Session{
		Agent:  conversation.AgentInfo{Title: "Agent X"},
		Modes:  &acp.SessionModeState{CurrentModeID: "code", AvailableModes: []acp.SessionMode{{ID: "code", Name: "Code"}}},
		Models: &acp.SessionModelState{CurrentModelID: "m1", AvailableModels: []acp.ModelInfo{{ModelID: "m1", Name: "Model One"}}},
		Usage:  &acp.UsageUpdate{Used: 50_000, Size: 200_000, Cost: &acp.Cost{Amount: 0.42, Currency: "USD"}},
	}
	cv.apply(conversation.TurnEnded{Turn: 0, StopReason: acp.StopReasonEndTurn, Usage: &acp.Usage{TotalTokens: 1500, InputTokens: 1200, OutputTokens: 300}}, time.Now())
	line := xansi.Strip(m.statusLine(cv))
	for _, want := range []string{"ready", "Agent X", "Code", "Model One", "ctx 50k/200k (25%)", "0.42 USD", "last turn 1.5k tokens (1.2k in, 300 out)", "ctrl+c ×2"} {
		if !strings.Contains(line, want) {
			t.Errorf("the status line lacks %q:\n%s", want, line)
		}
	}
}

func TestThoughtsAreFoldedAndDimmed(t *testing.T) {
	_, cv := newTestModel(80, 20)
	now := time.Now()
	cv.apply(conversation.TurnUpdate{Turn: 1, Update: toolstate.Event{Kind: toolstate.ThoughtDelta, Text: "first I look\nthen I decide"}}, now)
	cv.apply(conversation.TurnUpdate{Turn: 1, Update: toolstate.Event{Kind: toolstate.TextDelta, Text: "The answer."}}, now.Add(2*time.Second))
	cv.tr.setSize(80, 20)
	view := cv.tr.view()
	plain := strings.Join(strip(view), "\n")
	if !strings.Contains(plain, "∴ Thought for 2.0s (2 lines; ctrl+o to expand)") || strings.Contains(plain, "first I look") {
		t.Errorf("folded:\n%s", plain)
	}
	if !strings.Contains(view[0], "\x1b[") {
		t.Errorf("the thought is not styled: %q", view[0])
	}
	cv.tr.selectNext(-1)
	cv.tr.toggleSelected()
	if plain := strings.Join(strip(cv.tr.view()), "\n"); !strings.Contains(plain, "first I look") || !strings.Contains(plain, "then I decide") {
		t.Errorf("expanded:\n%s", plain)
	}
}

func TestALongPromptIsFolded(t *testing.T) {
	_, cv := newTestModel(80, 40)
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf("pasted line %d", i))
	}
	cv.apply(conversation.TurnStarted{Prompt: conversation.Prompt{ID: 1, Content: []acp.ContentBlock{acp.TextBlock(strings.Join(lines, "\n"))}}}, time.Now())
	cv.tr.setSize(80, 40)
	plain := strings.Join(strip(cv.tr.view()), "\n")
	if !strings.Contains(plain, "pasted line 9") || strings.Contains(plain, "pasted line 10\n") || !strings.Contains(plain, "… 90 more lines") {
		t.Errorf("folded:\n%s", plain)
	}
}

func TestLastCodeBlock(t *testing.T) {
	for _, tc := range []struct{ md, want string }{
		{"no code here", ""},
		{"a\n```go\nfirst\n```\nb\n~~~\nsecond\n  two\n~~~\nc", "second\n  two\n"},
		{"```\nstill open\n", "still open\n\n"},
		{"````md\n```\ninner\n```\n````", "```\ninner\n```\n"},
	} {
		if got := lastCodeBlock(tc.md); got != tc.want {
			t.Errorf("lastCodeBlock(%q) = %q, want %q", tc.md, got, tc.want)
		}
	}
}
