package fakellm

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

func readAll(r *http.Request) ([]byte, error) { return io.ReadAll(r.Body) }

// chatConversation decodes the messages and tools of an Ollama or OpenAI chat request.
func chatConversation(dialect string) conversation {
	return func(data []byte, rec *Recorded) error {
		var raw struct {
			Messages json.RawMessage `json:"messages"`
			Tools    []struct {
				Type     string `json:"type"`
				Function struct {
					Name        string         `json:"name"`
					Description string         `json:"description"`
					Parameters  map[string]any `json:"parameters"`
				} `json:"function"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return err
		}
		for _, t := range raw.Tools {
			rec.Tools = append(rec.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Kind: "function", Parameters: t.Function.Parameters})
		}
		if len(raw.Messages) == 0 {
			return nil
		}
		var err error
		rec.Messages, err = decodeMessages(raw.Messages, dialect)
		return err
	}
}

// wireMessage covers both dialects' message shapes.
type wireMessage struct {
	Role      string      `json:"role"`
	Content   textContent `json:"content"`
	Thinking  string      `json:"thinking"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolName   string   `json:"tool_name"`
	ToolCallID string   `json:"tool_call_id"`
	Images     []string `json:"images"` // Ollama: base64
}

// imageParts are the images of OpenAI content given as parts (image_url with a data URL).
func imageParts(data []byte) []llm.Image {
	var parts []struct {
		Type     string `json:"type"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if json.Unmarshal(data, &parts) != nil {
		return nil
	}
	var out []llm.Image
	for _, p := range parts {
		if p.Type != "image_url" {
			continue
		}
		meta, data, _ := strings.Cut(strings.TrimPrefix(p.ImageURL.URL, "data:"), ",")
		out = append(out, llm.Image{MIMEType: strings.TrimSuffix(meta, ";base64"), Data: data})
	}
	return out
}

func decodeMessages(data []byte, dialect string) ([]llm.Message, error) {
	var wire []wireMessage
	if err := json.Unmarshal(data, &wire); err != nil {
		return nil, err
	}
	var contents []struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &contents); err != nil {
		return nil, err
	}
	out := make([]llm.Message, len(wire))
	for i, m := range wire {
		out[i] = llm.Message{Role: m.Role, Content: string(m.Content), Thinking: m.Thinking,
			ToolName: m.ToolName, ToolCallID: m.ToolCallID, Images: imageParts(contents[i].Content)}
		for _, img := range m.Images {
			out[i].Images = append(out[i].Images, llm.Image{Data: img})
		}
		for _, tc := range m.ToolCalls {
			args := tc.Function.Arguments
			if dialect == "openai" { // arguments travel as a string of JSON
				var s string
				if err := json.Unmarshal(args, &s); err != nil {
					return nil, fmt.Errorf("openai tool call arguments must be a string: %w", err)
				}
				args = json.RawMessage(s)
			}
			out[i].ToolCalls = append(out[i].ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
		}
	}
	return out, nil
}

// streamWriter writes lines and flushes each one.
type streamWriter struct {
	w http.ResponseWriter
	f http.Flusher
}

func newStream(w http.ResponseWriter, contentType string) *streamWriter {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &streamWriter{w: w, f: f}
}

func (sw *streamWriter) line(prefix string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	sw.raw(prefix + string(data) + "\n")
}

func (sw *streamWriter) raw(s string) {
	io.WriteString(sw.w, s)
	if sw.f != nil {
		sw.f.Flush()
	}
}

type ollamaLine struct {
	Model           string         `json:"model"`
	Message         map[string]any `json:"message"`
	Done            bool           `json:"done"`
	DoneReason      string         `json:"done_reason,omitempty"`
	PromptEvalCount int            `json:"prompt_eval_count,omitempty"`
	EvalCount       int            `json:"eval_count,omitempty"`
}

func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request) {
	rec, reply := s.prepare(w, r, "ollama")
	if reply == nil {
		return
	}
	sw := newStream(w, "application/x-ndjson")
	send := func(msg map[string]any) bool {
		msg["role"] = "assistant"
		if _, ok := msg["content"]; !ok {
			msg["content"] = ""
		}
		sw.line("", ollamaLine{Model: rec.Model, Message: msg})
		return s.pause(r.Context(), reply.Delay)
	}
	for _, t := range reply.Thinking {
		if !send(map[string]any{"thinking": t}) {
			return
		}
	}
	for _, c := range reply.Content {
		if !send(map[string]any{"content": c}) {
			return
		}
	}
	if len(reply.ToolCalls) > 0 {
		var calls []map[string]any
		for i, tc := range reply.ToolCalls {
			fn := map[string]any{"index": i, "name": tc.Name, "arguments": args(tc.Arguments)}
			call := map[string]any{"function": fn}
			if tc.ID != "" {
				call["id"] = tc.ID
			}
			calls = append(calls, call)
		}
		if !send(map[string]any{"tool_calls": calls}) {
			return
		}
	}
	if reply.Raw != "" {
		sw.raw(reply.Raw)
		return
	}
	if !s.hold(r.Context(), reply) {
		return
	}
	u := usage(rec, reply)
	reason := reply.FinishReason
	if reason == "" {
		reason = "stop"
	}
	sw.line("", ollamaLine{Model: rec.Model, Message: map[string]any{"role": "assistant", "content": ""},
		Done: true, DoneReason: reason, PromptEvalCount: u.PromptTokens, EvalCount: u.CompletionTokens})
}

func args(a json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(a)) == 0 {
		return json.RawMessage("{}")
	}
	return a
}

func (s *Server) ollamaShow(w http.ResponseWriter, r *http.Request) {
	rec := s.record(w, r, "ollama")
	if rec == nil {
		return
	}
	s.mu.Lock()
	info, ok := s.model(rec.Model)
	s.mu.Unlock()
	if !ok {
		writeError(w, "ollama", http.StatusNotFound, fmt.Sprintf("model '%s' not found", rec.Model))
		return
	}
	caps := []string{"completion"}
	if info.Tools {
		caps = append(caps, "tools")
	}
	if info.Thinking {
		caps = append(caps, "thinking")
	}
	if info.Vision {
		caps = append(caps, "vision")
	}
	mi := map[string]any{"general.architecture": "fake"}
	if info.ContextLength > 0 {
		mi["fake.context_length"] = info.ContextLength
	}
	writeJSON(w, http.StatusOK, map[string]any{"capabilities": caps, "model_info": mi})
}

func (s *Server) modelNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for n := range s.models {
		names = append(names, n)
	}
	return names
}

func (s *Server) ollamaTags(w http.ResponseWriter, r *http.Request) {
	s.record(w, r, "ollama")
	models := []map[string]string{}
	for _, n := range s.modelNames() {
		models = append(models, map[string]string{"name": n, "model": n})
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

// openAIModels lists the declared models as llama.cpp does: the window the server runs
// each with (meta.n_ctx) and its inputs (architecture.input_modalities).
func (s *Server) openAIModels(w http.ResponseWriter, r *http.Request) {
	s.record(w, r, "openai")
	data := []map[string]any{}
	for _, n := range s.modelNames() {
		s.mu.Lock()
		info, quiet := s.models[n], s.quiet[n]
		s.mu.Unlock()
		m := map[string]any{"id": n, "object": "model"}
		if info.ContextLength > 0 && !quiet {
			m["meta"] = map[string]int{"n_ctx": info.ContextLength}
		}
		inputs := []string{"text"}
		if info.Vision {
			inputs = append(inputs, "image")
		}
		m["architecture"] = map[string]any{"input_modalities": inputs}
		data = append(data, m)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// openAIChat streams server-sent events the way Ollama's /v1 and llama.cpp do:
// reasoning deltas, content deltas, tool calls split into an id+name delta and several
// argument fragments, a finish_reason, a usage event with no choices, then [DONE].
func (s *Server) openAIChat(w http.ResponseWriter, r *http.Request) {
	rec, reply := s.prepare(w, r, "openai")
	if reply == nil {
		return
	}
	sw := newStream(w, "text/event-stream")
	event := func(delta map[string]any, finish any) bool {
		sw.line("data: ", map[string]any{"object": "chat.completion.chunk", "model": rec.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}})
		sw.raw("\n")
		return s.pause(r.Context(), reply.Delay)
	}
	if !event(map[string]any{"role": "assistant", "content": ""}, nil) {
		return
	}
	for _, t := range reply.Thinking {
		if !event(map[string]any{"reasoning": t}, nil) {
			return
		}
	}
	for _, c := range reply.Content {
		if !event(map[string]any{"content": c}, nil) {
			return
		}
	}
	if reply.Refusal != "" && !event(map[string]any{"refusal": reply.Refusal}, nil) {
		return
	}
	for i, tc := range reply.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_fake_%d", i)
		}
		first := map[string]any{"index": i, "id": id, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}
		if !event(map[string]any{"tool_calls": []any{first}}, nil) {
			return
		}
		for _, frag := range fragments(string(args(tc.Arguments)), 3) {
			d := map[string]any{"index": i, "function": map[string]any{"arguments": frag}}
			if !event(map[string]any{"tool_calls": []any{d}}, nil) {
				return
			}
		}
	}
	if reply.Raw != "" {
		sw.raw(reply.Raw)
		return
	}
	if !s.hold(r.Context(), reply) {
		return
	}
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if reply.FinishReason != "" {
		finish = reply.FinishReason
	}
	event(map[string]any{}, finish)
	u := usage(rec, reply)
	if opts, _ := rec.Body["stream_options"].(map[string]any); opts["include_usage"] == true {
		sw.line("data: ", map[string]any{"object": "chat.completion.chunk", "choices": []any{},
			"usage": map[string]int{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
				"total_tokens": u.PromptTokens + u.CompletionTokens}})
		sw.raw("\n")
	}
	sw.raw("data: [DONE]\n\n")
}

// fragments cuts s into n pieces of about equal size (splitting inside strings too).
func fragments(s string, n int) []string {
	var out []string
	size := (len(s) + n - 1) / n
	for size > 0 && len(s) > 0 {
		k := min(size, len(s))
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// event writes one server-sent event with a name ("event: NAME", "data: JSON").
func (sw *streamWriter) event(name string, v any) {
	sw.raw("event: " + name + "\n")
	sw.line("data: ", v)
	sw.raw("\n")
}
