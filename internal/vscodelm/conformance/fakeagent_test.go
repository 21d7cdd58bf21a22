package conformance

// The scripted fake ACP agent: this test binary, started by `parley vscodelm` as an agent
// (TestMain switches on fakeAgentEnv). It has the behaviours of real agents that Eliza
// lacks: each real agent's way of asking permission for an MCP tool, two MCP calls some
// time apart, a stuck initialize or session/new, a hostile permission request, stderr
// output. Every reply starts with a header line saying which session answered, how many
// prompts that session has had, and the outcome of its last permission request, so a test
// can see exactly what the agent received.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/mcpclient"
)

const (
	// fakeAgentEnv selects the role and the start-up behaviour: "ok", "stuck-initialize",
	// "stuck-session", "auth" (a sign-in is needed, see fakeAuthEnv), "gated-session"
	// (session/new answers once the FIFO gives a line), or
	// "background-mcp" (as qwen-code: session/new connects to the MCP servers and answers,
	// their tools are listed behind it, once the FIFO gives a line; a call of a tool not
	// discovered yet fails).
	fakeAgentEnv = "PARLEY_CONFORMANCE_AGENT"
	// fakeFIFOEnv names a FIFO from which `stagger` reads a line before its second call,
	// and "gated-session" one before it answers session/new.
	fakeFIFOEnv = "PARLEY_CONFORMANCE_FIFO"
	// fakeAuthEnv names, in mode "auth", the file whose existence means the user signed
	// in: without it session/new answers auth_required.
	fakeAuthEnv = "PARLEY_CONFORMANCE_AUTH"
)

// fakeAgent returns the params.agent of the fake agent in the flat shape, with its
// start-up mode and extra environment variables ("NAME=value").
func fakeAgent(mode string, env ...string) json.RawMessage {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	vars := []map[string]string{{"name": fakeAgentEnv, "value": mode}}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		vars = append(vars, map[string]string{"name": name, "value": value})
	}
	b, err := json.Marshal(map[string]any{"id": "fake-" + mode, "name": "Fake (" + mode + ")", "command": self, "args": []string{}, "env": vars})
	if err != nil {
		panic(err)
	}
	return b
}

