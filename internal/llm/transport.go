package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/lazy"
)

// maxLine bounds one streamed line: a tool call with a whole file as its argument is one
// line, so the bound is generous.
const maxLine = 64 << 20

// client is what the two dialects share: the HTTP plumbing, error translation and the
// per-model record of features the server rejected.
type client struct {
	name    string // "Ollama" or "OpenAI-compatible server", for messages
	baseURL string
	apiKey  string
	http    *http.Client

	mu      sync.Mutex
	dropped map[string][]string // model → features no longer sent
}

func newClient(name, baseURL, apiKey string) client {
	return client{name: name, baseURL: strings.TrimRight(baseURL, "/"), apiKey: apiKey,
		http: &http.Client{}, dropped: map[string][]string{}}
}

// Dropped implements Dropper.
func (c *client) Dropped(model string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.dropped[model])
}

// withoutDropped returns req, or a copy without the features dropped for its model.
func (c *client) withoutDropped(req *Request) *Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.dropped[req.Model]
	if len(d) == 0 {
		return req
	}
	r := *req
	if slices.Contains(d, "think") {
		r.Think = false
	}
	if slices.Contains(d, "tools") {
		r.Tools = nil
	}
	return &r
}

// rejected reports which feature of r a 400 body complains about, or "".
func rejected(r *Request, body []byte) string {
	switch {
	case r.Tools != nil && bytes.Contains(body, []byte("does not support tools")):
		return "tools"
	case r.Think && bytes.Contains(body, []byte("does not support thinking")):
		return "think"
	}
	return ""
}

// chat posts the request built by encode and streams the 200 reply with decode. A 400
// rejecting think or tools drops that feature for the model and retries; each feature can
// be dropped once, so there are at most three attempts.
func (c *client) chat(ctx context.Context, req *Request, path string,
	encode func(*Request) any, decode func(io.Reader) error) error {
	for {
		r := c.withoutDropped(req)
		resp, err := c.post(ctx, path, encode(r))
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusOK {
			err := decode(resp.Body)
			resp.Body.Close()
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			return err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode == http.StatusBadRequest {
			if f := rejected(r, body); f != "" {
				c.mu.Lock()
				c.dropped[req.Model] = append(c.dropped[req.Model], f)
				c.mu.Unlock()
				continue
			}
		}
		return c.statusError(resp.StatusCode, req.Model, path, body)
	}
}

// post sends body as JSON and returns the response, whatever its status.
func (c *client) post(ctx context.Context, path string, body any) (*http.Response, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding request for %s: %w", path, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+path, bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s request: %w", c.name, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	return c.do(ctx, hreq)
}

func (c *client) get(ctx context.Context, path string) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+path, nil)
	if err != nil {
		return nil, fmt.Errorf("%s request: %w", c.name, err)
	}
	return c.do(ctx, hreq)
}

func (c *client) do(ctx context.Context, hreq *http.Request) (*http.Response, error) {
	if c.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(hreq)
	if err == nil {
		return resp, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		hint := "is `ollama serve` running?"
		if c.name != "Ollama" {
			hint = "is the server running, and is --base-url right?"
		}
		return nil, &serverError{kind: ErrUnreachable, cause: err,
			msg: fmt.Sprintf("cannot reach %s at %s: %s", c.name, c.baseURL, hint)}
	}
	return nil, fmt.Errorf("%s at %s: %w", c.name, c.baseURL, err)
}

// statusError turns a non-200 reply into an error; 404 means the model is missing.
func (c *client) statusError(status int, model, path string, body []byte) error {
	msg := errorMessage(body)
	if status == http.StatusNotFound {
		hint := fmt.Sprintf("`ollama pull %s`", model)
		if c.name != "Ollama" {
			hint = "check the model name against " + c.baseURL + "/models"
		}
		return &serverError{kind: ErrModelNotFound,
			msg: fmt.Sprintf("model %s not found on the server: %s", model, hint)}
	}
	if limit, ok := contextOverflow(status, body); ok {
		return &serverError{kind: ErrContextTooLong, limit: limit,
			msg: fmt.Sprintf("%s: the prompt does not fit the model's context window: %s", c.name, msg)}
	}
	return fmt.Errorf("%s %s%s: HTTP %d: %s", c.name, c.baseURL, path, status, msg)
}

// windowInMessage finds the window in the servers' words: vLLM's "maximum context length
// is 4096 tokens", OpenAI's "maximum context length is 8192 tokens".
var windowInMessage = lazy.Regexp(`(?i)maximum context length is (\d+)`)

// contextOverflow reports whether a refusal says the prompt is too long for the window,
// and the window when it says that too: llama.cpp answers 400 with type
// exceed_context_size_error and n_ctx; vLLM and OpenAI name the maximum in the message
// (OpenAI's code is context_length_exceeded).
func contextOverflow(status int, body []byte) (int, bool) {
	if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
		return 0, false
	}
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Code    any    `json:"code"`
			Message string `json:"message"`
			NCtx    int    `json:"n_ctx"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	text := strings.ToLower(string(body))
	overflow := e.Error.Type == "exceed_context_size_error" || e.Error.Code == "context_length_exceeded" ||
		strings.Contains(text, "context length") || strings.Contains(text, "context size") ||
		strings.Contains(text, "context window")
	if !overflow {
		return 0, false
	}
	if e.Error.NCtx > 0 {
		return e.Error.NCtx, true
	}
	if m := windowInMessage().FindStringSubmatch(string(body)); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, true
	}
	return 0, true
}

// errorMessage extracts the message of {"error":"..."} (Ollama) or
// {"error":{"message":"..."}} (OpenAI), else returns the body itself, cut short.
func errorMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil {
			return s
		}
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &o) == nil && o.Message != "" {
			return o.Message
		}
	}
	return shorten(string(bytes.TrimSpace(body)))
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// objectArgs returns a tool call's arguments as a JSON object to send back to a server.
func objectArgs(a json.RawMessage) json.RawMessage {
	a = bytes.TrimSpace(a)
	if len(a) == 0 || a[0] != '{' || !json.Valid(a) {
		return json.RawMessage("{}")
	}
	return a
}
