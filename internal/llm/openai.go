package llm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// openAI speaks the OpenAI-compatible /chat/completions API with server-sent events
// (llama.cpp, vLLM, LM Studio, Ollama's /v1, hosted services). Request.Think and NumCtx
// have no portable equivalent there and are not sent; reasoning the server streams
// anyway (delta.reasoning or delta.reasoning_content) is reported as Thinking.
type openAI struct{ client }

func newOpenAI(baseURL, apiKey string) *openAI {
	return &openAI{client: newClient("OpenAI-compatible server", baseURL, apiKey)}
}

type openAIRequest struct {
	Model         string          `json:"model"`
	Messages      []openAIMessage `json:"messages"`
	Tools         []wireTool      `json:"tools,omitempty"`
	Stream        bool            `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type openAIMessage struct {
	Role       string           `json:"role"`
	Content    any              `json:"content"` // a string, or parts when there are images
	ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openAIToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openAIPart is one part of a message's content: text, or an image as a data URL.
type openAIPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url,omitempty"`
}

type openAIEvent struct {
	Choices []struct {
		Delta struct {
			Content          string           `json:"content"`
			Reasoning        string           `json:"reasoning"`
			ReasoningContent string           `json:"reasoning_content"`
			Refusal          string           `json:"refusal"`
			ToolCalls        []openAIToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
		// ContentFilterResults (Azure and others) says which filter withheld the reply.
		ContentFilterResults map[string]struct {
			Filtered bool   `json:"filtered"`
			Severity string `json:"severity"`
		} `json:"content_filter_results"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

func (o *openAI) encode(r *Request) any {
	out := &openAIRequest{Model: r.Model, Stream: true, Messages: make([]openAIMessage, len(r.Messages))}
	out.StreamOptions.IncludeUsage = true
	if r.Tools != nil {
		out.Tools = wireTools(r.Tools)
	}
	for i, m := range r.Messages {
		om := openAIMessage{Role: m.Role, Content: openAIContent(m), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			var c openAIToolCall
			c.ID, c.Type = tc.ID, "function"
			c.Function.Name = tc.Name
			c.Function.Arguments = string(objectArgs(tc.Arguments))
			om.ToolCalls = append(om.ToolCalls, c)
		}
		out.Messages[i] = om
	}
	return out
}

// openAIContent is a message's content: its text, or its text and images as parts.
func openAIContent(m Message) any {
	if len(m.Images) == 0 {
		return m.Content
	}
	parts := []openAIPart{{Type: "text", Text: m.Content}}
	for _, img := range m.Images {
		p := openAIPart{Type: "image_url"}
		p.ImageURL = &struct {
			URL string `json:"url"`
		}{URL: "data:" + img.MIMEType + ";base64," + img.Data}
		parts = append(parts, p)
	}
	return parts
}

// Chat implements Provider.
func (o *openAI) Chat(ctx context.Context, req *Request, fn func(Chunk) error) error {
	return o.chat(ctx, req, "/chat/completions", o.encode, func(body io.Reader) error {
		return (&sseStream{fn: fn}).read(body)
	})
}

// sseStream decodes one streamed completion. Tool calls arrive as deltas keyed by index
// (id and name first, argument fragments after) and are emitted together once complete:
// at the choice's finish_reason, or at the end of the stream.
type sseStream struct {
	fn       func(Chunk) error
	calls    map[int]*partialCall
	finished bool
	usage    *Usage
	reason   string          // the choice's finish_reason
	refusal  strings.Builder // what the server said when it refused or filtered
}

type partialCall struct {
	id, name string
	args     bytes.Buffer
}

var (
	dataPrefix = []byte("data:")
	doneMarker = []byte("[DONE]")
)

func (s *sseStream) read(body io.Reader) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == ':' || !bytes.HasPrefix(line, dataPrefix) {
			continue // blank separators, comments, event: and id: fields
		}
		data := bytes.TrimSpace(line[len(dataPrefix):])
		if bytes.Equal(data, doneMarker) {
			return s.finish()
		}
		if err := s.event(data); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the server's event stream: %w", err)
	}
	if !s.finished {
		return fmt.Errorf("the server's event stream ended before the reply finished")
	}
	return s.finish() // some servers omit [DONE]
}

func (s *sseStream) event(data []byte) error {
	var ev openAIEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("the server sent a malformed stream event %q: %w", shorten(string(data)), err)
	}
	if len(ev.Error) > 0 && string(ev.Error) != "null" {
		return fmt.Errorf("the server reported an error mid-stream: %s", errorMessage(data))
	}
	if ev.Usage != nil && (ev.Usage.PromptTokens > 0 || ev.Usage.CompletionTokens > 0) {
		s.usage = &Usage{PromptTokens: ev.Usage.PromptTokens, CompletionTokens: ev.Usage.CompletionTokens}
	}
	for _, ch := range ev.Choices {
		d := ch.Delta
		s.refusal.WriteString(d.Refusal)
		var filtered []string
		for category, r := range ch.ContentFilterResults {
			if r.Filtered {
				filtered = append(filtered, strings.TrimSpace(category+" "+r.Severity))
			}
		}
		if len(filtered) > 0 {
			sort.Strings(filtered)
			fmt.Fprintf(&s.refusal, "filtered for %s", strings.Join(filtered, ", "))
		}
		thinking := d.Reasoning + d.ReasoningContent
		if d.Content != "" || thinking != "" {
			if err := s.fn(Chunk{Content: d.Content, Thinking: thinking}); err != nil {
				return err
			}
		}
		for _, tc := range d.ToolCalls {
			s.addDelta(tc)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finished, s.reason = true, *ch.FinishReason
			if err := s.flushCalls(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *sseStream) addDelta(tc openAIToolCall) {
	if s.calls == nil {
		s.calls = map[int]*partialCall{}
	}
	i := len(s.calls) // servers that omit index send one call per delta
	if tc.Index != nil {
		i = *tc.Index
	}
	p := s.calls[i]
	if p == nil {
		p = &partialCall{}
		s.calls[i] = p
	}
	if tc.ID != "" {
		p.id = tc.ID
	}
	p.name += tc.Function.Name
	p.args.WriteString(tc.Function.Arguments)
}

func (s *sseStream) flushCalls() error {
	if len(s.calls) == 0 {
		return nil
	}
	idx := make([]int, 0, len(s.calls))
	for i := range s.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	calls := make([]ToolCall, 0, len(idx))
	for _, i := range idx {
		p := s.calls[i]
		id := p.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		calls = append(calls, ToolCall{ID: id, Name: p.name, Arguments: callArgs(p.args.Bytes())})
	}
	s.calls = nil
	return s.fn(Chunk{ToolCalls: calls})
}

// callArgs turns accumulated argument text into Arguments: {} when empty, the JSON
// itself when valid, else the text as a JSON string (see ToolCall).
func callArgs(b []byte) json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(b) {
		return json.RawMessage(bytes.Clone(b))
	}
	q, _ := json.Marshal(string(b))
	return q
}

func (s *sseStream) finish() error {
	if err := s.flushCalls(); err != nil {
		return err
	}
	return s.fn(Chunk{Done: true, Usage: s.usage, StopReason: s.reason, Refusal: strings.TrimSpace(s.refusal.String())})
}

// Info implements Provider through /models: the model must be listed. The OpenAI API
// itself says nothing of a model's window or inputs, but local servers do, each in its
// own words: the window the server runs with (llama.cpp meta.n_ctx, vLLM max_model_len,
// llama-swap and OpenRouter context_length, LM Studio loaded_context_length; never the
// trained ceiling, n_ctx_train, which servers often run far below) and whether it takes
// images (architecture.input_modalities, llama.cpp's capabilities "multimodal").
// Tools are assumed; thinking is not known.
func (o *openAI) Info(ctx context.Context, model string) (ModelInfo, error) {
	resp, err := o.get(ctx, "/models")
	if err != nil {
		return ModelInfo{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return ModelInfo{}, fmt.Errorf("reading %s/models: %w", o.baseURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return ModelInfo{}, o.statusError(resp.StatusCode, model, "/models", body)
	}
	var list struct {
		Data   []openAIModel `json:"data"`
		Models []openAIModel `json:"models"` // llama.cpp's Ollama-style listing beside data
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return ModelInfo{}, fmt.Errorf("%s/models: %w", o.baseURL, err)
	}
	for _, m := range list.Data {
		if m.ID != model {
			continue
		}
		info := ModelInfo{Name: model, Tools: true, ContextLength: m.contextLength(), Vision: m.vision()}
		for _, other := range list.Models {
			if other.Name == model || other.Model == model {
				info.Vision = info.Vision || other.vision()
			}
		}
		return info, nil
	}
	return ModelInfo{}, o.statusError(http.StatusNotFound, model, "/models", nil)
}

// openAIModel is one entry of /models, with the members local servers add.
type openAIModel struct {
	ID                  string `json:"id"`
	Name                string `json:"name"`
	Model               string `json:"model"`
	ContextLength       int    `json:"context_length"`
	MaxModelLen         int    `json:"max_model_len"`
	LoadedContextLength int    `json:"loaded_context_length"`
	Meta                struct {
		NCtx int `json:"n_ctx"`
	} `json:"meta"`
	Architecture struct {
		InputModalities []string `json:"input_modalities"`
	} `json:"architecture"`
	Capabilities []string `json:"capabilities"`
}

func (m openAIModel) contextLength() int {
	for _, n := range []int{m.Meta.NCtx, m.LoadedContextLength, m.MaxModelLen, m.ContextLength} {
		if n > 0 {
			return n
		}
	}
	return 0
}

func (m openAIModel) vision() bool {
	return slices.Contains(m.Architecture.InputModalities, "image") ||
		slices.Contains(m.Capabilities, "vision") || slices.Contains(m.Capabilities, "multimodal")
}
