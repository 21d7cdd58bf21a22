// Package fakellm is a scripted model server for tests. One httptest server on 127.0.0.1
// speaks the wire APIs of the model clients parley meets, from one script of Replies:
// Ollama's native API (/api/chat, /api/show, /api/tags), OpenAI chat completions
// (/v1/chat/completions, /v1/models), OpenAI Responses (/v1/responses), Anthropic
// Messages (/v1/messages, /v1/messages/count_tokens) and Gemini (/v1beta/models/M:
// streamGenerateContent, :generateContent, :countTokens). Every dialect's request is
// recorded in one form (Recorded: messages, tool results, the tools offered), so a script
// can answer by what a request says rather than by its place in the sequence, and tests
// can check what the client sent.
package fakellm

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

// Reply is one scripted model reply.
type Reply struct {
	Content   []string       // content chunks, streamed in order
	Thinking  []string       // thinking chunks, streamed before the content
	ToolCalls []llm.ToolCall // native calls, after the content (Ollama: one line; OpenAI: split deltas)
	// Usage nil: the server's own counts, the prompt's (PromptTokens, as Recorded) and
	// the reply's.
	Usage *llm.Usage
	// FinishReason, when set, is how the reply says it ended (Ollama done_reason,
	// OpenAI finish_reason): "length" for a reply cut at the token limit,
	// "content_filter" for one the server withheld.
	FinishReason string
	Refusal      string        // OpenAI: streamed as delta.refusal
	Status       int           // not 0: answer with this error status instead
	ErrorBody    string        // the error message for Status
	Delay        time.Duration // between chunks
	Raw          string        // not "": written verbatim after the chunks, and the stream ends there
	Hold         chan struct{} // not nil: after the chunks, wait until closed (or the request ends)
	// Match, when set, selects this reply for the first request it accepts; replies
	// without Match or Answer are consumed in order by requests no other reply accepted.
	Match func(*Recorded) bool
	// Answer, when set, makes the reply from the request: it returns what to stream, or
	// nil when this entry does not answer the request. The rest of this entry is unused
	// but Reuse.
	Answer func(*Recorded) *Reply
	// Reuse keeps the reply in the script after use (benchmarks, endless loops).
	Reuse bool
}

// Recorded is one request the server received.
type Recorded struct {
	Method, Path string
	Header       http.Header
	Dialect      string         // "ollama", "openai", "responses", "anthropic" or "gemini"
	Model        string         //
	Body         map[string]any // the decoded JSON body; nil for GET
	// Messages are the conversation in llm's form, whatever the dialect: the system
	// prompt (role "system"), user and assistant text, the assistant's tool calls, and
	// tool results as role "tool" with the call's id (Gemini, which has no ids: the
	// tool's name) and the result as text.
	Messages []llm.Message
	Tools    []Tool // the tools the request offers the model
	// PromptTokens is the server's count of the prompt (see PromptTokens), for chat
	// requests of every dialect.
	PromptTokens int
	// NumCtx and NumPredict are Ollama's options.num_ctx and num_predict (0: not sent).
	NumCtx, NumPredict int
	// Truncated: the prompt was longer than the window the model ran with (Ollama's
	// num_ctx, else 4096), so a real Ollama would have dropped its beginning silently.
	Truncated bool
}

// Tool is a tool a request offers, in any dialect.
type Tool struct {
	Name        string
	Description string
	// Kind is "function" (JSON arguments), or "custom" (Responses: free-form text input).
	Kind       string
	Namespace  string         // Responses: the namespace the tool was offered in
	Parameters map[string]any // its JSON Schema; nil when it has none
}

// DefaultModel is what /api/show reports for any model while SetModel was never called.
var DefaultModel = llm.ModelInfo{ContextLength: 32768, Tools: true, Thinking: true}

// Server is the fake model server.
type Server struct {
	t    testing.TB
	srv  *httptest.Server
	stop chan struct{}

	mu          sync.Mutex
	script      []*Reply
	used        []bool
	requests    []*Recorded
	models      map[string]llm.ModelInfo
	rejectThink map[string]bool
	rejectTools map[string]bool
	quiet       map[string]bool // models whose window /v1/models does not report
}

