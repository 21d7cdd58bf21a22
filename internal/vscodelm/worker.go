package vscodelm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/mailbox"
	"github.com/parley-acp/parley/internal/mcpbridge"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/parley-acp/parley/internal/workspace"
)

// worker is the actor that serves one VS Code conversation. It is a view of a
// conversation.Conversation (the conversation core owns the ACP session, folds the
// agent's updates, applies the permission policy and records the changes) and owns only
// what VS Code's side needs: the request VS Code has open, what the agent said while no
// request was open, the tool calls and permission questions that wait for VS Code, and
// the messages VS Code sent that the agent has not seen. The router reaches it through
// its mailbox, the conversation through its subscription; it reports to the router with
// messages. Nobody else reads or writes its fields.
type worker struct {
	s       *Server
	id      string // names its vscode_tools server
	def     AgentDef
	logger  *slog.Logger
	mail    *mailbox.Box[workerMsg] // from the router, the bridge and the worker's own timers
	quit    <-chan struct{}         // closed by the server when it shuts down
	done    chan struct{}           // closed when run has returned
	ctx     context.Context
	cancel  context.CancelFunc // ends ctx when run returns: every helper ends with it
	helpers sync.WaitGroup     // discovery waits; end waits for them
	// offered are the bridged tools of the latest request, for Predecide, which runs on the
	// agent's request goroutines.
	offered atomic.Pointer[[]ToolDefinition]
	// published is the conversation, once opened, for the requests about it (lm/diff…),
	// which the server's handlers serve on their own goroutines (a Conversation is safe
	// for concurrent use).
	published atomic.Pointer[conversation.Conversation]

	// Owned by run.
	convID      string // the conversation it serves; "" for a spare not taken yet
	agent       *pooled
	conv        *conversation.Conversation
	sub         *conversation.Subscription
	session     conversation.Session // as the core last reported it
	ready       bool                 // the session is open (Ready, and no StartFailed since)
	starting    bool                 // the session is being opened
	discovering bool                 // the first prompt waits for the agent to list VS Code's tools
	discovered  bool                 // no need to wait for that (any more)
	bridge      *mcpbridge.Session
	unseen      []Message    // of requests cancelled before their prompt went out: context for the next one
	pending     *chatRequest // waits for the session to open
	queued      *chatRequest // waits for the cancelled turn to end
	open        *chatRequest // the request being answered
	answer      []said       // what was streamed to open
	buffer      []said       // what the agent said while no request was open
	turn        *turnState   // the running prompt; nil between turns
	calls       []*waitingCall
	perms       []*waitingPerm
	elicits     []int                   // the agent's questions shown to the client, not answered yet
	started     map[acp.ToolCallID]bool // the tool calls the agent reported this turn
	complete    *time.Timer
	completeGen int
	md          *toolui.MarkdownRenderer
	mdOut       strings.Builder
	tools       []ToolDefinition
	action      string
	caps        *ClientCapabilities // of the latest request: which extra parts the client renders
	last        *chatRequest        // the latest request taken, for busy reports
	busy        bool                // as last reported to the router
	unhandled   []workerMsg         // taken from the mailbox behind the message that ended run

	// The agent's reply and thoughts, made visible piece by piece (toolui.SafeStream: a
	// joiner or selector at the start of a chunk is judged by the chunk before). A
	// turn starts each afresh.
	text, thinking toolui.SafeStream
}

// turnState is a running prompt.
type turnState struct {
	id       int  // the conversation.Prompt's id
	draining bool // cancelled: its output is dropped until it ends
	// What the prompt carries that the agent had not seen, given back to unseen when the
	// turn is cancelled before its prompt went out.
	unseen []Message
	// ended is the turn's end, held until its record of changes comes (TurnChanges).
	ended *conversation.TurnEnded
}

// said is one part for VS Code. A transient part (thinking, tool_invocation) is not
// part of the history; shows marks a waiting call or permission as shown once sent.
type said struct {
	part      ContentPart
	note      *note // instead of a part: a notification about the request (features.go)
	display   bool
	transient bool
	shows     *bool
}

// workerMsg is what a worker's mailbox holds.
type workerMsg interface{ workerMsg() }

