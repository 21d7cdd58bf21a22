package vscodelm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/mcpbridge"
	"github.com/parley-acp/parley/internal/toolui"
)

// worker is the actor that owns one conversation's agent side: its ACP session, the
// request VS Code has open, what the agent said while no request was open, and the tool
// calls and permission requests that wait for VS Code. The router reaches it through its
// mailbox, the agent and the tool bridge through its events channel; it reports to the
// router with messages. Nobody else reads or writes its fields.
type worker struct {
	s       *Server
	id      string // names its vscode_tools server
	def     AgentDef
	logger  *slog.Logger
	mail    *mailbox
	events  chan any      // from the agent and the bridge; bounded, posters wait
	quit    chan struct{} // closed by the server when it shuts down
	done    chan struct{} // closed when run has returned
	ctx     context.Context
	cancel  context.CancelFunc // ends ctx when run returns: every helper's calls end with it
	openers sync.WaitGroup     // session openers and discovery waits; end waits for them

	// Owned by run's goroutine.
	convID       string // the conversation it serves; "" for a spare not taken yet
	agent        *pooled
	session      acp.SessionID
	needsContext bool      // the session has not been given the conversation's earlier turns
	unseen       []Message // of requests cancelled before their prompt went out: context for the next one
	opening      bool      // a session is being opened
	discovering  bool      // the first prompt waits for the agent to list VS Code's tools
	discovered   bool      // no need to wait for that (any more)
	bridge       *mcpbridge.Session
	pending      *chatRequest // waits for the session to open
	queued       *chatRequest // waits for the cancelled turn to end
	open         *chatRequest // the request being answered
	answer       []said       // what was streamed to open
	buffer       []said       // what the agent said while no request was open
	turn         *turnState   // the running prompt; nil between turns
	turns        int
	calls        []*waitingCall
	perms        []*waitingPerm
	reported     map[acp.ToolCallID]*reportedCall // what the agent said about its tool calls, this turn
	complete     *time.Timer
	completeGen  int
	view         *toolui.Turn
	md           *toolui.MarkdownRenderer
	mdOut        bytes.Buffer
	tools        []ToolDefinition
	action       string
	caps         *ClientCapabilities // of the latest request: which extra parts the client renders
	last         *chatRequest        // the latest request taken, for busy reports
	busy         bool                // as last reported to the router
}

// turnState is a running session/prompt.
type turnState struct {
	id       int
	cancel   context.CancelFunc // sends session/cancel
	draining bool               // cancelled: its output is dropped until it ends
	// What the prompt carries that the agent had not seen, given back (to unseen, or
	// needsContext) when the turn is cancelled before its prompt went out.
	unseen      []Message
	gaveContext bool
}

// said is one part for VS Code. A transient part (thinking, tool_invocation) is not
// part of the history; shows marks a waiting call or permission as shown once sent.
type said struct {
	part      ContentPart
	display   bool
	transient bool
	shows     *bool
}

// Messages from the router (through the mailbox).
type (
	ctlRequest struct {
		req       *chatRequest
		cancelled bool // lm/cancel came before the request was routed: it is answered already
	}
	ctlCancel  struct{ req *chatRequest }
	ctlClose   struct{} // the conversation is evicted: close its session and end
	ctlPrepare struct { // open a spare session ahead of the conversation that will take it
		cwd   string
		dirs  []string
		tools []ToolDefinition
	}
)

// Events from the agent, the bridge and the worker's own helpers.
type (
	evUpdate     struct{ update acp.SessionUpdate }
	evPermission struct {
		req   *acp.RequestPermissionRequest
		reply chan permAnswer
	}
	evCall struct {
		call  mcpbridge.Call
		reply chan mcpbridge.Result
	}
	evPromptDone struct {
		turn int
		stop acp.StopReason
		err  error
	}
	evSessionOpened struct {
		agent *pooled
		id    acp.SessionID
		err   error
	}
	evCompleteNow struct{ gen int }
	evDiscovered  struct{} // the agent listed the tools, gave up, or took too long
)

func newWorker(s *Server, id string, def AgentDef) *worker {
	ctx, cancel := context.WithCancel(context.Background())
	w := &worker{
		s: s, id: id, def: def, logger: s.logger.With("worker", id),
		mail: newMailbox(), events: make(chan any, 256), quit: s.quit, done: make(chan struct{}),
		ctx: ctx, cancel: cancel,
	}
	w.md = toolui.NewMarkdownRenderer(&w.mdOut)
	w.view = toolui.NewTurn(nil)
	return w
}

