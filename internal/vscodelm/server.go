package vscodelm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/agents"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/mcpbridge"
)

// Codes the client relies on: -32800 with "cancelled" in the message becomes VS Code's
// CancellationError; -32000 is an agent or session failure, shown to the user.
const codeAgentFailure = -32000

// Options configure the server.
type Options struct {
	Logger  *slog.Logger
	Version string
	// IdleTimeout closes a conversation's session after this long without activity
	// (30 minutes when 0); an agent process left without sessions ends.
	IdleTimeout time.Duration
	// MaxConversations bounds the conversations kept; past it the least recently used
	// idle one is closed (256 when 0).
	MaxConversations int
}

// Server is the backend of the VS Code extension's LanguageModelChatProvider.
type Server struct {
	logger *slog.Logger
	conn   *jsonrpc2.Conn
	pool   *pool
	bridge *mcpbridge.Bridge
	cwd    string

	idle     time.Duration
	max      int
	mu       sync.Mutex // guards matcher, workers and open (the router's state)
	matcher  *Matcher
	workers  map[*Conversation]*worker
	open     map[string]*chatRequest // chat requests not answered yet, by id
	workerWG sync.WaitGroup
}

// Serve runs the backend on stream (the process's stdin and stdout) until the client
// closes it or ctx ends.
func Serve(ctx context.Context, stream io.ReadWriteCloser, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	bridge, err := mcpbridge.New(mcpbridge.Options{Logger: opts.Logger})
	if err != nil {
		return fmt.Errorf("starting the tool bridge: %w", err)
	}
	cwd, _ := os.Getwd()
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 30 * time.Minute
	}
	if opts.MaxConversations <= 0 {
		opts.MaxConversations = 256
	}
	s := &Server{
		logger: opts.Logger, pool: newPool(opts.Logger), bridge: bridge, cwd: cwd,
		idle: opts.IdleTimeout, max: opts.MaxConversations,
		matcher: NewMatcher(), workers: map[*Conversation]*worker{}, open: map[string]*chatRequest{},
	}
	jsonrpc2.NewConn(stream, jsonrpc2.BinderFunc(func(conn *jsonrpc2.Conn) jsonrpc2.Options {
		s.conn = conn
		return jsonrpc2.Options{Handler: s, Logger: opts.Logger}
	}))
	janitor := time.NewTicker(min(s.idle/4, time.Minute))
	defer janitor.Stop()
loop:
	for {
		select {
		case <-s.conn.Done():
			break loop
		case <-ctx.Done():
			s.conn.Close()
			break loop
		case <-janitor.C:
			s.evictIdle()
		}
	}
	s.mu.Lock()
	for _, w := range s.workers {
		w.stop()
	}
	s.mu.Unlock()
	s.workerWG.Wait()
	s.pool.close()
	bridge.Close()
	if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// Handle answers the client.
func (s *Server) Handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "lm/provideLanguageModelChatResponse":
		return s.chat(ctx, req)
	case "lm/cancel":
		var p CancelParams
		if err := jsonrpc2.DecodeParams(req, &p); err == nil {
			s.cancel(string(p.RequestID))
		}
		return nil, nil
	case "lm/provideTokenCount":
		var p TokenCountParams
		if err := jsonrpc2.DecodeParams(req, &p); err != nil {
			return nil, err
		}
		return CountTokens(p.Text), nil
	case "lm/provideLanguageModelChatInformation":
		return s.models(), nil
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

// models is one model per agent parley knows.
func (s *Server) models() ModelInfoResult {
	res := ModelInfoResult{Models: []ModelInfo{}}
	reg, err := agents.Load(config.Path())
	if err != nil {
		s.logger.Warn("reading the agents", "error", err)
		return res
	}
	for _, a := range reg.All() {
		if a.NotRunnable != "" {
			continue
		}
		res.Models = append(res.Models, ModelInfo{
			ID: a.Name, Name: a.Name + " (ACP)", Family: "parley", Version: "1",
			MaxInputTokens: 200000, MaxOutputTokens: 100000, Capabilities: ModelCapabilities{ToolCalling: true},
		})
	}
	return res
}

// chatRequest is one lm/provideLanguageModelChatResponse waiting for its answer.
type chatRequest struct {
	id       json.RawMessage
	params   *ChatRequestParams
	match    Match
	tools    []ToolDefinition // the bridged ones
	action   string           // the agent-action tool offered, "" for none
	w        *worker          // the conversation's worker
	answered chan error       // receives the outcome once: nil = complete
	once     sync.Once
}

// finish answers the request (once): nil completes it, else the error.
func (r *chatRequest) finish(err error) {
	r.once.Do(func() { r.answered <- err })
}