// Messages from the router.
type (
	// requestMsg: a chat request matched to this conversation. cancelled: lm/cancel came
	// before the request was routed; it is answered already.
	requestMsg struct {
		req       *chatRequest
		cancelled bool
	}
	cancelMsg struct{ req *chatRequest } // lm/cancel (the router has answered the request)
	closeMsg  struct{}                   // the conversation is evicted: close it and end
	// prepareMsg: open a spare session ahead of the conversation that will take it.
	prepareMsg struct {
		cwd   string
		dirs  []string
		tools []ToolDefinition
	}
)

// Messages from the bridge and the worker's own helpers.
type (
	// callMsg: the agent called a VS Code tool; reply gets the result.
	callMsg struct {
		call  mcpbridge.Call
		reply chan mcpbridge.Result // buffered: the worker never waits on it
	}
	completeMsg   struct{ gen int } // the response may end: VS Code now runs the tools shown
	discoveredMsg struct{}          // the agent listed the tools, gave up, or took too long
)

func (requestMsg) workerMsg()    {}
func (cancelMsg) workerMsg()     {}
func (closeMsg) workerMsg()      {}
func (prepareMsg) workerMsg()    {}
func (callMsg) workerMsg()       {}
func (completeMsg) workerMsg()   {}
func (discoveredMsg) workerMsg() {}

func newWorker(s *Server, id string, def AgentDef) *worker {
	ctx, cancel := context.WithCancel(context.Background())
	w := &worker{
		s: s, id: id, def: def, logger: s.logger.With("worker", id),
		mail: mailbox.New[workerMsg](), quit: s.quit, done: make(chan struct{}),
		ctx: ctx, cancel: cancel,
	}
	w.md = toolui.NewMarkdownRenderer(&w.mdOut)
	return w
}

var (
	errCancelled = jsonrpc2.Errorf(jsonrpc2.CodeRequestCancelled, "request cancelled")
	errClosed    = jsonrpc2.Errorf(codeAgentFailure, "the conversation was closed; send the request again")
)

func (w *worker) run() {
	defer w.end()
	for {
		var events <-chan struct{} // none until the conversation is opened
		if w.sub != nil {
			events = w.sub.Ready()
		}
		select {
		case <-w.mail.Ready():
			msgs := w.mail.Take()
			for i, m := range msgs {
				if !w.handle(m) {
					w.unhandled = msgs[i+1:] // end answers them
					return
				}
			}
		case <-events:
			w.onEvents(w.sub.Take())
		case <-w.quit:
			return
		}
		w.reportBusy()
	}
}

// handle handles a message of the mailbox; false ends the worker.
func (w *worker) handle(m workerMsg) bool {
	switch m := m.(type) {
	case requestMsg:
		w.onRequest(m.req, m.cancelled)
	case cancelMsg:
		w.onCancel(m.req)
	case closeMsg:
		return false
	case prepareMsg:
		w.setTools(m.tools, "")
		if err := w.openConversation(m.cwd, m.dirs); err != nil {
			w.logger.Info("no spare session", "agent", w.def.Label(), "error", err)
		}
	case callMsg:
		w.onCall(m.call, m.reply)
	case completeMsg:
		if m.gen == w.completeGen && w.open != nil && w.waitingShown() {
			w.endExchange("awaiting_tools", nil) // VS Code now runs the tools
		}
	case discoveredMsg:
		w.discovering, w.discovered = false, true
		if r := w.pending; r != nil {
			w.pending = nil
			w.prompt(r)
		}
	}
	return true
}

// end answers everything still waiting, closes the conversation (its session is closed
// where the agent can) and gives the agent back to the pool.
func (w *worker) end() {
	if w.complete != nil {
		w.complete.Stop()
	}
	for _, r := range []*chatRequest{w.open, w.pending, w.queued} {
		if r != nil {
			r.finish(errCancelled)
		}
	}
	w.refuseWaits()
	w.cancel()
	close(w.done)
	w.helpers.Wait()
	w.mail.Close()
	// Taken behind the close, or posted before the router knew: none must go unanswered.
	for _, m := range append(w.unhandled, w.mail.Take()...) {
		switch m := m.(type) {
		case requestMsg:
			m.req.finish(errClosed)
		case callMsg:
			m.reply <- mcpbridge.Result{Text: "The conversation ended.", IsError: true}
		}
	}
	if w.conv != nil {
		w.sub.Close()
		w.conv.Close()
	}
	if w.bridge != nil {
		w.bridge.Close()
	}
	if w.agent != nil {
		w.s.pool.release(w.agent)
	}
}

