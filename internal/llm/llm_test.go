package llm_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

var dialects = []string{"ollama", "openai"}

func provider(t testing.TB, dialect string, s *fakellm.Server) llm.Provider {
	url := s.URL()
	if dialect == "openai" {
		url = s.OpenAIURL()
	}
	p, model, err := llm.New(dialect+":m:7b", url, "")
	if err != nil || model != "m:7b" {
		t.Fatalf("New: %v, %q", err, model)
	}
	return p
}

// collect runs Chat and merges the chunks.
func collect(t *testing.T, p llm.Provider, req *llm.Request) (llm.Chunk, error) {
	t.Helper()
	var all llm.Chunk
	done := 0
	err := p.Chat(context.Background(), req, func(c llm.Chunk) error {
		all.Content += c.Content
		all.Thinking += c.Thinking
		all.ToolCalls = append(all.ToolCalls, c.ToolCalls...)
		if c.Done {
			done++
			all.Done, all.Usage = true, c.Usage
		}
		return nil
	})
	if err == nil && done != 1 {
		t.Errorf("got %d Done chunks, want 1", done)
	}
	return all, err
}

var tools = []llm.Tool{{Name: "read_file", Description: "reads", Parameters: json.RawMessage(`{"type":"object"}`)}}

func TestChatStream(t *testing.T) {
	calls := []llm.ToolCall{
		{ID: "a1", Name: "read_file", Arguments: json.RawMessage(`{"path":"main.go","lines":"1-20"}`)},
		{ID: "a2", Name: "list_files", Arguments: json.RawMessage(`{"path":"internal/llm"}`)},
	}
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			s := fakellm.New(t, fakellm.Reply{
				Thinking: []string{"let me ", "look"}, Content: []string{"Hel", "lo"}, ToolCalls: calls,
				Usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 7},
			})
			got, err := collect(t, provider(t, d, s), &llm.Request{Model: "m:7b", Tools: tools, Think: true, NumCtx: 8192,
				Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			want := llm.Chunk{Content: "Hello", Thinking: "let me look", ToolCalls: calls, Done: true,
				Usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 7}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
			body := s.Requests()[0].Body
			if d == "ollama" {
				if body["think"] != true || body["options"].(map[string]any)["num_ctx"] != 8192.0 {
					t.Errorf("think/num_ctx not sent: %v", body)
				}
			} else if body["stream_options"] == nil {
				t.Errorf("stream_options not sent: %v", body)
			}
			if body["stream"] != true || body["tools"] == nil {
				t.Errorf("stream/tools not sent: %v", body)
			}
		})
	}
}

// The history the executor builds goes out in each dialect's form and comes back intact.
func TestHistoryRoundTrip(t *testing.T) {
	history := []llm.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "read it"},
		{Role: "assistant", Content: "ok", Thinking: "need the file",
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}},
		{Role: "tool", Content: "package a", ToolName: "read_file", ToolCallID: "c1"},
	}
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			s := fakellm.New(t, fakellm.Reply{Content: []string{"done"}})
			if _, err := collect(t, provider(t, d, s), &llm.Request{Model: "m:7b", Messages: history}); err != nil {
				t.Fatal(err)
			}
			var want []llm.Message
			if d == "openai" { // no thinking and no tool_name on the wire
				want = append([]llm.Message(nil), history...)
				want[2].Thinking, want[3].ToolName = "", ""
			} else { // tool messages carry tool_name, not tool_call_id
				want = append([]llm.Message(nil), history...)
				want[3].ToolCallID = ""
			}
			if diff := cmp.Diff(want, s.Requests()[0].Messages); diff != "" {
				t.Errorf("messages sent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryWithoutRejectedFeatures(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			s := fakellm.New(t, fakellm.Reply{Content: []string{"a"}}, fakellm.Reply{Content: []string{"b"}})
			s.RejectThink("m:7b")
			s.RejectTools("m:7b")
			p := provider(t, d, s)
			req := &llm.Request{Model: "m:7b", Think: d == "ollama", Tools: tools}
			if got, err := collect(t, p, req); err != nil || got.Content != "a" {
				t.Fatalf("Chat = %q, %v", got.Content, err)
			}
			want := []string{"tools", "think"}
			if d == "openai" {
				want = []string{"tools"}
			}
			if diff := cmp.Diff(want, p.(llm.Dropper).Dropped("m:7b")); diff != "" {
				t.Errorf("Dropped (-want +got):\n%s", diff)
			}
			// The downgrade is remembered: the next request goes out without them at once.
			n := len(s.Requests())
			if _, err := collect(t, p, req); err != nil {
				t.Fatal(err)
			}
			last := s.Requests()
			if len(last) != n+1 || last[n].Body["tools"] != nil || last[n].Body["think"] != nil {
				t.Errorf("second request: %d requests, body %v", len(last)-n, last[len(last)-1].Body)
			}
		})
	}
}

