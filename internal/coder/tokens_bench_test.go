package coder

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// The token estimate against real tokenizers, on a recorded conversation of the agent:
// testdata/tokens/conversation.json holds the requests of one session (the system
// prompt, the tool definitions, and the messages each request carried) and, for each
// request, the prompt's size as two models' servers count it, rendered through their
// chat templates: Qwen 2.5/3 (ChatML) and Llama 3.1. testdata/tokens/count.mjs computes
// those counts with the models' own tokenizers; -record-conversation records the
// session anew (then run count.mjs).
//
//	go test -run '^$' -bench TokenEstimate ./internal/coder/

var recordConversation = flag.Bool("record-conversation", false, "record testdata/tokens/conversation.json from a scripted session")

// recordedConversation is the file's shape.
type recordedConversation struct {
	System   string          `json:"system"`
	Tools    []llm.Tool      `json:"tools"`
	Messages []llm.Message   `json:"messages"`
	Requests []recordedCount `json:"requests"`
}

type recordedCount struct {
	Messages int            `json:"messages"` // the request carried Messages[:Messages]
	Tokens   map[string]int `json:"tokens"`   // tokenizer → the prompt's size
}

const conversationFile = "testdata/tokens/conversation.json"

func loadConversation(t testing.TB) recordedConversation {
	data, err := os.ReadFile(conversationFile)
	if err != nil {
		t.Fatal(err)
	}
	var c recordedConversation
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Requests) == 0 || len(c.Requests[0].Tokens) == 0 {
		t.Fatalf("%s has no counts: run testdata/tokens/count.mjs", conversationFile)
	}
	return c
}

// estimateErrors replays the conversation for one tokenizer: each request's size as
// the agent estimates it before sending, against the server's count, in percent of the
// count. Calibrated, the agent knows the counts of the earlier requests (it learns each
// from the reply); uncalibrated, it has only the heuristic. It returns the mean error,
// the largest after the first request, and the first request's (the system prompt and
// tools, which the chat template wraps in text of its own, before any count is known).
func estimateErrors(c recordedConversation, tokenizer string, calibrated bool) (mean, worst, first float64) {
	cal := &calibration{}
	conv := &conversation{messages: append([]llm.Message(nil), c.Messages...)}
	for i := range conv.messages {
		conv.messages[i].Tokens = 0
	}
	fp := newFixedPart(c.System, c.Tools)
	sum := 0.0
	for i, r := range c.Requests {
		actual := float64(r.Tokens[tokenizer])
		est := float64(conv.size(fp, conv.messages[:r.Messages], cal))
		e := math.Abs(est-actual) / actual * 100
		sum += e
		if i == 0 {
			first = e
		} else {
			worst = max(worst, e)
		}
		if calibrated {
			conv.observe(fp, r.Messages, r.Tokens[tokenizer], cal)
		}
	}
	return sum / float64(len(c.Requests)), worst, first
}

func BenchmarkTokenEstimate(b *testing.B) {
	c := loadConversation(b)
	for _, tok := range []string{"qwen", "llama3"} {
		b.Run(tok, func(b *testing.B) {
			var raw, cal, calWorst, first float64
			for b.Loop() {
				raw, _, _ = estimateErrors(c, tok, false)
				cal, calWorst, first = estimateErrors(c, tok, true)
			}
			b.ReportMetric(raw, "heuristic-err%")
			b.ReportMetric(cal, "err%")
			b.ReportMetric(calWorst, "worst-err%")
			b.ReportMetric(first, "first-err%")
		})
	}
}

// TestTokenEstimateIsClose keeps the estimate honest: calibrated on the server's
// counts, it stays within a few percent of them.
func TestTokenEstimateIsClose(t *testing.T) {
	c := loadConversation(t)
	for _, tok := range []string{"qwen", "llama3"} {
		raw, _, _ := estimateErrors(c, tok, false)
		cal, worst, first := estimateErrors(c, tok, true)
		t.Logf("%s: heuristic alone %.1f%%; calibrated %.1f%%, at worst %.1f%% after the first request (%.1f%%)", tok, raw, cal, worst, first)
		if cal > 5 || worst > 15 || raw > 15 || first > 30 {
			t.Errorf("%s: the estimate is off by %.1f%% (calibrated %.1f%%, worst %.1f%%, first %.1f%%)", tok, raw, cal, worst, first)
		}
	}
}

