package mcpbridge

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/version"
)

// toolPrefix is how Claude-family agents name an MCP server's tools; lookups strip it.
const toolPrefix = "mcp__" + ServerName + "__"

// Tool is one VS Code tool (a LanguageModelChatTool of options.tools).
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage // any JSON; normalised by SetTools
}

// Call is one tool call by the agent.
type Call struct {
	ID        string          // fresh UUIDv4, to be used as the tool_call part's toolCallId
	Tool      string          // the VS Code tool name, without the mcp__vscode_tools__ prefix
	Arguments json.RawMessage // always a JSON object, {} when the agent sent none
}

// Result is what VS Code's tool run produced, as the agent should see it (see ResultText).
type Result struct {
	Text    string
	IsError bool
}

// CallFunc runs a call in VS Code and blocks until its result is known. ctx ends when the
// agent cancels the MCP request or the session closes; CallFunc must then return promptly.
// An error fails the MCP call with an internal error carrying its text.
type CallFunc func(ctx context.Context, call Call) (Result, error)

// Session is the vscode_tools MCP server of one ACP session.
type Session struct {
	bridge  *Bridge
	id      string
	url     string
	path    string
	secret  string
	onCall  CallFunc
	server  *mcp.Server
	handler *mcp.StreamableHTTPHandler

	// ctx ends when the session closes; it bounds every call's context.
	ctx    context.Context
	cancel context.CancelFunc

	// connected is closed when the agent first initializes an MCP session with this
	// server; settled when it first has the tool list (tools/list answered) or an MCP
	// session of its ended before (the agent gave up).
	connected, settled         chan struct{}
	connectedOnce, settledOnce sync.Once
	watchers                   sync.WaitGroup // one per MCP session, until it ends

	mu      sync.Mutex
	closed  bool
	tools   map[string]Tool // normalised, as registered with server
	warned  map[string]bool // tools skipped with a warning already
	pending sync.WaitGroup  // calls in onCall; Add only under mu while !closed
}

func newSession(b *Bridge, id, url, secret string, onCall CallFunc) *Session {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		bridge: b, id: id, url: url, secret: secret, onCall: onCall,
		ctx: ctx, cancel: cancel,
		tools: make(map[string]Tool), warned: make(map[string]bool),
		connected: make(chan struct{}), settled: make(chan struct{}),
	}
	s.server = mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: version.String()}, &mcp.ServerOptions{
		Logger: b.sdkLogger,
		// Announce tools and list_changed even while the list is still empty.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.server.AddReceivingMiddleware(s.routeCalls)
	s.handler = mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return s.server },
		&mcp.StreamableHTTPOptions{Logger: b.sdkLogger},
	)
	return s
}

// ID is the ACP session id the server belongs to.
func (s *Session) ID() string { return s.id }

// McpServerHTTP is the server for an agent that advertises mcpCapabilities.http.
func (s *Session) McpServerHTTP() (url string, headers map[string]string) {
	return s.url, map[string]string{SecretHeader: s.secret}
}

// McpServerStdio is the same server for an agent without HTTP support: the parley stdio
// shim, with the secret in its environment rather than on its command line.
func (s *Session) McpServerStdio() (command string, args []string, env map[string]string) {
	return s.bridge.executable, []string{"mcp-shim", "--url", s.url}, map[string]string{SecretEnv: s.secret}
}

// SetTools replaces the tool list. Tools whose name, description or schema changed are
// re-registered, which makes the go-sdk send notifications/tools/list_changed (debounced);
// an unchanged list sends nothing. Tools whose schema cannot be an MCP input schema are
// skipped with a warning.
func (s *Session) SetTools(tools []Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	next := make(map[string]Tool, len(tools))
	order := make([]string, 0, len(tools))
	for _, t := range tools {
		schema, err := normalizeSchema(t.InputSchema)
		switch {
		case t.Name == "":
			s.warnOnce("", "vscode_tools: skipping a tool without a name")
			continue
		case err != nil:
			s.warnOnce(t.Name, "vscode_tools: skipping tool", "tool", t.Name, "error", err)
			continue
		}
		if _, dup := next[t.Name]; !dup {
			order = append(order, t.Name)
		}
		t.InputSchema = schema
		next[t.Name] = t
	}
	var removed []string
	for name := range s.tools {
		if _, ok := next[name]; !ok {
			removed = append(removed, name)
		}
	}
	if len(removed) > 0 {
		s.server.RemoveTools(removed...)
	}
	for _, name := range order {
		t := next[name]
		if old, ok := s.tools[name]; ok && old.Description == t.Description && bytes.Equal(old.InputSchema, t.InputSchema) {
			continue
		}
		if err := s.addTool(t); err != nil {
			s.warnOnce(name, "vscode_tools: skipping tool", "tool", name, "error", err)
			delete(next, name)
		}
	}
	s.tools = next
}