func TestModelNotFound(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			s := fakellm.New(t)
			s.SetModel("other", llm.ModelInfo{})
			p := provider(t, d, s)
			_, err := collect(t, p, &llm.Request{Model: "m:7b"})
			if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "m:7b not found") {
				t.Errorf("Chat error = %v", err)
			}
			if d == "ollama" && !strings.Contains(err.Error(), "`ollama pull m:7b`") {
				t.Errorf("no hint: %v", err)
			}
			if _, err := p.Info(context.Background(), "m:7b"); !errors.Is(err, llm.ErrModelNotFound) {
				t.Errorf("Info error = %v", err)
			}
		})
	}
}

func TestInfo(t *testing.T) {
	s := fakellm.New(t)
	s.SetModel("m:7b", llm.ModelInfo{ContextLength: 40960, Thinking: true})
	for d, want := range map[string]llm.ModelInfo{
		"ollama": {Name: "m:7b", ContextLength: 40960, Thinking: true},
		"openai": {Name: "m:7b", ContextLength: 40960, Tools: true}, // as llama.cpp reports it in /models
	} {
		got, err := provider(t, d, s).Info(context.Background(), "m:7b")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s Info (-want +got):\n%s", d, diff)
		}
	}
}

func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	for _, d := range dialects {
		p, _, _ := llm.New(d+":m", url, "")
		_, err := collect(t, p, &llm.Request{Model: "m"})
		if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "cannot reach") {
			t.Errorf("%s: Chat error = %v", d, err)
		}
		if d == "ollama" && !strings.Contains(err.Error(), "is `ollama serve` running?") {
			t.Errorf("no hint: %v", err)
		}
	}
}

func TestCancelMidStream(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			s := fakellm.New(t, fakellm.Reply{Content: []string{"first"}, Hold: make(chan struct{})})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []string
			err := provider(t, d, s).Chat(ctx, &llm.Request{Model: "m:7b"}, func(c llm.Chunk) error {
				got = append(got, c.Content)
				cancel() // the server holds the rest until the request ends
				return nil
			})
			if !errors.Is(err, context.Canceled) || len(got) != 1 || got[0] != "first" {
				t.Errorf("Chat = %v after %q, want context.Canceled after \"first\"", err, got)
			}
		})
	}
}

func TestCallbackErrorStops(t *testing.T) {
	stop := errors.New("stop")
	for _, d := range dialects {
		s := fakellm.New(t, fakellm.Reply{Content: []string{"a", "b"}})
		err := provider(t, d, s).Chat(context.Background(), &llm.Request{Model: "m:7b"}, func(llm.Chunk) error { return stop })
		if err != stop {
			t.Errorf("%s: Chat = %v, want the callback's error", d, err)
		}
	}
}

func TestMalformedStream(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			raw := "{not json\n"
			if d == "openai" {
				raw = "data: {not json\n\n"
			}
			s := fakellm.New(t, fakellm.Reply{Content: []string{"a"}, Raw: raw})
			_, err := collect(t, provider(t, d, s), &llm.Request{Model: "m:7b"})
			if err == nil || !strings.Contains(err.Error(), "malformed stream") || !strings.Contains(err.Error(), "{not json") {
				t.Errorf("Chat error = %v", err)
			}
		})
	}
}

func TestErrorStatusAndExhaustedScript(t *testing.T) {
	for _, d := range dialects {
		s := fakellm.New(t, fakellm.Reply{Status: 503, ErrorBody: "overloaded"})
		p := provider(t, d, s)
		if _, err := collect(t, p, &llm.Request{Model: "m:7b"}); err == nil || !strings.Contains(err.Error(), "HTTP 503: overloaded") {
			t.Errorf("%s: error = %v", d, err)
		}
		if _, err := collect(t, p, &llm.Request{Model: "m:7b"}); err == nil || !strings.Contains(err.Error(), "script exhausted") {
			t.Errorf("%s: error = %v", d, err)
		}
	}
}