// post hands the worker an event; it gives up (false) when ctx ends or the worker ended.
func (w *worker) post(ctx context.Context, ev any) bool {
	select {
	case w.events <- ev:
		return true
	case <-ctx.Done():
	case <-w.done:
	}
	return false
}

var (
	errCancelled = jsonrpc2.Errorf(jsonrpc2.CodeRequestCancelled, "request cancelled")
	errClosed    = jsonrpc2.Errorf(codeAgentFailure, "the conversation was closed; send the request again")
)

func (w *worker) run() {
	defer w.end()
	for {
		select {
		case <-w.mail.ready:
			for _, msg := range w.mail.take() {
				if !w.control(msg) {
					return
				}
			}
		case ev := <-w.events:
			w.handle(w.coalesce(ev))
		case <-w.quit:
			return
		}
		w.reportBusy()
	}
}

// end answers everything still waiting and lets go of the session's helpers.
func (w *worker) end() {
	if w.complete != nil {
		w.complete.Stop()
	}
	w.cancelTurn()
	w.refuseWaits()
	for _, r := range []*chatRequest{w.open, w.pending, w.queued} {
		if r != nil {
			r.finish(errCancelled)
		}
	}
	w.cancel()
	close(w.done)
	w.openers.Wait()
	w.drain()
	for _, msg := range w.mail.take() { // posted before the router knew
		if m, ok := msg.(ctlRequest); ok {
			m.req.finish(errClosed)
		}
	}
	if w.bridge != nil {
		w.bridge.Close()
	}
	if w.agent != nil {
		w.agent.remove(w.session)
		w.s.pool.release(w.agent)
	}
}

// drain answers the events that got in as the worker ended: nothing may wait on them,
// and a session opened meanwhile is given back.
func (w *worker) drain() {
	for {
		select {
		case ev := <-w.events:
			switch ev := ev.(type) {
			case evSessionOpened:
				if ev.agent != nil {
					ev.agent.remove(ev.id)
					w.s.pool.release(ev.agent)
				}
			case evPermission:
				ev.reply <- permAnswer{outcome: choose(ev.req.Options, false)}
			case evCall:
				ev.reply <- mcpbridge.Result{Text: "The conversation ended.", IsError: true}
			}
		default:
			return
		}
	}
}

// control handles a message from the router; false ends the worker.
func (w *worker) control(msg any) bool {
	switch m := msg.(type) {
	case ctlRequest:
		w.onRequest(m.req, m.cancelled)
	case ctlCancel:
		w.onCancel(m.req)
	case ctlClose:
		w.closeSession()
		return false
	case ctlPrepare:
		w.tools = m.tools
		w.openSession(m.cwd, m.dirs)
	}
	return true
}

func (w *worker) handle(ev any) {
	switch ev := ev.(type) {
	case nil:
	case evUpdate:
		w.onUpdate(ev.update)
	case evPermission:
		w.onPermission(ev.req, ev.reply)
	case evCall:
		w.onCall(ev.call, ev.reply)
	case evCompleteNow:
		if ev.gen == w.completeGen && w.open != nil && w.waitingShown() {
			w.endExchange("awaiting_tools", nil) // VS Code now runs the tools
		}
	case evPromptDone:
		w.onPromptDone(ev)
	case evSessionOpened:
		w.onSessionOpened(ev)
	case evDiscovered:
		w.discovering, w.discovered = false, true
		if r := w.pending; r != nil {
			w.pending = nil
			w.prompt(r)
		}
	}
}

// coalesce joins a run of agent text chunks already waiting in the queue into one, so
// that a fast agent costs one part per batch instead of one per chunk. The first event
// that is not such a chunk is handled right after, in order.
func (w *worker) coalesce(ev any) any {
	first, ok := textChunk(ev)
	if !ok {
		return ev
	}
	var joined strings.Builder
	joined.WriteString(first)
	for {
		select {
		case next := <-w.events:
			if t, ok := textChunk(next); ok {
				joined.WriteString(t)
				continue
			}
			w.handle(evUpdate{update: acp.AgentMessageChunk(acp.TextBlock(joined.String()))})
			return next
		default:
			return evUpdate{update: acp.AgentMessageChunk(acp.TextBlock(joined.String()))}
		}
	}
}

func textChunk(ev any) (string, bool) {
	u, ok := ev.(evUpdate)
	if !ok || u.update.AgentMessageChunk == nil {
		return "", false
	}
	return u.update.AgentMessageChunk.Content.AsText()
}

