package coder

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\tfunc handler%d(w http.ResponseWriter, r *http.Request) { serve(w, r, %d) }\n", i, i, i)
	}
	return b.String()
}

func TestCutToFitSaysWhichLinesToReadNext(t *testing.T) {
	cal := &calibration{}
	text := numbered(1, 400)
	cut := cutToFit(text, 500, "read_file", cal)
	if got := cal.estimate(rawTokens(cut)); got > 550 {
		t.Errorf("cut to %d tokens, want about 500", got)
	}
	if !strings.HasPrefix(cut, "     1\t") || !strings.HasSuffix(cut, "serve(w, r, 400) }\n") {
		t.Errorf("the head or the tail is gone:\n%s", cut)
	}
	// The note names the lines that are missing, which are exactly those between the
	// last line of the head and the first of the tail.
	var first, last int
	if _, err := fmt.Sscanf(cut[strings.Index(cut, "start_line="):], "start_line=%d, end_line=%d", &first, &last); err != nil {
		t.Fatalf("no line range in the note: %v\n%s", err, cut)
	}
	if !strings.Contains(cut, fmt.Sprintf("%6d\t", first-1)) || strings.Contains(cut, fmt.Sprintf("%6d\t", first)) ||
		!strings.Contains(cut, fmt.Sprintf("%6d\t", last+1)) || strings.Contains(cut, fmt.Sprintf("%6d\t", last)) {
		t.Errorf("the note says lines %d-%d are missing:\n%s", first, last, cut)
	}
	if short := numbered(1, 3); cutToFit(short, 500, "read_file", cal) != short {
		t.Error("a text that fits was changed")
	}
}

func TestCutToFitAdvisesByTool(t *testing.T) {
	cal := &calibration{}
	lines := strings.Repeat("ok  \tgithub.com/x/y\t0.01s\n", 500)
	if cut := cutToFit(lines, 200, "run_terminal_command", cal); !strings.Contains(cut, "narrower command") {
		t.Errorf("command output note: %q", cut[:200])
	}
	huge := strings.Repeat("ä", 50000) // one line, two bytes a letter
	cut := cutToFit(huge, 200, "", cal)
	if !utf8.ValidString(cut) || !strings.Contains(cut, "characters left out") || len(cut) > len(huge)/4 {
		t.Errorf("one long line cut to %d bytes, valid %v", len(cut), utf8.ValidString(cut))
	}
}

func TestWindowSize(t *testing.T) {
	for _, c := range []struct {
		name    string
		user    int
		limit   int
		ollama  bool
		want    int
		assumed bool
	}{
		{"ollama reports a small model", 0, 4096, true, 4096, false},
		{"ollama reports a large model", 0, 131072, true, defaultOllamaWindow, false},
		{"--context within the limit", 32768, 131072, true, 32768, false},
		{"--context beyond the limit", 65536, 32768, true, 32768, false},
		{"ollama without a limit", 0, 0, true, ollamaUnknownWindow, true},
		{"openai reports its window", 0, 4096, false, 4096, false},
		{"openai large, nothing to choose", 0, 131072, false, 131072, false},
		{"openai says nothing", 0, 0, false, assumedOpenAIWindow, true},
		{"openai says nothing, --context does", 12000, 0, false, 12000, false},
	} {
		w := newWindow(c.user, llm.ModelInfo{ContextLength: c.limit}, c.ollama)
		if w.Size() != c.want || w.assumed != c.assumed {
			t.Errorf("%s: size %d assumed %v, want %d %v", c.name, w.Size(), w.assumed, c.want, c.assumed)
		}
	}
}

func TestNumCtxGrowsByDoublingsAndNeverShrinks(t *testing.T) {
	w := newWindow(32768, llm.ModelInfo{ContextLength: 131072}, true)
	var got []int
	for _, prompt := range []int{500, 3500, 9000, 2000, 20000} { // the budget is 24576
		req := &llm.Request{}
		w.request(req, prompt)
		if req.NumPredict < minReplyRoom || prompt+req.NumPredict != req.NumCtx {
			t.Errorf("prompt %d: num_ctx %d num_predict %d", prompt, req.NumCtx, req.NumPredict)
		}
		got = append(got, req.NumCtx)
	}
	want := []int{4096, 8192, 16384, 16384, 32768}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("num_ctx %v, want %v", got, want)
	}
	req := &llm.Request{}
	newWindow(0, llm.ModelInfo{ContextLength: 8192}, false).request(req, 100)
	if req.NumCtx != 0 || req.NumPredict != 0 {
		t.Errorf("an OpenAI-compatible request was given num_ctx %d num_predict %d", req.NumCtx, req.NumPredict)
	}
}