func TestNewSpec(t *testing.T) {
	for _, spec := range []string{"", "ollama", "ollama:", "claude:x"} {
		if _, _, err := llm.New(spec, "", ""); err == nil {
			t.Errorf("New(%q) succeeded", spec)
		}
	}
}

func TestStopReasons(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			s := fakellm.New(t,
				fakellm.Reply{Content: []string{"cut sho"}, FinishReason: "length"},
				fakellm.Reply{FinishReason: "content_filter", Refusal: "I cannot help with that."},
				fakellm.Reply{Content: []string{"fine"}},
			)
			p := provider(t, d, s)
			req := &llm.Request{Model: "m:7b", Messages: []llm.Message{{Role: "user", Content: "hi"}}}
			var last llm.Chunk
			fn := func(c llm.Chunk) error {
				if c.Done {
					last = c
				}
				return nil
			}
			if err := p.Chat(context.Background(), req, fn); err != nil || last.StopReason != llm.StopLength {
				t.Errorf("cut reply: stop %q, %v", last.StopReason, err)
			}
			if d == "openai" {
				if err := p.Chat(context.Background(), req, fn); err != nil || last.StopReason != llm.StopFiltered || last.Refusal != "I cannot help with that." {
					t.Errorf("filtered reply: stop %q refusal %q, %v", last.StopReason, last.Refusal, err)
				}
			} else {
				p.Chat(context.Background(), req, fn)
			}
			if err := p.Chat(context.Background(), req, fn); err != nil || last.StopReason != "stop" {
				t.Errorf("whole reply: stop %q, %v", last.StopReason, err)
			}
		})
	}
}

func TestImagesAndReplyBound(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			s := fakellm.New(t, fakellm.Reply{Content: []string{"a cat"}})
			img := llm.Image{MIMEType: "image/png", Data: "iVBORw0KGgo="}
			_, err := collect(t, provider(t, d, s), &llm.Request{Model: "m:7b", NumCtx: 4096, NumPredict: 700,
				Messages: []llm.Message{{Role: "user", Content: "what is this?", Images: []llm.Image{img}}}})
			if err != nil {
				t.Fatal(err)
			}
			rec := s.Requests()[0]
			got := rec.Messages[0]
			if got.Content != "what is this?" || len(got.Images) != 1 || got.Images[0].Data != img.Data {
				t.Errorf("the server got %+v", got)
			}
			if d == "openai" && got.Images[0].MIMEType != "image/png" {
				t.Errorf("the data URL lost its type: %+v", got.Images)
			}
			if d == "ollama" && (rec.NumCtx != 4096 || rec.NumPredict != 700) {
				t.Errorf("num_ctx %d num_predict %d", rec.NumCtx, rec.NumPredict)
			}
			if d == "openai" && rec.Body["max_tokens"] != nil {
				t.Errorf("max_tokens sent on the openai path: %v", rec.Body)
			}
		})
	}
}

func TestVisionIsReported(t *testing.T) {
	s := fakellm.New(t)
	s.SetModel("m:7b", llm.ModelInfo{ContextLength: 8192, Tools: true, Vision: true})
	for _, d := range dialects {
		info, err := provider(t, d, s).Info(context.Background(), "m:7b")
		if err != nil || !info.Vision || info.ContextLength != 8192 {
			t.Errorf("%s: %+v, %v", d, info, err)
		}
	}
}

func TestContextOverflowIsRecognised(t *testing.T) {
	s := fakellm.New(t, fakellm.Reply{Content: []string{"never"}})
	s.SetModel("m:7b", llm.ModelInfo{ContextLength: 100, Tools: true})
	p := provider(t, "openai", s)
	_, err := collect(t, p, &llm.Request{Model: "m:7b", Messages: []llm.Message{{Role: "user", Content: strings.Repeat("many words here ", 100)}}})
	if !errors.Is(err, llm.ErrContextTooLong) {
		t.Fatalf("error %v, want ErrContextTooLong", err)
	}
	if n, ok := llm.ContextLimit(err); !ok || n != 100 {
		t.Errorf("limit %d %v", n, ok)
	}
}