// New starts a server with script; it is closed at t's cleanup. Once the script runs
// out, chat requests get HTTP 500 "script exhausted".
func New(t testing.TB, script ...Reply) *Server {
	s := &Server{t: t, stop: make(chan struct{}), models: map[string]llm.ModelInfo{},
		rejectThink: map[string]bool{}, rejectTools: map[string]bool{}, quiet: map[string]bool{}}
	s.Add(script...)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.ollamaChat)
	mux.HandleFunc("POST /api/show", s.ollamaShow)
	mux.HandleFunc("GET /api/tags", s.ollamaTags)
	mux.HandleFunc("POST /v1/chat/completions", s.openAIChat)
	mux.HandleFunc("GET /v1/models", s.openAIModels)
	mux.HandleFunc("POST /v1/responses", s.responses)
	mux.HandleFunc("POST /v1/messages", s.anthropicMessages)
	mux.HandleFunc("POST /v1/messages/count_tokens", s.anthropicCountTokens)
	mux.HandleFunc("POST /v1beta/models/{call}", s.gemini)
	mux.HandleFunc("/", s.unknown)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(s.stop) // releases held replies
		s.srv.Close()
	})
	return s
}

// Add appends replies to the script.
func (s *Server) Add(script ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range script {
		s.script = append(s.script, &script[i])
		s.used = append(s.used, false)
	}
}

// URL is the base URL for the ollama provider.
func (s *Server) URL() string { return s.srv.URL }

// OpenAIURL is the base URL for the openai provider.
func (s *Server) OpenAIURL() string { return s.srv.URL + "/v1" }

// Requests returns the requests received so far.
func (s *Server) Requests() []*Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// SetModel declares a model. Once any model is declared, unknown models get 404.
func (s *Server) SetModel(name string, info llm.ModelInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info.Name = name
	s.models[name] = info
}

// HideWindow makes /v1/models leave out the model's window (as most OpenAI-compatible
// servers do), while chat requests still have to fit it.
func (s *Server) HideWindow(model string) { s.mu.Lock(); s.quiet[model] = true; s.mu.Unlock() }

// RejectThink makes chat requests for model with think:true fail with Ollama's 400.
func (s *Server) RejectThink(model string) { s.mu.Lock(); s.rejectThink[model] = true; s.mu.Unlock() }

// RejectTools makes chat requests for model with tools fail with Ollama's 400.
func (s *Server) RejectTools(model string) { s.mu.Lock(); s.rejectTools[model] = true; s.mu.Unlock() }

// declared reports whether the model was declared with SetModel; s.mu is held.
func (s *Server) declared(name string) bool {
	_, ok := s.models[name]
	return ok
}

func (s *Server) model(name string) (llm.ModelInfo, bool) {
	if len(s.models) == 0 {
		info := DefaultModel
		info.Name = name
		return info, true
	}
	info, ok := s.models[name]
	return info, ok
}

// conversation is a dialect's decoding of a request body into messages and tools.
type conversation func(data []byte, rec *Recorded) error

// record decodes and stores a request; it returns nil (having answered 400) when the
// body is not JSON or not the dialect's shape.
func (s *Server) record(w http.ResponseWriter, r *http.Request, dialect string) *Recorded {
	return s.recordWith(w, r, dialect, conversationOf(dialect))
}

func conversationOf(dialect string) conversation {
	switch dialect {
	case "responses":
		return responsesConversation
	case "anthropic":
		return anthropicConversation
	case "gemini":
		return geminiConversation
	}
	return chatConversation(dialect)
}

// count is the number of requests so far, for unique ids in replies.
func (s *Server) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *Server) recordWith(w http.ResponseWriter, r *http.Request, dialect string, decode conversation) *Recorded {
	rec := &Recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Dialect: dialect}
	if r.Method == http.MethodPost {
		var raw struct {
			Model string `json:"model"`
			Name  string `json:"name"`
		}
		data, err := readAll(r)
		if err == nil {
			err = json.Unmarshal(data, &rec.Body)
		}
		if err == nil {
			err = json.Unmarshal(data, &raw)
		}
		if err == nil && decode != nil {
			err = decode(data, rec)
		}
		if err != nil {
			writeError(w, dialect, http.StatusBadRequest, "fakellm: bad request body: "+err.Error())
			return nil
		}
		rec.Model = raw.Model
		if rec.Model == "" {
			rec.Model = raw.Name
		}
	}
	if call := r.PathValue("call"); call != "" { // Gemini: models/MODEL:METHOD
		rec.Model, _, _ = strings.Cut(call, ":")
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	return rec
}

// next picks the reply for rec: the first unused Match reply that accepts it, else the
// first unused reply without Match.
func (s *Server) next(rec *Recorded) *Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	pick, reply := -1, (*Reply)(nil)
	for i, r := range s.script {
		if s.used[i] {
			continue
		}
		if r.Answer != nil {
			if reply = r.Answer(rec); reply != nil {
				pick = i
				break
			}
		}
		if r.Match != nil && r.Match(rec) {
			pick, reply = i, r
			break
		}
	}
	if pick < 0 {
		for i, r := range s.script {
			if !s.used[i] && r.Match == nil && r.Answer == nil {
				pick, reply = i, r
				break
			}
		}
	}
	if pick < 0 {
		return nil
	}
	if !s.script[pick].Reuse {
		s.used[pick] = true
	}
	return reply
}