// reportBusy tells the router when the conversation starts or stops having work, so that
// it never evicts a busy one.
func (w *worker) reportBusy() {
	busy := w.open != nil || w.pending != nil || w.queued != nil || w.turn != nil || w.starting ||
		len(w.calls) > 0 || len(w.perms) > 0 || len(w.elicits) > 0
	if busy != w.busy && w.convID != "" {
		w.busy = busy
		w.s.post(context.Background(), routeBusy{conv: w.convID, busy: busy, last: w.last})
	}
}

// setTools takes the tools a request offers: the bridged ones go to vscode_tools (and to
// Predecide), the agent-action tool's name is kept.
func (w *worker) setTools(tools []ToolDefinition, action string) {
	w.tools, w.action = tools, action
	w.offered.Store(&tools)
	if w.bridge != nil {
		w.bridge.SetTools(bridgeTools(tools))
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
	w.caps = r.params.Capabilities
	w.setTools(r.tools, r.action)
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
	if w.agent != nil && w.agent.renewed.Load() {
		// The user signed in since the agent started: a new process, which knows it.
		w.logger.Info("a new process for the agent, since the user signed in", "agent", w.def.Label())
		w.closeConversation()
	}
	if w.conv == nil {
		if err := w.openConversation(r.params.Cwd, r.params.AdditionalDirectories); err != nil {
			w.report(r, nil, "failed")
			r.finish(jsonrpc2.Errorf(codeAgentFailure, "%v", err))
			return
		}
	}
	if !w.ready {
		w.pending = r
		if !w.starting {
			w.starting = true
			w.conv.Start()
		}
		return
	}
	if w.awaitDiscovery() {
		w.pending = r
		return
	}
	w.startTurn(r)
}

// openConversation opens the conversation on the agent's process (started if it is not
// running), with the vscode_tools MCP server; its session opens in the background, and
// Ready or StartFailed say how that went. The worker keeps answering cancels and new
// requests meanwhile.
func (w *worker) openConversation(cwd string, dirs []string) error {
	if cwd == "" {
		cwd = w.s.cwd
	}
	roots, err := workspace.NewRoots(append([]string{cwd}, dirs...)...)
	if err != nil {
		return fmt.Errorf("the workspace: %w", err)
	}
	if w.bridge == nil {
		if w.bridge, err = w.s.bridge.AddSession(w.id, w.onBridgeCall); err != nil {
			return fmt.Errorf("serving VS Code's tools to the agent: %w", err)
		}
		w.bridge.SetTools(bridgeTools(w.tools))
	}
	a := w.s.pool.get(w.def, roots.Dirs())
	if a == nil {
		return errors.New("parley is shutting down")
	}
	home, _ := os.UserHomeDir()
	opts := conversation.Options{
		Agent: a.agent, Roots: roots,
		Policy: &permission.Policy{
			Store: w.s.store, StoreErr: w.s.storeErr, Agent: a.name, Workspace: roots.Dirs()[0], Roots: roots.Dirs(), Home: home,
			Rules: w.s.rules,
		},
		// VS Code's user answers, through the agent-action tool (and @parley's forms).
		Interactive: true, Elicit: true,
		MCPServersFor: w.mcpServers, Predecide: w.predecide,
	}
	if w.s.changes != nil {
		rec, err := w.s.changes.Conversation(w.ctx, roots, a.name)
		if err != nil {
			w.logger.Warn("the agent's changes will not be recorded", "error", err)
		} else {
			opts.Changes = rec
		}
	}
	w.agent = a
	w.conv = conversation.New(opts)
	subscribing(w.conv)
	w.sub = w.conv.Subscribe()
	w.published.Store(w.conv)
	w.starting, w.ready = true, false
	return nil
}

// subscribing runs between conversation.New, which starts opening the session, and the
// worker's Subscribe: a test holds it there until the session has opened, the interleaving
// a busy machine produces now and then.
var subscribing = func(*conversation.Conversation) {}

// closeConversation ends the conversation and gives its agent back; the next request
// opens another (its session is new: it is given the earlier turns).
func (w *worker) closeConversation() {
	if w.conv == nil {
		return
	}
	w.sub.Close()
	w.conv.Close()
	w.s.pool.release(w.agent)
	w.conv, w.sub, w.agent = nil, nil, nil
	w.published.Store(nil)
	w.ready, w.starting, w.discovering, w.discovered = false, false, false, false
}

// mcpServers is vscode_tools in the form the agent takes; it runs on the conversation's
// helper goroutine (the bridge session is set before the conversation starts).
func (w *worker) mcpServers(caps acp.AgentCapabilities) []acp.MCPServer {
	return []acp.MCPServer{mcpServer(w.bridge, caps.MCPCapabilities.HTTP)}
}

// predecide allows an agent's call of one of the VS Code tools the conversation offers
// (VS Code confirms the tool itself when it runs it); anything else is left to the
// policy, and then to VS Code's user. It runs on the agent's request goroutine.
func (w *worker) predecide(ctx context.Context, req *acp.RequestPermissionRequest, seen *toolstate.ToolCall) conversation.Predecision {
	var tools []ToolDefinition
	if p := w.offered.Load(); p != nil {
		tools = *p
	}
	if tool := bridgedToolAsked(req, seen, tools); tool != "" {
		w.logger.Debug("allowed the agent's call of a VS Code tool", "tool", tool)
		return conversation.AllowWithoutAsking
	}
	return conversation.Undecided
}

// discoveryWait bounds how long a session's first prompt waits for the agent to list the
// tools of vscode_tools.
const discoveryWait = 10 * time.Second

// awaitDiscovery reports whether the session's first prompt must wait for the agent to
// list VS Code's tools, and starts that wait (discoveredMsg ends it).
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
	w.helpers.Go(func() {
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
		w.mail.Post(discoveredMsg{})
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

// startTurn sends the request's new user text as a prompt. A session that has not been
// sent a prompt yet (a new conversation, a spare, or a new session after the agent
// restarted) is given the earlier turns with it; another one the messages of requests
// cancelled before the agent saw them. The conversation core picks which of the two
// when it sends the prompt, as it alone knows whether the session is new by then.
func (w *worker) startTurn(r *chatRequest) {
	text := userText(r.new)
	unseen := slices.Concat(w.unseen, r.new)
	normal, first := text, text
	if strings.TrimSpace(text) != "" {
		if len(w.unseen) > 0 {
			normal = "Earlier in this conversation:\n" + transcript(w.unseen) + "\n" + text
		}
		first = normal
		if len(r.context) > 0 {
			first = "Earlier in this conversation:\n" + transcript(r.context) + "\n" + text
		}
	}
	w.openExchange(r) // with what a turn that ended without a request to carry it said
	if strings.TrimSpace(text) == "" {
		w.endExchange("completed", nil)
		return
	}
	w.unseen = nil
	p := w.conv.SendWith([]acp.ContentBlock{acp.TextBlock(normal)}, conversation.SendOptions{FirstInSession: []acp.ContentBlock{acp.TextBlock(first)}})
	w.logger.Debug("turn started", "request", r.key, "session", w.session.ID)
	w.turn = &turnState{id: p.ID, unseen: unseen}
	w.started = map[acp.ToolCallID]bool{}
	w.text.Reset()
	w.thinking.Reset()
}

// onTurnEnded ends the exchange of a turn that is over: at once, or, when the
// conversation records changes, once its record comes (TurnChanges follows every
// TurnEnded then), so that the changes go out with the answer.
func (w *worker) onTurnEnded(e conversation.TurnEnded) {
	if e.Replay || w.turn == nil || e.Turn != w.turn.id {
		return
	}
	if w.conv.Recorded() {
		w.turn.ended = &e
		return
	}
	w.finishTurn(e)
}

func (w *worker) finishTurn(e conversation.TurnEnded) {
	t := w.turn
	w.turn = nil
	ae, signIn := authRequired(e.Err)
	if errors.Is(e.Err, acp.ErrPromptNotSent) || signIn {
		// The agent never saw it, or refused it until the user signs in: what it carried
		// is context for the next prompt.
		w.unseen = slices.Concat(t.unseen, w.unseen)
	}
	w.refuseWaits() // the turn is over: nothing it waited for matters now
	switch {
	case t.draining:
	case signIn && w.open != nil:
		w.signIn(w.open, ae)
	case e.Err != nil:
		w.endExchange("failed", jsonrpc2.Errorf(codeAgentFailure, "the agent failed: %v", e.Err))
	case w.open != nil:
		w.noteUsage(e)
		w.endExchange("completed", nil)
	}
	if q := w.queued; q != nil {
		w.queued = nil
		w.prompt(q)
	}
}

// cancelTurn stops the running prompt (session/cancel), whose late output is dropped; what
// it waited for is refused. The conversation answers its pending permission requests
// "cancelled".
func (w *worker) cancelTurn() {
	w.buffer = nil
	if w.turn == nil || w.turn.draining {
		return
	}
	w.perms = nil // the conversation answers them "cancelled"
	for _, c := range w.calls {
		c.reply <- mcpbridge.Result{Text: "The request was cancelled.", IsError: true}
	}
	w.calls = nil
	w.cancelElicitations()
	w.conv.Cancel()
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

// onEvents shows what the conversation reports. A run of text the agent streamed while
// the worker was busy becomes one part, so that a fast agent costs one part per batch
// instead of one per chunk.
func (w *worker) onEvents(evs []conversation.Event) {
	for i := 0; i < len(evs); i++ {
		u, ok := evs[i].(conversation.TurnUpdate)
		if !ok || u.Update.Kind != toolstate.TextDelta {
			w.onEvent(evs[i])
			continue
		}
		var joined strings.Builder
		joined.WriteString(u.Update.Text)
		for i+1 < len(evs) {
			next, ok := evs[i+1].(conversation.TurnUpdate)
			if !ok || next.Turn != u.Turn || next.Update.Kind != toolstate.TextDelta {
				break
			}
			joined.WriteString(next.Update.Text)
			i++
		}
		w.onText(u.Turn, joined.String())
	}
}

func (w *worker) onEvent(ev conversation.Event) {
	switch e := ev.(type) {
	case conversation.Snapshot:
		// The first event of the subscription. conversation.New starts opening the
		// session before the worker subscribes, so on a busy machine the session may
		// have opened (or failed to) first: its Ready or StartFailed went to no one, and
		// the request waiting for it would never be answered. The snapshot says it.
		switch {
		case e.Ready:
			w.onEvent(conversation.Ready{Session: e.Session})
		case e.Failed != nil && !e.Starting:
			w.onEvent(conversation.StartFailed{Err: e.Failed})
		}
	case conversation.Starting:
		w.starting, w.ready = true, false
		if e.Restart {
			w.logger.Info("the agent is started again", "agent", w.def.Label(), "reason", e.Reason)
		}
	case conversation.Ready:
		w.starting, w.ready, w.session = false, true, e.Session
		if w.convID == "" {
			w.logger.Debug("spare session ready", "agent", w.def.Label(), "session", e.Session.ID)
		}
		if r := w.pending; r != nil {
			w.pending = nil
			w.prompt(r)
		}
	case conversation.StartFailed:
		w.starting, w.ready = false, false
		w.logger.Info("no session", "agent", w.def.Label(), "error", e.Err)
		if r := w.pending; r != nil {
			w.pending = nil
			if ae, ok := authRequired(e.Err); ok {
				w.unseen = append(w.unseen, r.new...)
				w.signIn(r, ae)
				return
			}
			w.report(r, nil, "failed")
			r.finish(jsonrpc2.Errorf(codeAgentFailure, "%v", e.Err))
		}
	case conversation.SessionChanged:
		w.session = e.Session
	case conversation.TurnUpdate:
		w.onUpdate(e)
	case conversation.TurnEnded:
		w.onTurnEnded(e)
	case conversation.TurnChanges:
		w.noteChanges(e)
		if t := w.turn; t != nil && t.id == e.Turn && t.ended != nil {
			w.finishTurn(*t.ended)
		}
	case conversation.QuestionAsked:
		w.onQuestion(e)
	case conversation.QuestionClosed:
		w.onQuestionClosed(e)
	case conversation.ElicitationAsked:
		w.onElicitation(e)
	case conversation.ElicitationClosed:
		w.onElicitationClosed(e.ID)
	case conversation.Notice:
		w.logger.Info("parley", "notice", e.Text)
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