func runFakeAgent(mode string) int {
	a := &scriptedAgent{mode: mode, sessions: map[acp.SessionID]*fakeSession{}}
	conn := acp.NewAgentConn(acp.Stdio(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
	<-conn.Done()
	return 0
}

type scriptedAgent struct {
	mode     string
	conn     *acp.AgentConn
	signedIn bool // mode auth: the user had signed in when the process started

	mu       sync.Mutex
	sessions map[acp.SessionID]*fakeSession
	next     int
}

type fakeSession struct {
	id      acp.SessionID
	servers []acp.MCPServer

	mu         sync.Mutex // held for a whole turn
	prompts    int
	permission string // the outcome of the last permission request
	calls      int
	mcp        *mcp.ClientSession

	// background-mcp: listing is closed once the agent asks for the tools, discovered once
	// discovery has ended, with discoveredMCP set when the tools were listed.
	listing       chan struct{}
	discovered    chan struct{}
	discoveredMCP *mcp.ClientSession
}

func (a *scriptedAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	if a.mode == "stuck-initialize" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	resp := &acp.InitializeResponse{
		ProtocolVersion:   acp.NegotiateVersion(req.ProtocolVersion),
		AgentCapabilities: acp.AgentCapabilities{MCPCapabilities: acp.MCPCapabilities{HTTP: true}},
	}
	if a.mode == "auth" {
		// Signed in when the file fakeAuthEnv names exists as the process starts, as an
		// agent reads its credentials when it starts.
		_, err := os.Stat(os.Getenv(fakeAuthEnv))
		a.signedIn = err == nil
		resp.AuthMethods = []acp.AuthMethod{{Agent: &acp.AuthMethodAgent{ID: "token", Name: "Token", Description: "a token from your account"}}}
	}
	return resp, nil
}

func (a *scriptedAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	if a.mode == "auth" && !a.signedIn {
		return nil, acp.Errorf(acp.CodeAuthRequired, "Authentication required")
	}
	switch a.mode {
	case "stuck-session":
		<-ctx.Done()
		return nil, ctx.Err()
	case "gated-session":
		if fifo, err := os.Open(os.Getenv(fakeFIFOEnv)); err == nil {
			bufio.NewReader(fifo).ReadString('\n')
			fifo.Close()
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	s := &fakeSession{id: acp.SessionID(fmt.Sprintf("fake-%d", a.next)), servers: req.MCPServers, permission: "none"}
	a.sessions[s.id] = s
	if a.mode == "background-mcp" {
		// Connected while the session opens, listed behind it, as qwen-code does.
		s.listing, s.discovered = make(chan struct{}), make(chan struct{})
		server, ok := vscodeToolsServer(s.servers)
		if !ok {
			close(s.listing)
			close(s.discovered)
		} else if c, err := mcpclient.Connect(context.WithoutCancel(ctx), server); err != nil {
			close(s.listing)
			close(s.discovered)
		} else {
			go s.discover(c) // ends with the process
		}
	}
	return &acp.NewSessionResponse{SessionID: s.id}, nil
}

// discover lists the tools of vscode_tools once the FIFO gives a line.
func (s *fakeSession) discover(c *mcp.ClientSession) {
	defer close(s.discovered)
	if fifo, err := os.Open(os.Getenv(fakeFIFOEnv)); err == nil {
		bufio.NewReader(fifo).ReadString('\n')
		fifo.Close()
	}
	close(s.listing)
	if _, err := c.ListTools(context.Background(), nil); err == nil {
		s.discoveredMCP = c
	}
}

func (a *scriptedAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	a.mu.Lock()
	s := a.sessions[req.SessionID]
	a.mu.Unlock()
	if s == nil {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	s.mu.Lock() // ctx ends on session/cancel, also while this turn waits for the last one
	defer s.mu.Unlock()

	s.prompts++
	text := acp.PromptText(req.Prompt)
	t := &fakeTurn{a: a, s: s, ctx: ctx}
	t.say(fmt.Sprintf("session=%s prompt=%d permission=%s\n", s.id, s.prompts, s.permission))
	t.run(text)
	if ctx.Err() != nil {
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type fakeTurn struct {
	a   *scriptedAgent
	s   *fakeSession
	ctx context.Context
}

func (t *fakeTurn) say(text string) {
	t.a.conn.Update(t.ctx, t.s.id, acp.AgentMessageChunk(acp.TextBlock(text)))
}

func (t *fakeTurn) update(u acp.SessionUpdate) { t.a.conn.Update(t.ctx, t.s.id, u) }

// run answers the prompt line by line: commands are carried out, other lines echoed as
// "got: <line>", so a test sees exactly what the agent received.
func (t *fakeTurn) run(text string) {
	for _, line := range strings.Split(text, "\n") {
		if t.ctx.Err() != nil {
			return
		}
		verb, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch verb {
		case "hang": // until the turn is cancelled
			t.say("hanging\n")
			<-t.ctx.Done()
		case "call": // call <tool> <json>
			tool, args, _ := strings.Cut(rest, " ")
			t.say(t.call(tool, args) + "\n")
		case "ask": // ask <form> <tool> <json>: permission in a real agent's form, then the call
			form, more, _ := strings.Cut(rest, " ")
			tool, args, _ := strings.Cut(more, " ")
			t.ask(form, tool, args)
		case "hostile": // hostile [<form>] <tool>: a shell command dressed as a call of a VS Code tool
			t.say("hostile: " + t.hostile(strings.Fields(rest)) + "\n")
		case "perm": // perm <title>: a permission request for an internal action
			kind := t.permission(acp.ToolCallUpdate{ToolCallID: t.nextID(), Title: rest, Kind: acp.ToolKindExecute}, nil)
			t.say("permission: " + kind + "\n")
		case "stagger": // stagger <tool1> <tool2>: the second call once the FIFO gives a line
			t.stagger(strings.Fields(rest))
		case "both": // both <tool1> <tool2>: two calls at once
			tools := strings.Fields(rest)
			results := make([]string, len(tools))
			var wg sync.WaitGroup
			for i, tool := range tools {
				wg.Go(func() { results[i] = t.call(tool, "{}") })
			}
			wg.Wait()
			t.say(strings.Join(results, "\n") + "\n")
		case "pieces": // pieces <a>|<b>|…: the text in those chunks, one update each
			for _, piece := range strings.Split(rest, "|") {
				t.say(piece)
			}
			t.say("\n")
		case "think": // think <text>: a thought
			t.update(acp.AgentThoughtChunk(acp.TextBlock(rest)))
		case "stderr":
			fmt.Fprintln(os.Stderr, rest)
			t.say("wrote to stderr\n")
		default:
			if line != "" {
				t.say("got: " + line + "\n")
			}
		}
	}
}

func (t *fakeTurn) nextID() acp.ToolCallID {
	t.s.calls++
	return acp.ToolCallID(fmt.Sprintf("fake-call-%d", t.s.calls))
}

// ask requests permission for an MCP tool of vscode_tools the way a real agent does, then
// calls it if allowed.
func (t *fakeTurn) ask(form, tool, args string) {
	if args == "" {
		args = "{}"
	}
	id := t.nextID()
	call := acp.ToolCallUpdate{ToolCallID: id}
	var meta acp.Meta
	switch form {
	case "claude":
		call.Title = "mcp__vscode_tools__" + tool
		call.RawInput = json.RawMessage(args)
	case "codex":
		// The tool call first, then a permission request without a title.
		raw, _ := json.Marshal(map[string]any{"server": "vscode_tools", "tool": tool, "arguments": json.RawMessage(args)})
		t.update(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: "mcp.vscode_tools." + tool, Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending, RawInput: raw}})
		call.Kind = acp.ToolKindExecute // codex 2.6 calls every MCP call execute
		meta = acp.Meta{"is_mcp_tool_approval": json.RawMessage(`true`)}
	case "gemini":
		call.Title = tool + " (vscode_tools MCP Server)"
		call.Kind = acp.ToolKindOther
	case "qwen":
		call.Title = args
		meta = acp.Meta{"toolName": json.RawMessage(`"mcp__vscode_tools__` + tool + `"`)}
	default:
		t.say("unknown form " + form + "\n")
		return
	}
	kind := t.permission(call, meta)
	t.say("permission: " + kind + "\n")
	if strings.HasPrefix(kind, "allow") {
		t.say(t.call(tool, args) + "\n")
	}
}

// hostile asks permission for a shell command (kind execute, the command as input)
// named as a call of a VS Code tool: by the bare tool name, or in a real agent's form for
// MCP tools (claude, codex, gemini, qwen).
func (t *fakeTurn) hostile(args []string) string {
	if len(args) == 1 {
		args = []string{"bare", args[0]}
	}
	if len(args) != 2 {
		return "hostile needs [form] tool"
	}
	form, tool := args[0], args[1]
	command := json.RawMessage(`{"command":"rm -rf ~"}`)
	call := acp.ToolCallUpdate{ToolCallID: t.nextID(), Kind: acp.ToolKindExecute, RawInput: command}
	var meta acp.Meta
	switch form {
	case "bare":
		call.Title = tool
	case "claude":
		call.Title = "mcp__vscode_tools__" + tool
	case "gemini":
		call.Title = tool + " (vscode_tools MCP Server)"
	case "qwen":
		call.Title = "rm -rf ~"
		meta = acp.Meta{"toolName": json.RawMessage(`"mcp__vscode_tools__` + tool + `"`)}
	case "codex": // a command reported with codex's title for an MCP call, then its request
		t.update(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: call.ToolCallID, Title: "mcp.vscode_tools." + tool, Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending, RawInput: command}})
		call = acp.ToolCallUpdate{ToolCallID: call.ToolCallID, Kind: acp.ToolKindExecute}
		meta = acp.Meta{"is_mcp_tool_approval": json.RawMessage(`true`)}
	default:
		return "unknown form " + form
	}
	return t.permission(call, meta)
}

// permission asks the client, records the outcome for the next reply's header, and
// returns the chosen option's kind (or "cancelled").
func (t *fakeTurn) permission(call acp.ToolCallUpdate, meta acp.Meta) string {
	options := []acp.PermissionOption{ // ids unlike the kinds, as codex's are
		{OptionID: "opt-1", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionID: "opt-2", Name: "Always", Kind: acp.PermissionOptionKindAllowAlways},
		{OptionID: "opt-3", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		{OptionID: "opt-4", Name: "Never", Kind: acp.PermissionOptionKindRejectAlways},
	}
	req := &acp.RequestPermissionRequest{SessionID: t.s.id, ToolCall: call, Options: options}
	if meta != nil {
		req.Meta = meta
		req.ToolCall.Meta = meta
	}
	// The request outlives session/cancel: ACP has the client answer it.
	resp, err := t.a.conn.RequestPermission(context.WithoutCancel(t.ctx), req)
	kind := "cancelled"
	switch {
	case err != nil:
		kind = "error: " + err.Error()
	case resp.Outcome.Selected != nil:
		kind = "unknown option " + string(resp.Outcome.Selected.OptionID)
		for _, o := range options {
			if o.OptionID == resp.Outcome.Selected.OptionID {
				kind = string(o.Kind)
			}
		}
	}
	t.s.permission = kind
	return kind
}

// call calls a tool of vscode_tools and reports "OK: <result>" or "ERROR: <message>".
func (t *fakeTurn) call(tool, args string) string {
	if args == "" {
		args = "{}"
	}
	var arguments map[string]any
	if err := json.Unmarshal([]byte(args), &arguments); err != nil {
		return "ERROR: arguments: " + err.Error()
	}
	c, err := t.mcpSession()
	if err != nil {
		return "ERROR: " + err.Error()
	}
	res, err := c.CallTool(t.ctx, &mcp.CallToolParams{Name: tool, Arguments: arguments})
	switch {
	case err != nil:
		return "ERROR: " + err.Error()
	case res.IsError:
		return "ERROR: " + mcpclient.ResultText(res)
	}
	return "OK: " + mcpclient.ResultText(res)
}

// stagger calls two tools at once, the second only after a line arrives on the FIFO (the
// test sends it once the first call's response has ended), and reports both in order.
func (t *fakeTurn) stagger(tools []string) {
	if len(tools) != 2 {
		t.say("stagger needs two tools\n")
		return
	}
	results := make([]string, 2)
	var wg sync.WaitGroup
	wg.Go(func() { results[0] = t.call(tools[0], "{}") })
	fifo, err := os.Open(os.Getenv(fakeFIFOEnv))
	if err == nil {
		bufio.NewReader(fifo).ReadString('\n')
		fifo.Close()
	}
	wg.Go(func() { results[1] = t.call(tools[1], "{}") })
	wg.Wait()
	t.say(strings.Join(results, "\n") + "\n")
}

func (t *fakeTurn) mcpSession() (*mcp.ClientSession, error) {
	if t.s.discovered != nil {
		// background-mcp: only what discovery found. A listing under way is waited for (its
		// answer may still be on its way back when parley, which saw the agent list the
		// tools, sends the prompt); discovery that has not begun is not.
		select {
		case <-t.s.listing:
			<-t.s.discovered
			if t.s.discoveredMCP != nil {
				return t.s.discoveredMCP, nil
			}
		default:
		}
		return nil, fmt.Errorf("the tool is not registered in this session (MCP discovery has not finished)")
	}
	if t.s.mcp != nil {
		return t.s.mcp, nil
	}
	server, ok := vscodeToolsServer(t.s.servers)
	if !ok {
		return nil, fmt.Errorf("no vscode_tools server in session/new")
	}
	c, err := mcpclient.Connect(context.WithoutCancel(t.ctx), server)
	if err != nil {
		return nil, err
	}
	t.s.mcp = c
	return c, nil
}

// vscodeToolsServer is parley's vscode_tools among the servers of session/new.
func vscodeToolsServer(servers []acp.MCPServer) (mcpclient.Server, bool) {
	for _, srv := range servers {
		switch {
		case srv.HTTP != nil && srv.HTTP.Name == "vscode_tools":
			server := mcpclient.Server{Name: srv.HTTP.Name, URL: srv.HTTP.URL, Headers: map[string]string{}}
			for _, h := range srv.HTTP.Headers {
				server.Headers[h.Name] = h.Value
			}
			return server, true
		case srv.Stdio != nil && srv.Stdio.Name == "vscode_tools":
			server := mcpclient.Server{Name: srv.Stdio.Name, Command: srv.Stdio.Command, Args: srv.Stdio.Args}
			for _, e := range srv.Stdio.Env {
				server.Env = append(server.Env, e.Name+"="+e.Value)
			}
			return server, true
		}
	}
	return mcpclient.Server{}, false
}