func TestObserveSharesTheServersCount(t *testing.T) {
	cal := &calibration{}
	conv := &conversation{messages: []llm.Message{
		{Role: "user", Content: "read main.go"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: []byte(`{"path":"main.go"}`)}}},
		{Role: "tool", Content: numbered(1, 50)},
	}}
	fp := newFixedPart("You are a coding agent.", nil)
	conv.observe(fp, 1, 40, cal)
	if conv.fixed+conv.messages[0].Tokens != 40 {
		t.Errorf("first prompt: fixed %d + user %d != 40", conv.fixed, conv.messages[0].Tokens)
	}
	if cal.observed != 0 {
		t.Error("a count of the system prompt and tools calibrated the estimate of messages")
	}
	conv.observe(fp, 3, 40+900, cal)
	if n := conv.messages[1].Tokens + conv.messages[2].Tokens; n != 900 {
		t.Errorf("the new messages got %d tokens of the 900 the server counted", n)
	}
	if cal.observed != 1 || conv.size(fp, conv.messages, cal) != 940 {
		t.Errorf("observed %d, size %d", cal.observed, conv.size(fp, conv.messages, cal))
	}
	// A count that cannot be right (a server reporting only what its cache lacked) is
	// not learned from.
	conv.messages = append(conv.messages, llm.Message{Role: "assistant", Content: strings.Repeat("word ", 200)})
	conv.observe(fp, 4, 945, cal)
	if conv.messages[3].Tokens != 0 || cal.observed != 1 {
		t.Errorf("an implausible count was taken: %d", conv.messages[3].Tokens)
	}
}

func TestFirstToKeep(t *testing.T) {
	u := func(s string) llm.Message { return llm.Message{Role: "user", Content: s} }
	a := llm.Message{Role: "assistant"}
	tool := llm.Message{Role: "tool"}
	for _, c := range []struct {
		name string
		msgs []llm.Message
		task int
		want int
	}{
		{"a new task", []llm.Message{u("old"), a, u("task")}, 2, 2},
		{"results the model has not seen", []llm.Message{u("old"), a, u("task"), a, tool, tool}, 2, 3},
		{"a problem note after results", []llm.Message{u("task"), a, tool, u("note")}, 0, 1},
		{"nothing pending", []llm.Message{u("task"), a, tool, a}, 0, 4},
		{"no task (/compact)", []llm.Message{u("task"), a}, -1, 2},
	} {
		if got := firstToKeep(c.msgs, c.task); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// TestCompactionWithoutASummaryKeepsTheUsersWords: when the model cannot summarize,
// what the user said in the older part is kept instead of a summary.
func TestCompactionWithoutASummaryKeepsTheUsersWords(t *testing.T) {
	model := func(rec *fakellm.Recorded) *fakellm.Reply {
		if strings.HasPrefix(rec.Messages[0].Content, "You are compacting") {
			return &fakellm.Reply{Status: 500, ErrorBody: "out of memory"}
		}
		return &fakellm.Reply{Content: []string{"Noted. " + strings.Repeat("More words here. ", 150)}}
	}
	h := startModel(t, "ollama", llm.ModelInfo{ContextLength: 4096, Tools: true}, Options{}, fakellm.Reply{Answer: model, Reuse: true})
	h.prompt(t.Context(), "My cat is called Miso.")
	for i := range 8 {
		if stop := h.prompt(t.Context(), fmt.Sprintf("Tell me more, part %d.", i)); stop != acp.StopReasonEndTurn {
			t.Fatalf("stop %q", stop)
		}
	}
	reqs := h.fake.Requests()
	last := reqs[len(reqs)-1]
	if !last.Contains("could not summarize") || !last.Contains("My cat is called Miso.") {
		t.Errorf("the last request lost what the user said: %+v", last.Messages)
	}
	if last.PromptTokens > 3072 {
		t.Errorf("the last request took %d tokens", last.PromptTokens)
	}
	said := false
	for _, c := range h.toolCalls() {
		for _, content := range c.Content {
			if content.Content == nil {
				continue
			}
			if text, _ := content.Content.Content.AsText(); strings.Contains(text, "out of memory") {
				said = true
			}
		}
	}
	if !said {
		t.Error("the compaction note does not say why there is no summary")
	}
}

// TestTextPathStaysInsideTheWindow: a model without native tools gets the tools in the
// system prompt and its results in user messages; those are cut and compacted the same.
func TestTextPathStaysInsideTheWindow(t *testing.T) {
	model := func(rec *fakellm.Recorded) *fakellm.Reply {
		if strings.HasPrefix(rec.Messages[0].Content, "You are compacting") {
			return &fakellm.Reply{Content: []string{"The user asked for reads of big.txt."}}
		}
		last := rec.Messages[len(rec.Messages)-1]
		if strings.HasPrefix(last.Content, "<tool_result") {
			return &fakellm.Reply{Content: []string{"Read it. [TASK_COMPLETE]"}}
		}
		return &fakellm.Reply{Content: []string{`<tool_call>{"name":"read_file","arguments":{"path":"big.txt"}}</tool_call>`}}
	}
	h := startModel(t, "ollama", llm.ModelInfo{ContextLength: 4096}, Options{}, fakellm.Reply{Answer: model, Reuse: true})
	if err := os.WriteFile(filepath.Join(h.dir, "big.txt"), []byte(numbered(1, 600)), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 15 {
		if stop := h.prompt(t.Context(), fmt.Sprintf("Read big.txt again (%d).", i)); stop != acp.StopReasonEndTurn {
			t.Fatalf("turn %d: stop %q", i, stop)
		}
	}
	summaries := 0
	for _, r := range h.fake.Requests() {
		if !strings.Contains(r.Path, "chat") {
			continue
		}
		if r.Truncated || r.PromptTokens > 3072 || r.NumCtx != 4096 {
			t.Errorf("a request of %d tokens, num_ctx %d", r.PromptTokens, r.NumCtx)
		}
		if strings.HasPrefix(r.Messages[0].Content, "You are compacting") {
			summaries++
		}
		if _, ok := r.Body["tools"]; ok {
			t.Error("tools were sent to a model without native tools")
		}
	}
	if summaries == 0 {
		t.Error("never compacted")
	}
}