var errCancelled = jsonrpc2.Errorf(jsonrpc2.CodeRequestCancelled, "request cancelled")

func (s *Server) chat(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p ChatRequestParams
	if err := jsonrpc2.DecodeParams(req, &p); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
	}
	def, err := ParseAgent(p.Agent)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
	}
	if p.Cwd == "" {
		p.Cwd = s.cwd
	}
	r := &chatRequest{id: json.RawMessage(req.ID.String()), params: &p, answered: make(chan error, 1)}
	r.tools, r.action = splitTools(p.Tools())

	s.mu.Lock()
	m := s.matcher.Match(def.Key, p.Messages)
	conv := m.Conversation
	if conv == nil {
		conv = s.matcher.Start(def.Key, m)
	} else {
		conv.Commit(m)
	}
	r.match = m
	w := s.workers[conv]
	if w == nil {
		w = newWorker(s, conv, def.Key)
		s.workers[conv] = w
		s.workerWG.Add(1)
		go func() { defer s.workerWG.Done(); w.run() }()
		if len(s.workers) > s.max {
			s.evictOldest(conv)
		}
	}
	r.w = w
	s.open[string(r.id)] = r
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.open, string(r.id))
		s.mu.Unlock()
	}()

	w.post(ctx, evRequest{req: r})
	var answer error
	select {
	case answer = <-r.answered:
	case <-ctx.Done():
		answer = errCancelled
		w.post(context.Background(), evCancel{req: r})
	case <-w.closed: // evicted as idle just as the request came: the client sends it again
		select {
		case answer = <-r.answered:
		default:
			answer = errClosed
		}
	}
	if answer != nil {
		return nil, answer
	}
	s.conn.Notify(context.Background(), "lm/responseComplete", ResponseCompleteParams{RequestID: r.id})
	return struct{}{}, nil
}

// evictIdle closes the conversations idle for longer than the idle timeout.
func (s *Server) evictIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	cutoff := time.Now().Add(-s.idle).UnixNano()
	for conv, w := range s.workers {
		if !w.busy.Load() && w.lastActive.Load() < cutoff {
			s.evict(conv, w)
		}
	}
}

// evictOldest closes the least recently active idle conversation other than keep.
// s.mu is held.
func (s *Server) evictOldest(keep *Conversation) {
	var oldest *Conversation
	for conv, w := range s.workers {
		if conv == keep || w.busy.Load() {
			continue
		}
		if oldest == nil || w.lastActive.Load() < s.workers[oldest].lastActive.Load() {
			oldest = conv
		}
	}
	if oldest != nil {
		s.evict(oldest, s.workers[oldest])
	}
}

// evict forgets a conversation and tells its worker to close its session. s.mu is held.
func (s *Server) evict(conv *Conversation, w *worker) {
	s.matcher.Remove(conv)
	delete(s.workers, conv)
	select {
	case w.events <- evClose{}:
	default:
		go w.post(context.Background(), evClose{})
	}
}

// cancel is lm/cancel: the request is answered -32800 and its worker stops the turn.
func (s *Server) cancel(id string) {
	s.mu.Lock()
	r := s.open[id]
	s.mu.Unlock()
	if r == nil {
		return // unknown or already answered: ignored
	}
	r.finish(errCancelled)
	r.w.post(context.Background(), evCancel{req: r})
}

// send streams a part of the answer to a request.
func (s *Server) send(r *chatRequest, part ContentPart) {
	s.conn.Notify(context.Background(), "lm/responsePart", ResponsePartParams{RequestID: r.id, Part: part})
}

// Agent-action tool names: parley's, and Symposium's for existing clients.
var actionTools = []string{"parley-agent-action", "symposium-agent-action"}

// splitTools separates the agent-action tool from the tools bridged to the agent.
func splitTools(tools []ToolDefinition) (bridged []ToolDefinition, action string) {
	for _, t := range tools {
		switch t.Name {
		case actionTools[0]:
			action = t.Name
		case actionTools[1]:
			if action == "" {
				action = t.Name
			}
		default:
			bridged = append(bridged, t)
		}
	}
	return bridged, action
}

// transcript renders earlier turns as context for an agent that has not seen them.
func transcript(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		role := "User"
		if m.Role == RoleAssistant {
			role = "Assistant"
		}
		for _, p := range m.Content {
			switch p.Type {
			case PartText:
				fmt.Fprintf(&b, "%s: %s\n", role, p.Value)
			case PartToolCall:
				fmt.Fprintf(&b, "%s called tool %s with %s\n", role, p.ToolName, p.Parameters)
			case PartToolResult:
				fmt.Fprintf(&b, "Tool result for %s: %s\n", p.ToolCallID, mcpbridge.ResultText(p.Result))
			}
		}
	}
	return b.String()
}