// prepare runs the checks every chat request shares and returns the reply to stream,
// or nil when the request has been answered already.
func (s *Server) prepare(w http.ResponseWriter, r *http.Request, dialect string) (*Recorded, *Reply) {
	rec := s.record(w, r, dialect)
	if rec == nil {
		return nil, nil
	}
	s.mu.Lock()
	info, known := s.model(rec.Model)
	think := s.rejectThink[rec.Model] && rec.Body["think"] == true
	tools := s.rejectTools[rec.Model] && rec.Body["tools"] != nil
	rec.PromptTokens = PromptTokens(rec.Messages, rec.Tools)
	if opts, ok := rec.Body["options"].(map[string]any); ok && dialect == "ollama" {
		n, _ := opts["num_ctx"].(float64)
		p, _ := opts["num_predict"].(float64)
		rec.NumCtx, rec.NumPredict = int(n), int(p)
	}
	if dialect == "ollama" {
		rec.Truncated = rec.PromptTokens > rec.window()
	}
	// A server that knows its window refuses what does not fit it, as llama.cpp does.
	tooLong := dialect == "openai" && s.declared(rec.Model) && info.ContextLength > 0 && rec.PromptTokens > info.ContextLength
	s.mu.Unlock()
	switch {
	case !known:
		writeError(w, dialect, http.StatusNotFound, fmt.Sprintf("model '%s' not found", rec.Model))
	case tooLong:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400,
			"message": "the request exceeds the available context size, try increasing it",
			"type":    "exceed_context_size_error", "n_prompt_tokens": rec.PromptTokens, "n_ctx": info.ContextLength}})
	case tools:
		writeError(w, dialect, http.StatusBadRequest, fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", rec.Model))
	case think:
		writeError(w, dialect, http.StatusBadRequest, fmt.Sprintf("\"%s\" does not support thinking", rec.Model))
	default:
		reply := s.next(rec)
		if reply == nil {
			writeError(w, dialect, http.StatusInternalServerError, "script exhausted")
			return nil, nil
		}
		if reply.Status != 0 {
			msg := reply.ErrorBody
			if msg == "" {
				msg = http.StatusText(reply.Status)
			}
			writeError(w, dialect, reply.Status, msg)
			return nil, nil
		}
		return rec, reply
	}
	return nil, nil
}

// pause waits d, or until the request or the server ends; it reports whether to go on.
func (s *Server) pause(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.stop:
	}
	return false
}

// hold waits for the reply's Hold channel, the request's end or the server's.
func (s *Server) hold(ctx context.Context, reply *Reply) bool {
	if reply.Hold == nil {
		return true
	}
	select {
	case <-reply.Hold:
		return true
	case <-ctx.Done():
	case <-s.stop:
	}
	return false
}

func usage(rec *Recorded, reply *Reply) llm.Usage {
	if reply.Usage != nil {
		return *reply.Usage
	}
	prompt := rec.PromptTokens
	if rec.Truncated {
		prompt = rec.window() // what a real Ollama reports: the part it kept
	}
	return llm.Usage{PromptTokens: prompt, CompletionTokens: replyTokens(reply)}
}

// ollamaDefaultContext is the window Ollama runs a model with when a request sets no
// num_ctx.
const ollamaDefaultContext = 4096

func (r *Recorded) window() int {
	if r.NumCtx > 0 {
		return r.NumCtx
	}
	return ollamaDefaultContext
}

// unknown records a request no dialect serves and answers 404, so a test can see what
// a client asked for that the server does not know.
func (s *Server) unknown(w http.ResponseWriter, r *http.Request) {
	if rec := s.recordWith(w, r, "unknown", nil); rec != nil {
		writeError(w, "unknown", http.StatusNotFound, "fakellm: no such endpoint "+r.Method+" "+r.URL.Path)
	}
}

// RequestsTo returns the requests whose path begins with pathPrefix, for tests that check a side endpoint.
func (s *Server) RequestsTo(pathPrefix string) []*Recorded {
	var out []*Recorded
	for _, r := range s.Requests() {
		if strings.HasPrefix(r.Path, pathPrefix) {
			out = append(out, r)
		}
	}
	return out
}

func writeError(w http.ResponseWriter, dialect string, status int, msg string) {
	var body any
	switch dialect {
	case "openai", "responses":
		body = map[string]any{"error": map[string]string{"message": msg, "type": "fakellm"}}
	case "anthropic":
		body = map[string]any{"type": "error", "error": map[string]string{"type": "api_error", "message": msg}}
	case "gemini":
		body = map[string]any{"error": map[string]any{"code": status, "message": msg, "status": http.StatusText(status)}}
	default:
		body = map[string]string{"error": msg}
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}
