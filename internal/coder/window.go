package coder

import (
	"sync"

	"github.com/parley-acp/parley/internal/llm"
)

// The context window a session's requests must fit, and what Ollama is told of it.
//
// Its size is the user's --context when given, else what the server reports (Ollama's
// /api/show, a local OpenAI-compatible server's /models), within the model's limit.
// Ollama runs a model with whatever num_ctx the request sets (and silently drops the
// start of a prompt that exceeds it), so there the agent chooses: by default at most
// defaultOllamaWindow, since the memory a window takes grows with it and models report
// limits of 128k tokens and more; within that, num_ctx grows with the conversation in
// doublings (each change reloads the model) and never shrinks. An OpenAI-compatible
// server runs with a window of its own that a request cannot change: the agent uses
// what it reports, or assumes assumedOpenAIWindow and learns the real one when the
// server refuses a prompt as too long.
//
// Of the window, a quarter (at least minReplyRoom, at most maxReplyRoom) is kept for
// the reply; the rest is the budget every request's prompt must fit.

const (
	defaultOllamaWindow = 16384
	ollamaUnknownWindow = 4096 // what Ollama runs with when nobody says
	assumedOpenAIWindow = 8192
	minReplyRoom        = 512
	maxReplyRoom        = 8192
	minNumCtx           = 4096 // the first num_ctx step
)

// window is the agent's view of the model's context window; shared by its sessions
// (one model), it changes only when a server refuses a prompt as too long.
type window struct {
	mu       sync.Mutex
	size     int  // tokens of context the requests may use
	settable bool // the request sets it (Ollama's num_ctx)
	assumed  bool // nobody said: the size is a guess
	numCtx   int  // Ollama: the largest num_ctx sent so far
}

// newWindow sizes the window from the user's setting (0: none) and the model's info.
func newWindow(userSize int, info llm.ModelInfo, ollama bool) *window {
	w := &window{settable: ollama}
	limit := info.ContextLength
	switch {
	case userSize > 0 && limit > 0:
		w.size = min(userSize, limit)
	case userSize > 0:
		w.size = userSize
	case ollama && limit > 0:
		w.size = min(limit, defaultOllamaWindow)
	case ollama:
		w.size, w.assumed = ollamaUnknownWindow, true
	case limit > 0:
		w.size = limit
	default:
		w.size, w.assumed = assumedOpenAIWindow, true
	}
	return w
}

// Size is the window's size in tokens.
func (w *window) Size() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size
}

// replyRoom is what is kept free for the reply.
func replyRoom(size int) int { return min(max(size/4, minReplyRoom), maxReplyRoom, size/2) }

// Budget is the most tokens a prompt may take.
func (w *window) Budget() int {
	size := w.Size()
	return size - replyRoom(size)
}

// request fills in what the server is told of the window for a prompt of about prompt
// tokens: Ollama's num_ctx (the first doubling that holds the prompt and room for the
// reply, never less than before) and num_predict (the rest of it), so that a reply
// never pushes the prompt out of the window.
func (w *window) request(req *llm.Request, prompt int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.settable {
		return
	}
	n := minNumCtx
	for n < w.size && n-prompt < replyRoom(n) {
		n *= 2
	}
	n = min(max(n, w.numCtx), w.size)
	w.numCtx = n
	req.NumCtx = n
	req.NumPredict = max(n-prompt, minReplyRoom/2)
}

// shrink records that the server refused a prompt as too long, naming its window
// (limit > 0) or not; it reports whether the window changed.
func (w *window) shrink(limit int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	old := w.size
	switch {
	case limit > 0 && limit < w.size:
		w.size = limit
	case limit > 0: // the window was right, the estimate short: leave a wider margin
		w.size = w.size * 7 / 8
	default:
		w.size = w.size * 3 / 4
	}
	w.assumed = false
	return w.size != old && w.size >= minReplyRoom*2
}