// addTool registers t with the go-sdk. AddTool panics on a tool it cannot take, before it
// changes anything; normalizeSchema refuses what is known to do that, and a panic from
// what it does not know costs only this tool.
func (s *Session) addTool(t Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the MCP server refused it: %v", r)
		}
	}()
	s.server.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}, s.runTool(t.Name))
	return nil
}

// warnOnce logs a skipped tool the first time only: every request offers it again. s.mu
// is held.
func (s *Session) warnOnce(tool, msg string, args ...any) {
	if s.warned[tool] {
		return
	}
	s.warned[tool] = true
	s.bridge.logger.Warn(msg, args...)
}

// Connected is closed once the agent has initialized an MCP session with this server.
func (s *Session) Connected() <-chan struct{} { return s.connected }

// Settled is closed once the agent's discovery of the tools has ended: it has been given
// the tool list (its first tools/list was answered), or an MCP session of its ended
// before that (it gave up). An agent that discovers its MCP tools in the background after
// session/new cannot use them in a turn that starts before.
func (s *Session) Settled() <-chan struct{} { return s.settled }

// settle closes settled once, saying why.
func (s *Session) settle(why string) {
	s.settledOnce.Do(func() {
		s.bridge.logger.Debug("vscode_tools: "+why, "session", s.id)
		close(s.settled)
	})
}

// routeCalls strips the agent-side prefix from tools/call and answers unknown names with
// -32602 "tool 'NAME' not found" (the error Symposium's bridge gave, which agents written
// against it expect), before the go-sdk looks the tool up; it notes when the agent
// connects and when it lists the tools.
func (s *Session) routeCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize":
			s.connectedOnce.Do(func() {
				s.bridge.logger.Debug("vscode_tools: the agent connected", "session", s.id)
				close(s.connected)
			})
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				s.watch(ss)
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if err == nil {
				s.settle("the agent listed the tools")
			}
			return res, err
		}
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			name := strings.TrimPrefix(call.Params.Name, toolPrefix)
			s.mu.Lock()
			_, known := s.tools[name]
			s.mu.Unlock()
			if !known {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("tool '%s' not found", name)}
			}
			call.Params.Name = name
		}
		return next(ctx, method, req)
	}
}

// watch settles the discovery when an MCP session ends before the agent listed the tools.
// The session's shutdown closes every MCP session, so the watcher always ends.
func (s *Session) watch(ss *mcp.ServerSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.watchers.Go(func() {
		ss.Wait()
		s.settle("an MCP session ended before the agent listed the tools")
	})
}

// runTool hands calls of tool name to the owner. Each call runs in its own handler
// goroutine (the go-sdk serves tools/call asynchronously), so calls never wait for each other.
func (s *Session) runTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := bytes.TrimSpace(req.Params.Arguments)
		switch {
		case len(args) == 0 || string(args) == "null":
			args = json.RawMessage(`{}`)
		case args[0] != '{':
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("tool '%s': arguments must be an object", name)}
		}

		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "vscode_tools session closed"}
		}
		s.pending.Add(1)
		s.mu.Unlock()
		defer s.pending.Done()

		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.ctx, cancel)
		defer stop()

		res, err := s.onCall(ctx, Call{ID: NewCallID(), Tool: name, Arguments: json.RawMessage(args)})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool '%s': %v", name, err)}
		}
		return &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: res.Text}},
			IsError: res.IsError,
		}, nil
	}
}

// Close ends the session's pending calls, disconnects its agent, and frees its path.
func (s *Session) Close() {
	s.bridge.removeSession(s)
	s.shutdown()
}

func (s *Session) shutdown() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()

	s.cancel()
	s.pending.Wait()
	for ss := range s.server.Sessions() {
		ss.Close()
	}
	s.watchers.Wait()
}
