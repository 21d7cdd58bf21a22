// Package llm holds parley's model clients: Ollama's native /api/chat and the
// OpenAI-compatible /v1/chat/completions, behind one streaming Provider interface.
//
// Both clients are thin: they translate a Request to the server's dialect, stream the reply
// back as Chunks, and turn the server's failures into errors that say what to do next
// (ErrUnreachable, ErrModelNotFound). Tool calls parsed from model text are not handled
// here (see internal/toolcall); this package only carries native tool calls.
package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// Default base URLs, used when New is given an empty baseURL.
const (
	DefaultOllamaURL = "http://127.0.0.1:11434"
	DefaultOpenAIURL = "http://127.0.0.1:8080/v1"
)

// Message is one entry of the conversation history, in a dialect-neutral form.
type Message struct {
	Role       string     // "system", "user", "assistant", "tool"
	Content    string     //
	Thinking   string     // assistant reasoning, sent back on the native (Ollama) path
	ToolCalls  []ToolCall // assistant
	ToolName   string     // role "tool": the tool's name (Ollama wants it)
	ToolCallID string     // role "tool": the call answered (OpenAI wants it)
	Images     []Image    `json:",omitempty"` // role "user": pictures, for a model that sees them
	// Tokens is the message's size in the prompt as the server counted it (0: not
	// counted yet). The agent keeps it to budget the context; it is never sent.
	Tokens int `json:",omitempty"`
}

// Image is a picture in a user message, as ACP carries it: base64 data and its type.
type Image struct {
	MIMEType string
	Data     string // base64
}

// ToolCall is one complete native tool call. Arguments is a JSON object; when a server
// streams arguments that are not valid JSON, Arguments is that text as a JSON string, so
// the caller can tell the model its call was malformed instead of dropping it.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Tool is a tool offered to the model natively.
type Tool struct {
	Name, Description string
	Parameters        json.RawMessage // JSON Schema, type object
}

// Request is one chat completion request.
type Request struct {
	Model    string
	Messages []Message
	Tools    []Tool // nil: no native tools
	Think    bool   // ask for reasoning where the model supports it (Ollama only)
	NumCtx   int    // Ollama options.num_ctx; 0 = server default
	// NumPredict bounds the reply's tokens (Ollama options.num_predict); 0 = the
	// server's default. The OpenAI path does not send it: servers such as vLLM refuse
	// a request whose prompt plus max_tokens exceeds their window, and the prompt's
	// size is only estimated here.
	NumPredict int
}

// Chunk is one piece of a streamed reply.
type Chunk struct {
	Content   string
	Thinking  string
	ToolCalls []ToolCall // complete calls, as soon as each is complete
	Done      bool       // the last chunk
	Usage     *Usage     // on the last chunk when the server reports it
	// StopReason is why the reply ended, on the last chunk: StopLength, StopFiltered,
	// or what the server said ("stop", "tool_calls"...; "" when it said nothing).
	StopReason string
	// Refusal is what the server said when it refused or filtered the reply (OpenAI's
	// delta.refusal, the categories of content_filter_results).
	Refusal string
}

// Stop reasons the agent acts on; the servers' own words, normalised.
const (
	StopLength   = "length"         // cut at the server's token limit
	StopFiltered = "content_filter" // withheld by the server's content filter
)

// Usage is the token count the server reports for one reply.
type Usage struct{ PromptTokens, CompletionTokens int }

// ModelInfo is what the server says about a model. ContextLength 0 means unknown.
type ModelInfo struct {
	Name          string
	ContextLength int
	Tools         bool
	Thinking      bool
	Vision        bool // the model takes images
}

// Provider is a model server.
type Provider interface {
	// Chat streams the reply to fn, chunk by chunk, and returns when it is complete (after
	// a Chunk with Done), when fn returns an error (that error), or when ctx ends (ctx's
	// error). When the server rejects think or tools for the model (Ollama: HTTP 400
	// "... does not support thinking/tools"), Chat retries once without the feature and
	// remembers the downgrade for later requests; Dropper reports it.
	Chat(ctx context.Context, req *Request, fn func(Chunk) error) error
	// Info reports the model's capabilities; ErrModelNotFound when the server lacks it.
	Info(ctx context.Context, model string) (ModelInfo, error)
}

// SetsWindow reports whether the provider's requests set the context window the model
// runs with (Ollama's num_ctx), rather than the server fixing it.
func SetsWindow(p Provider) bool {
	_, ok := p.(*ollama)
	return ok
}

// Dropper is implemented by both providers: Dropped lists the features ("think",
// "tools") that Chat stopped sending for model after the server rejected them.
type Dropper interface {
	Dropped(model string) []string
}

// Sentinel errors, wrapped with a message that tells the user what to do.
var (
	ErrModelNotFound = errors.New("model not found")
	ErrUnreachable   = errors.New("model server unreachable")
	// ErrContextTooLong: the server refused the request because the prompt does not fit
	// its context window. ContextLimit reports the window when the server said it.
	ErrContextTooLong = errors.New("the prompt exceeds the model's context window")
)

// ContextLimit reports the window size a server gave when it refused a request as too
// long (ErrContextTooLong), when it gave one.
func ContextLimit(err error) (int, bool) {
	var se *serverError
	if errors.As(err, &se) && errors.Is(se.kind, ErrContextTooLong) && se.limit > 0 {
		return se.limit, true
	}
	return 0, false
}

// New parses spec, "ollama:MODEL" or "openai:MODEL" (MODEL may itself contain ':', as in
// qwen2.5-coder:7b), and returns the provider and the model name. An empty baseURL means
// OllamaURL ($OLLAMA_HOST, else DefaultOllamaURL) or DefaultOpenAIURL. apiKey is sent as a Bearer token on the openai
// path when not empty; the caller reads it from the environment.
func New(spec, baseURL, apiKey string) (Provider, string, error) {
	kind, model, ok := strings.Cut(spec, ":")
	if !ok || model == "" {
		return nil, "", fmt.Errorf("model %q: want ollama:MODEL or openai:MODEL", spec)
	}
	switch kind {
	case "ollama":
		if baseURL == "" {
			baseURL = OllamaURL()
		}
		return newOllama(baseURL), model, nil
	case "openai":
		if baseURL == "" {
			baseURL = DefaultOpenAIURL
		}
		return newOpenAI(baseURL, apiKey), model, nil
	}
	return nil, "", fmt.Errorf("model %q: unknown provider %q, want ollama or openai", spec, kind)
}

// serverError is an error with a user-facing message that also matches a sentinel.
type serverError struct {
	kind  error // ErrModelNotFound, ErrUnreachable, ErrContextTooLong or nil
	msg   string
	cause error
	limit int // ErrContextTooLong: the window the server reported, 0 when unknown
}

func (e *serverError) Error() string {
	if e.cause != nil {
		return e.msg + " (" + e.cause.Error() + ")"
	}
	return e.msg
}

func (e *serverError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.kind, e.cause} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
