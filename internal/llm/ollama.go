package llm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/parley-acp/parley/internal/json"
)

// ollama speaks Ollama's native API: /api/chat streams one JSON object per line, and
// /api/show reports capabilities and the context length. The native API (not /v1) is the
// one that honours options.num_ctx and think.
type ollama struct {
	client
	calls atomic.Int64 // numbers tool calls that arrive without an id
}

func newOllama(baseURL string) *ollama {
	return &ollama{client: newClient("Ollama", baseURL, "")}
}

type ollamaRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    []wireTool      `json:"tools,omitempty"`
	Think    bool            `json:"think,omitempty"`
	Stream   bool            `json:"stream"`
	Options  *ollamaOptions  `json:"options,omitempty"`
}

type ollamaOptions struct {
	NumCtx     int `json:"num_ctx,omitempty"`
	NumPredict int `json:"num_predict,omitempty"`
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
	Images    []string         `json:"images,omitempty"` // base64
}

type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// wireTool is a tool in the {"type":"function","function":{...}} form both dialects use.
type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

func wireTools(tools []Tool) []wireTool {
	out := make([]wireTool, len(tools))
	for i, t := range tools {
		out[i].Type = "function"
		out[i].Function.Name = t.Name
		out[i].Function.Description = t.Description
		out[i].Function.Parameters = t.Parameters
	}
	return out
}

type ollamaResponse struct {
	Message         ollamaMessage `json:"message"`
	Done            bool          `json:"done"`
	DoneReason      string        `json:"done_reason"`
	PromptEvalCount int           `json:"prompt_eval_count"`
	EvalCount       int           `json:"eval_count"`
	Error           string        `json:"error"`
}

func (o *ollama) encode(r *Request) any {
	out := &ollamaRequest{Model: r.Model, Think: r.Think, Stream: true,
		Messages: make([]ollamaMessage, len(r.Messages))}
	if r.Tools != nil {
		out.Tools = wireTools(r.Tools)
	}
	if r.NumCtx > 0 || r.NumPredict > 0 {
		out.Options = &ollamaOptions{NumCtx: r.NumCtx, NumPredict: r.NumPredict}
	}
	for i, m := range r.Messages {
		om := ollamaMessage{Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName}
		for _, img := range m.Images {
			om.Images = append(om.Images, img.Data)
		}
		for _, tc := range m.ToolCalls {
			var c ollamaToolCall
			c.ID = tc.ID
			c.Function.Name = tc.Name
			c.Function.Arguments = objectArgs(tc.Arguments)
			om.ToolCalls = append(om.ToolCalls, c)
		}
		out.Messages[i] = om
	}
	return out
}

// Chat implements Provider.
func (o *ollama) Chat(ctx context.Context, req *Request, fn func(Chunk) error) error {
	return o.chat(ctx, req, "/api/chat", o.encode, func(body io.Reader) error {
		return o.stream(body, fn)
	})
}

func (o *ollama) stream(body io.Reader, fn func(Chunk) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r ollamaResponse
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("Ollama sent a malformed stream line %q: %w", shorten(string(line)), err)
		}
		if r.Error != "" {
			return fmt.Errorf("Ollama: %s", r.Error)
		}
		c := Chunk{Content: r.Message.Content, Thinking: r.Message.Thinking}
		for _, tc := range r.Message.ToolCalls {
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", o.calls.Add(1))
			}
			args := tc.Function.Arguments
			if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			c.ToolCalls = append(c.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: args})
		}
		if r.Done {
			c.Done, c.StopReason = true, r.DoneReason
			// A count of 0 is no count: old servers leave prompt_eval_count out when
			// the whole prompt came from their cache.
			if r.PromptEvalCount > 0 || r.EvalCount > 0 {
				c.Usage = &Usage{PromptTokens: r.PromptEvalCount, CompletionTokens: r.EvalCount}
			}
		}
		if c.Content != "" || c.Thinking != "" || c.ToolCalls != nil || c.Done {
			if err := fn(c); err != nil {
				return err
			}
		}
		if r.Done {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading Ollama stream: %w", err)
	}
	return fmt.Errorf("Ollama stream ended before done")
}

// Info implements Provider through /api/show.
func (o *ollama) Info(ctx context.Context, model string) (ModelInfo, error) {
	resp, err := o.post(ctx, "/api/show", map[string]string{"model": model})
	if err != nil {
		return ModelInfo{}, ollamaWanted(err, o.baseURL, model)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return ModelInfo{}, fmt.Errorf("reading Ollama /api/show: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return ModelInfo{}, o.statusError(resp.StatusCode, model, "/api/show", body)
	}
	var show struct {
		Capabilities []string                   `json:"capabilities"`
		ModelInfo    map[string]json.RawMessage `json:"model_info"`
	}
	if err := json.Unmarshal(body, &show); err != nil {
		return ModelInfo{}, fmt.Errorf("Ollama /api/show for %s: %w", model, err)
	}
	return ModelInfo{
		Name:          model,
		ContextLength: contextLength(show.ModelInfo),
		Tools:         slices.Contains(show.Capabilities, "tools"),
		Thinking:      slices.Contains(show.Capabilities, "thinking"),
		Vision:        slices.Contains(show.Capabilities, "vision"),
	}, nil
}

// contextLength reads "<arch>.context_length", the architecture named by
// general.architecture, falling back to any key with that suffix.
func contextLength(info map[string]json.RawMessage) int {
	var arch string
	_ = json.Unmarshal(info["general.architecture"], &arch)
	var n int
	if json.Unmarshal(info[arch+".context_length"], &n) == nil && n > 0 {
		return n
	}
	for k, v := range info {
		if strings.HasSuffix(k, ".context_length") && json.Unmarshal(v, &n) == nil {
			return n
		}
	}
	return 0
}