// reportBusy tells the router when the conversation starts or stops having work, so that
// it never evicts a busy one.
func (w *worker) reportBusy() {
	busy := w.open != nil || w.pending != nil || w.queued != nil || w.turn != nil || w.opening ||
		len(w.calls) > 0 || len(w.perms) > 0
	if busy != w.busy && w.convID != "" {
		w.busy = busy
		w.s.post(context.Background(), routeBusy{conv: w.convID, busy: busy, last: w.last})
	}
}

// onRequest takes a request the router matched to this conversation. One cancelled
// already is never prompted: its messages are context for the next prompt.
func (w *worker) onRequest(r *chatRequest, cancelled bool) {
	if w.convID != r.conv {
		w.convID, w.logger = r.conv, w.s.logger.With("conversation", r.conv)
	}
	w.last = r
	if w.open != nil {
		// One open request per conversation: the old one is superseded, and with it the
		// turn that was answering it.
		w.endExchange("superseded", errCancelled)
		w.cancelTurn()
	}
	for _, old := range []**chatRequest{&w.pending, &w.queued} {
		if *old != nil {
			w.report(*old, nil, "superseded")
			(*old).finish(errCancelled)
			*old = nil
		}
	}
	w.tools, w.action, w.caps = r.tools, r.action, r.params.Capabilities
	if w.bridge != nil {
		w.bridge.SetTools(bridgeTools(r.tools))
	}
	if w.resume(r) {
		if cancelled {
			w.onCancel(r)
		}
		return
	}
	if cancelled {
		w.report(r, nil, "cancelled")
		w.unseen = append(w.unseen, r.new...)
		return
	}
	w.prompt(r)
}

// onCancel is lm/cancel (the router has answered the request already).
func (w *worker) onCancel(r *chatRequest) {
	switch r {
	case w.open:
		w.endExchange("cancelled", errCancelled)
		w.cancelTurn()
	case w.pending:
		w.report(r, nil, "cancelled")
		w.pending = nil // the session still opens, for the next request
		w.unseen = append(w.unseen, r.new...)
	case w.queued:
		w.report(r, nil, "cancelled")
		w.queued = nil
		w.unseen = append(w.unseen, r.new...)
	}
}

// prompt starts a turn for the request's new messages, once the session is open and any
// cancelled turn has ended.
func (w *worker) prompt(r *chatRequest) {
	if w.turn != nil {
		w.cancelTurn()
		w.queued = r
		return
	}
	if w.agent == nil || w.session == "" || w.agentExited() {
		w.pending = r
		w.openSession(r.params.Cwd, r.params.AdditionalDirectories)
		return
	}
	if w.awaitDiscovery() {
		w.pending = r
		return
	}
	w.startTurn(r)
}

// discoveryWait bounds how long a session's first prompt waits for the agent to list the
// tools of vscode_tools.
const discoveryWait = 10 * time.Second

