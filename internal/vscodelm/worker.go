package vscodelm

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/mcpbridge"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolui"
)

// worker is the actor that owns one conversation: its ACP session, the request VS Code
// has open, what the agent said while no request was open, and the tool calls and
// permission requests that wait for VS Code. Everything reaches it as an event.
type worker struct {
	s      *Server
	conv   *Conversation
	key    AgentKey
	events chan any
	quit   chan struct{}
	closed chan struct{} // closed once the worker no longer takes events
	// lastActive (unix nanoseconds) and busy are read by the server's janitor.
	lastActive atomic.Int64
	busy       atomic.Bool

	// Owned by run's goroutine.
	open     *chatRequest
	buffer   []ContentPart // parts said while no request was open, in order
	agent    *pooled
	session  acp.SessionID
	bridge   *mcpbridge.Session
	turn     context.CancelFunc // the running prompt's, nil between turns
	draining bool               // the running prompt was cancelled: drop its output
	queued   *chatRequest       // a prompt waiting for the cancelled one to end
	perm     *permWait
	calls    map[string]chan mcpbridge.Result
	complete *time.Timer
	view     *toolui.Turn
	md       *toolui.MarkdownRenderer
	mdOut    bytes.Buffer
	tools    []ToolDefinition
	action   string
	caps     *ClientCapabilities // of the latest request: which extra parts the client renders
}

type permWait struct {
	id    acp.ToolCallID
	req   *acp.RequestPermissionRequest
	reply chan acp.RequestPermissionOutcome
}

// Events.
type (
	evRequest    struct{ req *chatRequest }
	evCancel     struct{ req *chatRequest }
	evUpdate     struct{ update acp.SessionUpdate }
	evPermission struct {
		req   *acp.RequestPermissionRequest
		reply chan acp.RequestPermissionOutcome
	}
	evCall struct {
		call  mcpbridge.Call
		reply chan mcpbridge.Result
	}
	evPromptDone struct {
		stop acp.StopReason
		err  error
	}
	evCompleteNow struct{}
	evClose       struct{} // the conversation is evicted: close its session and end
)

func newWorker(s *Server, conv *Conversation, key AgentKey) *worker {
	w := &worker{s: s, conv: conv, key: key, events: make(chan any, 256), quit: make(chan struct{}), closed: make(chan struct{}), calls: map[string]chan mcpbridge.Result{}}
	w.md = toolui.NewMarkdownRenderer(&w.mdOut)
	w.lastActive.Store(time.Now().UnixNano())
	w.view = toolui.NewTurn(nil)
	return w
}

// post hands the worker an event; it gives up when ctx ends or the worker stopped.
func (w *worker) post(ctx context.Context, ev any) {
	select {
	case w.events <- ev:
	case <-ctx.Done():
	case <-w.quit:
	case <-w.closed:
		if r, ok := ev.(evRequest); ok {
			r.req.finish(errClosed)
		}
	}
}

var errClosed = jsonrpc2.Errorf(codeAgentFailure, "the conversation was closed while idle; send the request again")

func (w *worker) stop() { close(w.quit) }

// closeSession ends the conversation's ACP session (session/close where the agent
// supports it) and forgets it in the pool; the pool ends an agent left without sessions.
func (w *worker) closeSession() {
	if w.turn != nil {
		w.turn()
	}
	if w.open != nil {
		w.open.finish(errCancelled)
	}
	if w.agent == nil || w.session == "" {
		return
	}
	if w.agent.agent.Info.AgentCapabilities.SessionCapabilities.Close != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		w.agent.agent.Conn.CloseSession(ctx, &acp.CloseSessionRequest{SessionID: w.session})
		cancel()
	}
	w.s.pool.release(w.key, w.agent, w.session)
}