// TestRecordConversation records the session the benchmark replays: an agent reading,
// searching and editing real source files of this repository, running commands, and
// replying in prose, over a window large enough that nothing is compacted.
func TestRecordConversation(t *testing.T) {
	if !*recordConversation {
		t.Skip("-record-conversation records testdata/tokens/conversation.json")
	}
	script := []fakellm.Reply{
		{Content: []string{"Let me look at the executor first."}, ToolCalls: []llm.ToolCall{call("read_file", `{"path":"executor.go"}`)}},
		{ToolCalls: []llm.ToolCall{call("search_workspace", `{"pattern":"func \\w+\\(","glob":"*.go"}`)}},
		{Content: []string{"The executor runs the loop: it asks the model, collects the calls, runs them and feeds the results back. `run` stops on the completion marker, on a loop of identical calls, or at the turn limit. [TASK_COMPLETE]"}},
		{ToolCalls: []llm.ToolCall{call("read_file", `{"path":"openai.go","start_line":1,"end_line":120}`)}},
		{ToolCalls: []llm.ToolCall{call("run_terminal_command", `{"command":"wc -l *.go *.md && ls -la"}`)}},
		{Content: []string{"openai.go decodes server-sent events: each `data:` line is a JSON chunk; tool calls arrive as deltas keyed by index and are emitted once complete. There are 4 Go files here, about 1,000 lines in all. [TASK_COMPLETE]"}},
		{ToolCalls: []llm.ToolCall{call("read_file", `{"path":"README.md"}`)}},
		{Content: []string{"Le README explique comment lancer `parley run` et `parley chat` ; il décrit aussi les permissions (règles, « toujours », niveaux de risque). [TASK_COMPLETE]"}},
		{ToolCalls: []llm.ToolCall{call("edit_file", `{"path":"executor.go","old_string":"var editVerbs","new_string":"// editVerbs: see the nudge below.\nvar editVerbs"}`)}},
		{ToolCalls: []llm.ToolCall{call("run_terminal_command", `{"command":"grep -n editVerbs executor.go; cat go.mod"}`)}},
		{Content: []string{"我已经在 editVerbs 前面加了一行注释。The comment is in place and go.mod is unchanged. [TASK_COMPLETE]"}},
		{ToolCalls: []llm.ToolCall{call("read_file", `{"path":"toolcall.go"}`)}},
		{Content: []string{"toolcall.go parses tool calls written in text:\n\n```go\ncalls, problems, trailing := parser.Finish()\n```\n\nIt repairs JSON cut off at the end (a missing `}` or quote) and maps aliases such as `bash` to `run_terminal_command`. [TASK_COMPLETE]"}},
	}
	h := startModel(t, "ollama", llm.ModelInfo{ContextLength: 32768, Tools: true}, Options{Context: 32768}, script...)
	for _, name := range []string{"internal/coder/executor.go", "internal/llm/openai.go", "README.md", "go.mod", "internal/toolcall/toolcall.go"} {
		data, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(h.dir, filepath.Base(name)), data, 0o644)
	}
	for _, p := range []string{
		"Explain what executor.go does, briefly.",
		"Now look at openai.go: how does it read the stream? And how big is this directory?",
		"Résume le README en une phrase, s'il te plaît.",
		"Add a one-line comment above editVerbs in executor.go, then show me go.mod.",
		"Last one: what does toolcall.go do?",
	} {
		if stop := h.prompt(t.Context(), p); stop != acp.StopReasonEndTurn {
			t.Fatalf("%q ended %q", p, stop)
		}
	}
	var rec recordedConversation
	for _, r := range h.fake.Requests() {
		if !strings.Contains(r.Path, "chat") {
			continue
		}
		rec.System = r.Messages[0].Content
		rec.Messages = r.Messages[1:]
		rec.Requests = append(rec.Requests, recordedCount{Messages: len(r.Messages) - 1})
		rec.Tools = nil
		for _, tool := range r.Tools {
			params, _ := json.Marshal(tool.Parameters)
			rec.Tools = append(rec.Tools, llm.Tool{Name: tool.Name, Description: tool.Description, Parameters: params})
		}
	}
	for i := range rec.Messages {
		rec.Messages[i].Tokens = 0
	}
	data, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	// The workspace was a temporary directory of this machine: the file names a neutral one.
	data = bytes.ReplaceAll(data, []byte(h.dir), []byte("/home/user/project"))
	os.MkdirAll(filepath.Dir(conversationFile), 0o755)
	if err := os.WriteFile(conversationFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d requests, %d messages: now run testdata/tokens/count.mjs", len(rec.Requests), len(rec.Messages))
}