// awaitDiscovery reports whether the session's first prompt must wait for the agent to
// list VS Code's tools, and starts that wait (evDiscovered ends it).
//
// An agent that discovers its MCP servers in the background of session/new (qwen-code)
// starts a turn that comes first without them: its model finds no such tool, and on a busy
// machine the turn keeps the agent so busy that it gives the discovery up (qwen-code
// allows an HTTP server 5 seconds). Such an agent connects to vscode_tools while it opens
// the session; one that connects only once prompted (Claude) must not be waited for. So
// the prompt waits, at most discoveryWait, until the agent has listed the tools or given
// up, when it has connected but not listed them yet, or when it is an agent process that
// connected before its first prompt in an earlier session.
func (w *worker) awaitDiscovery() bool {
	if w.discovering {
		return true
	}
	if w.discovered || w.bridge == nil || len(w.tools) == 0 || w.agent == nil {
		return false
	}
	settled, connected := w.bridge.Settled(), w.bridge.Connected()
	if isClosed(settled) {
		w.discovered = true
		return false
	}
	if isClosed(connected) {
		w.agent.discoversEarly.Store(true)
	} else if !w.agent.discoversEarly.Load() {
		w.discovered = true
		return false
	}
	w.logger.Debug("the first prompt waits for the agent to list VS Code's tools")
	w.discovering = true
	w.openers.Go(func() {
		timer := time.NewTimer(discoveryWait)
		defer timer.Stop()
	wait:
		for _, ch := range []<-chan struct{}{connected, settled} {
			select {
			case <-ch:
			case <-timer.C:
				w.logger.Info("the agent did not list VS Code's tools in time; prompting without them", "waited", discoveryWait)
				break wait
			case <-w.ctx.Done():
				return
			}
		}
		w.post(context.Background(), evDiscovered{})
	})
	return true
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (w *worker) agentExited() bool {
	select {
	case <-w.agent.agent.Exited():
		return true
	default:
		return false
	}
}

// startTurn sends the request's new user text as a prompt, with the earlier turns for a
// session that has not seen them (a new conversation, or an agent that restarted), or
// else with the messages of requests cancelled before the agent saw them.
func (w *worker) startTurn(r *chatRequest) {
	text := userText(r.new)
	gaveContext := false
	unseen := slices.Concat(w.unseen, r.new)
	if strings.TrimSpace(text) != "" {
		switch {
		case w.needsContext && len(r.context) > 0:
			text = "Earlier in this conversation:\n" + transcript(r.context) + "\n" + text
			gaveContext = true
		case len(w.unseen) > 0:
			text = "Earlier in this conversation:\n" + transcript(w.unseen) + "\n" + text
		}
	}
	w.open, w.answer = r, nil
	w.flush() // what a turn that ended without a request to carry it said
	if strings.TrimSpace(text) == "" {
		w.endExchange("completed", nil)
		return
	}
	w.needsContext, w.unseen = false, nil
	w.turns++
	w.logger.Debug("turn started", "request", r.key, "session", w.session)
	ctx, cancel := context.WithCancel(w.ctx)
	w.turn = &turnState{id: w.turns, cancel: cancel, unseen: unseen, gaveContext: gaveContext}
	w.view = toolui.NewTurn(&toolui.TurnOptions{Root: r.params.Cwd})
	w.reported = map[acp.ToolCallID]*reportedCall{}
	agent, session, id := w.agent, w.session, w.turns
	w.s.goroutines.Go(func() {
		resp, err := agent.agent.Conn.Prompt(ctx, &acp.PromptRequest{SessionID: session, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		ev := evPromptDone{turn: id, err: err}
		if err == nil {
			ev.stop = resp.StopReason
		} else {
			ev.err = agent.agent.Explain(err)
		}
		w.post(context.Background(), ev)
	})
}

func (w *worker) onPromptDone(ev evPromptDone) {
	if w.turn == nil || ev.turn != w.turn.id {
		return
	}
	draining := w.turn.draining
	w.turn.cancel()
	if errors.Is(ev.err, acp.ErrPromptNotSent) {
		// Cancelled before the agent saw it: what it carried is context for the next one.
		w.needsContext = w.needsContext || w.turn.gaveContext
		if !w.turn.gaveContext {
			w.unseen = slices.Concat(w.turn.unseen, w.unseen)
		}
	}
	w.turn = nil
	w.refuseWaits() // the turn is over: nothing it waited for matters now
	switch {
	case draining:
	case ev.err != nil:
		w.endExchange("failed", jsonrpc2.Errorf(codeAgentFailure, "the agent failed: %v", ev.err))
	case w.open != nil:
		w.endExchange("completed", nil)
	}
	if q := w.queued; q != nil {
		w.queued = nil
		w.prompt(q)
	}
}

// cancelTurn stops the running prompt (session/cancel), whose late output is dropped; what
// it waited for is refused. ACP answers its pending permission requests "cancelled".
func (w *worker) cancelTurn() {
	w.buffer = nil
	if w.turn == nil || w.turn.draining {
		return
	}
	for _, p := range w.perms {
		p.reply <- permAnswer{outcome: acp.CancelledOutcome()}
	}
	w.perms = nil
	for _, c := range w.calls {
		c.reply <- mcpbridge.Result{Text: "The request was cancelled.", IsError: true}
	}
	w.calls = nil
	w.turn.cancel()
	w.turn.draining = true
}

// endExchange ends the open request: nil completes it, an error answers it. The router
// learns what was streamed first, so it has it before the client can send the next
// request.
func (w *worker) endExchange(outcome string, err error) {
	r := w.open
	if r == nil {
		return
	}
	w.open = nil
	w.completeGen++
	if w.complete != nil {
		w.complete.Stop()
	}
	w.report(r, w.answer, outcome)
	w.answer = nil
	r.finish(err)
}

// report tells the router how an exchange ended and what it streamed.
func (w *worker) report(r *chatRequest, answer []said, outcome string) {
	parts := make([]AnswerPart, 0, len(answer))
	for _, s := range answer {
		if !s.transient {
			parts = append(parts, AnswerPart{Part: s.part, Display: s.display})
		}
	}
	w.s.post(context.Background(), routeExchange{conv: w.convID, req: r, answer: parts, outcome: outcome})
}

// closeSession ends the conversation's ACP session (session/close where the agent
// supports it); end gives the agent back to the pool, which stops an agent left without
// sessions.
func (w *worker) closeSession() {
	w.cancelTurn()
	if w.agent == nil || w.session == "" || w.agentExited() {
		return
	}
	if w.agent.agent.Info.AgentCapabilities.SessionCapabilities.Close != nil {
		ctx, cancel := w.s.pool.callTimeout(w.ctx)
		if _, err := w.agent.agent.Conn.CloseSession(ctx, &acp.CloseSessionRequest{SessionID: w.session}); err != nil {
			w.logger.Debug("closing the session", "error", w.s.pool.explainTimeout(w.agent, "session/close", err))
		}
		cancel()
	}
}

// openSession opens an ACP session (again, when the agent process was restarted) with
// the vscode_tools MCP server, on a helper goroutine: the worker keeps answering cancels
// and new requests meanwhile. The result comes back as evSessionOpened.
func (w *worker) openSession(cwd string, dirs []string) {
	if w.opening {
		return
	}
	if w.agent != nil { // the agent died: its session with it
		w.agent.remove(w.session)
		w.s.pool.release(w.agent)
		w.agent, w.session = nil, ""
	}
	if w.bridge == nil {
		var err error
		if w.bridge, err = w.s.bridge.AddSession(w.id, w.onBridgeCall); err != nil {
			w.onSessionOpened(evSessionOpened{err: fmt.Errorf("serving VS Code's tools to the agent: %w", err)})
			return
		}
		w.bridge.SetTools(bridgeTools(w.tools))
	}
	w.opening = true
	bridge, pool, def := w.bridge, w.s.pool, w.def
	req := &acp.NewSessionRequest{Cwd: cwd, AdditionalDirectories: dirs}
	w.openers.Go(func() {
		agent, err := pool.get(w.ctx, def.Key, def.Label())
		if err != nil {
			w.post(context.Background(), evSessionOpened{err: err})
			return
		}
		req.MCPServers = []acp.MCPServer{mcpServer(bridge, agent.agent.Info.AgentCapabilities.MCPCapabilities.HTTP)}
		ctx, cancel := pool.callTimeout(w.ctx)
		resp, err := agent.agent.Conn.NewSession(ctx, req)
		cancel()
		if err != nil {
			pool.release(agent)
			w.post(context.Background(), evSessionOpened{err: pool.explainTimeout(agent, "session/new", err)})
			return
		}
		agent.add(resp.SessionID, w)
		if !w.post(context.Background(), evSessionOpened{agent: agent, id: resp.SessionID}) {
			agent.remove(resp.SessionID)
			pool.release(agent)
		}
	})
}

func (w *worker) onSessionOpened(ev evSessionOpened) {
	w.opening = false
	if ev.err != nil {
		w.logger.Info("no session", "agent", w.def.Label(), "error", ev.err)
		if r := w.pending; r != nil {
			w.pending = nil
			w.report(r, nil, "failed")
			r.finish(jsonrpc2.Errorf(codeAgentFailure, "%v", ev.err))
		}
		return
	}
	w.agent, w.session, w.needsContext = ev.agent, ev.id, true
	if w.convID == "" {
		w.logger.Debug("spare session ready", "agent", w.def.Label(), "session", ev.id)
	}
	if r := w.pending; r != nil {
		w.pending = nil
		w.prompt(r)
	}
}

func mcpServer(b *mcpbridge.Session, http bool) acp.MCPServer {
	if http {
		url, headers := b.McpServerHTTP()
		var hs []acp.HTTPHeader
		for k, v := range headers {
			hs = append(hs, acp.HTTPHeader{Name: k, Value: v})
		}
		return acp.HTTPMCPServer(mcpbridge.ServerName, url, hs)
	}
	cmd, args, env := b.McpServerStdio()
	var es []acp.EnvVariable
	for k, v := range env {
		es = append(es, acp.EnvVariable{Name: k, Value: v})
	}
	return acp.StdioMCPServer(mcpbridge.ServerName, cmd, args, es)
}

func bridgeTools(tools []ToolDefinition) []mcpbridge.Tool {
	var out []mcpbridge.Tool
	for _, t := range tools {
		out = append(out, mcpbridge.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return out
}

func userText(msgs []Message) string {
	var parts []string
	for _, m := range msgs {
		if m.Role != RoleUser {
			continue
		}
		for _, p := range m.Content {
			if p.Type == PartText {
				parts = append(parts, p.Value)
			}
		}
	}
	return strings.Join(parts, "\n")
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

func toolResults(msgs []Message) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, m := range msgs {
		for _, p := range m.Content {
			if p.Type == PartToolResult {
				out[p.ToolCallID] = p.Result
			}
		}
	}
	return out
}