func (w *worker) run() {
	defer func() {
		close(w.closed)
		for { // answer what was posted before the worker stopped
			select {
			case ev := <-w.events:
				if r, ok := ev.(evRequest); ok {
					r.req.finish(errClosed)
				}
				continue
			default:
			}
			break
		}
		if w.bridge != nil {
			w.bridge.Close()
		}
	}()
	for {
		select {
		case ev := <-w.events:
			if _, ok := ev.(evClose); ok {
				w.closeSession()
				return
			}
			ev = w.coalesce(ev)
			w.handle(ev)
			w.lastActive.Store(time.Now().UnixNano())
			w.busy.Store(w.open != nil || w.turn != nil || w.perm != nil || len(w.calls) > 0)
		case <-w.quit:
			if w.turn != nil {
				w.turn()
			}
			if w.open != nil {
				w.open.finish(errCancelled)
			}
			return
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
			if _, ok := next.(evClose); ok {
				w.pushBack(next)
				return nil
			}
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

// pushBack returns an evClose taken while coalescing, so the run loop sees it.
func (w *worker) pushBack(ev any) {
	go w.post(context.Background(), ev)
}

func (w *worker) handle(ev any) {
	if ev == nil {
		return
	}
	switch ev := ev.(type) {
	case evRequest:
		w.onRequest(ev.req)
	case evCancel:
		if w.open == ev.req {
			w.open = nil
			w.cancelTurn()
		}
	case evUpdate:
		w.onUpdate(ev.update)
	case evPermission:
		w.onPermission(ev.req, ev.reply)
	case evCall:
		w.emit(ContentPart{Type: PartToolCall, ToolCallID: ev.call.ID, ToolName: ev.call.Tool, Parameters: ev.call.Arguments})
		w.calls[ev.call.ID] = ev.reply
		w.completeSoon()
	case evCompleteNow:
		if w.open != nil && (w.perm != nil || len(w.calls) > 0) {
			w.finishOpen(nil) // VS Code now runs the tools; the turn goes on with the next request
		}
	case evPromptDone:
		w.onPromptDone(ev)
	}
}

// onRequest takes a new request of the conversation.
func (w *worker) onRequest(r *chatRequest) {
	if w.open != nil {
		w.finishOpen(errCancelled) // one open request per conversation: the old one is superseded
	}
	w.tools, w.action, w.caps = r.tools, r.action, r.params.Capabilities
	if w.bridge != nil {
		w.bridge.SetTools(bridgeTools(r.tools))
	}
	if r.match.Cancelled {
		w.cancelTurn()
		w.buffer = nil
	}
	results := toolResults(r.match.New)
	resumed := false
	if w.perm != nil {
		approved := false
		if _, ok := results[string(w.perm.id)]; ok && !r.match.Cancelled {
			approved = true
		}
		w.answerPermission(approved)
		resumed = approved
		if !approved {
			w.cancelTurn()
		}
	}
	for id, reply := range w.calls {
		if res, ok := results[id]; ok && !r.match.Cancelled {
			reply <- mcpbridge.Result{Text: mcpbridge.ResultText(res)}
			resumed = true
		} else {
			reply <- mcpbridge.Result{Text: "VS Code did not run the tool", IsError: true}
			w.cancelTurn()
		}
		delete(w.calls, id)
	}
	if resumed && w.turn != nil && !w.draining {
		w.open = r // this request carries the rest of the turn
		w.flushBuffer()
		return
	}
	if w.turn != nil {
		w.queued = r // wait for the cancelled prompt to end first
		return
	}
	w.startPrompt(r)
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

func bridgeTools(tools []ToolDefinition) []mcpbridge.Tool {
	var out []mcpbridge.Tool
	for _, t := range tools {
		out = append(out, mcpbridge.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return out
}

// startPrompt sends the request's new user text (with the earlier turns, for a session
// that has not seen them) as a prompt.
func (w *worker) startPrompt(r *chatRequest) {
	w.open = r
	w.buffer = nil
	text := userText(r.match.New)
	fresh, err := w.ensureSession(r)
	if err != nil {
		w.finishOpen(jsonrpc2.Errorf(codeAgentFailure, "%v", err))
		return
	}
	if history := w.conv.Committed(); fresh && len(history) > 0 {
		// A session that has not seen the earlier turns (a conversation VS Code kept while
		// parley or its agent restarted) gets them as context.
		text = "Earlier in this conversation:\n" + transcript(history) + "\n" + text
	}
	if strings.TrimSpace(text) == "" {
		w.finishOpen(nil)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.turn, w.draining = cancel, false
	w.view = toolui.NewTurn(&toolui.TurnOptions{Root: r.params.Cwd})
	agent, session := w.agent, w.session
	go func() {
		resp, err := agent.agent.Conn.Prompt(ctx, &acp.PromptRequest{SessionID: session, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		ev := evPromptDone{err: err}
		if err == nil {
			ev.stop = resp.StopReason
		} else {
			ev.err = agent.agent.Explain(err)
		}
		w.post(context.Background(), ev)
	}()
}

// ensureSession opens the ACP session (again, when the agent process was restarted),
// with the vscode_tools MCP server. fresh reports a session opened just now.
func (w *worker) ensureSession(r *chatRequest) (fresh bool, err error) {
	agent, err := w.s.pool.get(context.Background(), w.key)
	if err != nil {
		return false, err
	}
	if agent == w.agent && w.session != "" {
		return false, nil
	}
	if w.bridge == nil {
		w.bridge, err = w.s.bridge.AddSession(fmt.Sprintf("%p", w), w.onCall)
		if err != nil {
			return false, err
		}
		w.bridge.SetTools(bridgeTools(w.tools))
	}
	server := mcpServer(w.bridge, agent.agent.Info.AgentCapabilities.McpCapabilities.HTTP)
	resp, err := agent.agent.Conn.NewSession(context.Background(), &acp.NewSessionRequest{
		Cwd: r.params.Cwd, AdditionalDirectories: r.params.AdditionalDirectories, McpServers: []acp.McpServer{server},
	})
	if err != nil {
		return false, agent.agent.Explain(fmt.Errorf("opening a session: %w", err))
	}
	w.agent, w.session = agent, resp.SessionID
	agent.add(resp.SessionID, w)
	return true, nil
}

func mcpServer(b *mcpbridge.Session, http bool) acp.McpServer {
	if http {
		url, headers := b.McpServerHTTP()
		var hs []acp.HttpHeader
		for k, v := range headers {
			hs = append(hs, acp.HttpHeader{Name: k, Value: v})
		}
		return acp.HTTPMcpServer(mcpbridge.ServerName, url, hs)
	}
	cmd, args, env := b.McpServerStdio()
	var es []acp.EnvVariable
	for k, v := range env {
		es = append(es, acp.EnvVariable{Name: k, Value: v})
	}
	return acp.StdioMcpServer(mcpbridge.ServerName, cmd, args, es)
}

// onCall is the bridge's callback for an agent's call of a VS Code tool: it waits until
// a later request of the conversation carries the result.
func (w *worker) onCall(ctx context.Context, call mcpbridge.Call) (mcpbridge.Result, error) {
	reply := make(chan mcpbridge.Result, 1)
	w.post(ctx, evCall{call: call, reply: reply})
	select {
	case res := <-reply:
		return res, nil
	case <-ctx.Done():
		return mcpbridge.Result{}, ctx.Err()
	case <-w.quit:
		return mcpbridge.Result{}, fmt.Errorf("the conversation ended")
	}
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

// onUpdate turns agent output into parts: text as text, the agent's own tool calls and
// plans as Markdown that shows each call once and then only its status changes.
func (w *worker) onUpdate(u acp.SessionUpdate) {
	if w.turn == nil || w.draining {
		return // the output of a cancelled or finished turn
	}
	if c := u.AgentMessageChunk; c != nil {
		if t, ok := c.Content.AsText(); ok {
			w.emit(TextPart(t))
		}
		return
	}
	for _, ev := range w.view.Apply(u) {
		if p, ok := w.structured(ev); ok {
			w.sendOrBuffer(p) // display only: not part of the history
			continue
		}
		w.mdOut.Reset()
		w.md.Render(ev)
		if w.mdOut.Len() > 0 {
			w.emitDisplay(w.mdOut.String())
		}
	}
}

// structured makes a thinking or tool_invocation part for a client that renders them:
// the tool call's whole state (toolui.ToolCallPart, the state model of VS Code's
// ChatToolInvocationPart) each time it changes, keyed by toolCallId.
func (w *worker) structured(ev toolui.Event) (ContentPart, bool) {
	var kind string
	switch ev.Kind {
	case toolui.ThoughtDelta:
		kind = "thinking"
	case toolui.ToolStarted, toolui.ToolUpdated, toolui.PermissionRequested:
		kind = "tool_invocation"
	default:
		return ContentPart{}, false
	}
	if !w.caps.CanRender(kind) {
		return ContentPart{}, false
	}
	if kind == "thinking" {
		raw, _ := json.Marshal(map[string]string{"type": "thinking", "value": ev.Text})
		return ContentPart{Type: kind, Raw: raw}, true
	}
	raw, err := toolui.ToolCallPart(kind, ev.Tool)
	if err != nil {
		return ContentPart{}, false
	}
	return ContentPart{Type: kind, Raw: raw}, true
}

// emit sends a part to the open request, or keeps it for the next one.
func (w *worker) emit(p ContentPart) {
	w.conv.AppendProvisional(p)
	w.sendOrBuffer(p)
}

// emitDisplay sends text parley made up for display; it is not part of the match key.
func (w *worker) emitDisplay(text string) {
	p := TextPart(text)
	w.conv.Emitted(p)
	w.sendOrBuffer(p)
}

func (w *worker) sendOrBuffer(p ContentPart) {
	if w.open != nil {
		w.s.send(w.open, p)
		return
	}
	w.buffer = append(w.buffer, p)
}

func (w *worker) flushBuffer() {
	for _, p := range w.buffer {
		w.s.send(w.open, p)
	}
	w.buffer = nil
}

// onPermission decides an agent's permission request: calls of bridged VS Code tools
// are allowed (VS Code confirms them itself); others become a call of the agent-action
// tool that VS Code confirms; without that tool, the request is refused.
func (w *worker) onPermission(req *acp.RequestPermissionRequest, reply chan acp.RequestPermissionOutcome) {
	title := strings.TrimPrefix(req.ToolCall.Title, "mcp__"+mcpbridge.ServerName+"__")
	for _, t := range w.tools {
		if t.Name == title {
			reply <- choose(req.Options, true)
			return
		}
	}
	if w.action == "" || w.turn == nil || w.draining {
		reply <- choose(req.Options, false)
		return
	}
	params, _ := json.Marshal(map[string]any{"kind": nullIfEmpty(string(req.ToolCall.Kind)), "title": nullIfEmpty(req.ToolCall.Title), "raw_input": req.ToolCall.RawInput})
	w.perm = &permWait{id: req.ToolCall.ToolCallID, req: req, reply: reply}
	w.emit(ContentPart{Type: PartToolCall, ToolCallID: string(req.ToolCall.ToolCallID), ToolName: w.action, Parameters: params})
	w.completeSoon()
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// choose picks an allow_once or a reject_once option by kind (never by position).
func choose(options []acp.PermissionOption, allow bool) acp.RequestPermissionOutcome {
	kind := acp.PermissionOptionKindRejectOnce
	if allow {
		kind = acp.PermissionOptionKindAllowOnce
	}
	if o, ok := permission.ChooseOption(options, kind); ok {
		return acp.SelectedOutcome(o.OptionID)
	}
	if !allow {
		if o, ok := permission.ChooseOption(options, acp.PermissionOptionKindRejectAlways); ok {
			return acp.SelectedOutcome(o.OptionID)
		}
	}
	return acp.CancelledOutcome()
}

func (w *worker) answerPermission(approved bool) {
	if w.perm == nil {
		return
	}
	w.perm.reply <- choose(w.perm.req.Options, approved)
	w.perm = nil
}

// completeSoon ends the open request shortly, so that calls the agent makes at the same
// time go out together in one response.
func (w *worker) completeSoon() {
	if w.complete != nil {
		w.complete.Stop()
	}
	w.complete = time.AfterFunc(50*time.Millisecond, func() { w.post(context.Background(), evCompleteNow{}) })
}

// cancelTurn stops the running prompt (session/cancel), refuses a pending permission,
// and fails pending tool calls; the prompt's late output is dropped.
func (w *worker) cancelTurn() {
	w.answerPermission(false)
	for id, reply := range w.calls {
		reply <- mcpbridge.Result{Text: "the request was cancelled", IsError: true}
		delete(w.calls, id)
	}
	if w.turn != nil && !w.draining {
		w.turn()
		w.draining = true
	}
}

func (w *worker) onPromptDone(ev evPromptDone) {
	w.turn = nil
	if w.draining {
		w.draining = false
		if q := w.queued; q != nil {
			w.queued = nil
			w.startPrompt(q)
		}
		return
	}
	if ev.err != nil {
		w.finishOpen(jsonrpc2.Errorf(codeAgentFailure, "the agent failed: %v", ev.err))
		return
	}
	w.conv.Complete()
	w.finishOpen(nil)
	if q := w.queued; q != nil {
		w.queued = nil
		w.startPrompt(q)
	}
}

func (w *worker) finishOpen(err error) {
	if w.open == nil {
		return
	}
	w.open.finish(err)
	w.open = nil
}
