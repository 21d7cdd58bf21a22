package acpserver

import (
	"context"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changesrpc"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/mailbox"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolui"
)

// view is one connection's view of one session: its own subscription to the
// conversation (the Snapshot, then every event after it: the conversation never waits
// for it, so a page that reads slowly holds only its own view back), a mailbox for what
// parley itself adds (terminal output, a setting another client changed) and one
// goroutine that writes to the connection. The subscription holds what the agent sent
// that the page has not read yet, which is what the page will be shown, so it keeps all
// of it.
type view struct {
	c    *conn
	ss   *session
	sub  *conversation.Subscription
	side *mailbox.Box[sideEvent]
	ctx  context.Context // ends with the view: its terminal pollers
	end  context.CancelFunc

	stopOnce sync.Once
	stopped  chan struct{} // closed when the view is over

	mu   sync.Mutex
	asks map[int]context.CancelFunc // open permission questions put to the page, by id
	wg   sync.WaitGroup             // the asks' goroutines and the terminal pollers

	// Owned by the view's goroutine: the prompts running and queued, for _parley/queue,
	// and the terminals whose output it shows.
	running *int
	queue   []conversation.Prompt
	polled  map[acp.TerminalID]bool
	tools   *toolMessages
}

// sideEvent is what parley adds to a view: one of its fields is set.
type sideEvent struct {
	update   *acp.SessionUpdate // one parley made (a setting another client changed)
	terminal *parleyapi.TerminalOutputNotification
	// sync is closed once the view has shown everything its subscription held when sync
	// was posted (see flushed).
	sync chan struct{}
}

// viewEvent is one thing to show: an event of the conversation, or one of parley's.
type viewEvent struct {
	ev conversation.Event
	sideEvent
}

func newView(c *conn, ss *session, sub *conversation.Subscription) *view {
	ctx, end := context.WithCancel(c.ctx)
	return &view{c: c, ss: ss, sub: sub, side: mailbox.New[sideEvent](), ctx: ctx, end: end, stopped: make(chan struct{}),
		asks: map[int]context.CancelFunc{}, polled: map[acp.TerminalID]bool{}, tools: newToolMessages(ss.roots.Dirs()[0])}
}

// first takes the subscription's first events: the Snapshot, and what followed it
// already. A conversation that had ended has no Snapshot: only Closed.
func (v *view) first() (conversation.Snapshot, []conversation.Event) {
	evs := v.sub.Take() // subscribe returned once the Snapshot was posted: never empty
	if snap, ok := evs[0].(conversation.Snapshot); ok {
		return snap, evs[1:]
	}
	return conversation.Snapshot{}, evs
}

// stop ends the view (its goroutine returns), and releases whoever waits in flushed.
func (v *view) stop() {
	v.stopOnce.Do(func() {
		close(v.stopped)
		v.sub.Close()
		v.side.Close()
		for _, e := range v.side.Take() {
			if e.sync != nil {
				close(e.sync)
			}
		}
	})
}

// flushed returns once the view has shown what the conversation had sent it until now,
// or the view is over: a prompt's answer then follows the updates of its turn on the
// wire. (What flushed posts is taken before the subscription's events in one round of
// the view's loop, so that round shows them all first.)
func (v *view) flushed(ctx context.Context) {
	sync := make(chan struct{})
	if !v.side.Post(sideEvent{sync: sync}) {
		return
	}
	select {
	case <-sync:
	case <-v.stopped:
	case <-ctx.Done():
	}
}

// run shows the Snapshot (its transcript too unless the request that attached the view
// sent it), then what followed, until the session or the connection ends.
func (v *view) run(snap conversation.Snapshot, rest []conversation.Event, replayed bool) {
	defer v.finish()
	v.showSnapshot(snap, replayed)
	batch := make([]viewEvent, 0, len(rest))
	for _, ev := range rest {
		batch = append(batch, viewEvent{ev: ev})
	}
	done := v.c.ac.Done()
	for {
		for _, e := range coalesce(batch) {
			if !v.show(e) {
				return
			}
		}
		select {
		case <-v.sub.Ready():
		case <-v.side.Ready():
		case <-v.stopped:
			return
		case <-done:
			return
		}
		side := v.side.Take() // first: see flushed
		batch = batch[:0]
		for _, ev := range v.sub.Take() {
			batch = append(batch, viewEvent{ev: ev})
		}
		for _, e := range side {
			batch = append(batch, viewEvent{sideEvent: e})
		}
	}
}

func (v *view) finish() {
	v.stop()
	v.end()
	v.stopAsks()
}

// showSnapshot shows a view that comes late where the conversation stands: what it
// showed so far, the terminals' output, the queue, the start or sign-in under way, the
// question on screen.
func (v *view) showSnapshot(snap conversation.Snapshot, replayed bool) {
	ctx, id := v.c.ctx, v.ss.id
	for tid := range snap.Terminals {
		v.polled[tid] = true // released: there is nothing more to read
	}
	for _, u := range snap.Transcript {
		u = v.tools.add(u) // replayed or not: the calls' later updates build on it
		if !replayed {
			v.c.ac.Update(ctx, id, u)
		}
		v.watchTerminals(u)
	}
	for _, d := range snap.Refusals { // after the calls' updates: the agent's "failed" is not what happened
		if u, ok := v.tools.decided(d); ok && !replayed && u.ToolCallUpdate != nil {
			v.c.ac.Update(ctx, id, u)
		}
	}
	for tid, out := range snap.Terminals {
		v.c.notify(ctx, parleyapi.MethodTerminalOutput, &parleyapi.TerminalOutputNotification{SessionID: id, TerminalID: tid, Output: out.Output, Truncated: out.Truncated, ExitStatus: out.ExitStatus})
	}
	if snap.Running != nil {
		running := snap.Running.ID
		v.running = &running
	}
	v.queue = snap.Queue
	v.notifyQueue()
	switch {
	case snap.Starting && snap.Progress != nil:
		v.show(viewEvent{ev: *snap.Progress})
	case snap.Starting && snap.Start != nil:
		v.show(viewEvent{ev: *snap.Start})
	}
	if snap.SignIn != nil {
		v.show(viewEvent{ev: *snap.SignIn})
	}
	if snap.SigningIn && snap.SignInMethod != nil {
		v.show(viewEvent{ev: conversation.SigningIn{Method: *snap.SignInMethod}})
	}
	if snap.Question != nil {
		v.ask(*snap.Question)
	}
	if snap.Elicitation != nil {
		v.elicit(*snap.Elicitation)
	}
}

// notifyQueue tells the page the turn that runs and what waits behind it.
func (v *view) notifyQueue() {
	n := &parleyapi.QueueNotification{SessionID: v.ss.id, Running: v.running, Queued: []parleyapi.QueuedPrompt{}}
	for _, p := range v.queue {
		n.Queued = append(n.Queued, parleyapi.QueuedPrompt{PromptID: p.ID, Text: p.Text()})
	}
	v.c.notify(v.c.ctx, parleyapi.MethodQueue, n)
}

// dropQueued takes prompt id out of the queue the view shows.
func (v *view) dropQueued(id int) {
	for i, p := range v.queue {
		if p.ID == id {
			v.queue = append(v.queue[:i:i], v.queue[i+1:]...)
			return
		}
	}
}

// show sends one thing to the page; it reports false when the view is over.
func (v *view) show(e viewEvent) bool {
	ctx := v.c.ctx
	id := v.ss.id
	switch {
	case e.sync != nil:
		close(e.sync)
	case e.update != nil:
		v.c.ac.Update(ctx, id, *e.update)
	case e.terminal != nil:
		v.c.notify(ctx, parleyapi.MethodTerminalOutput, e.terminal)
	}
	switch ev := e.ev.(type) {
	case conversation.AgentUpdate:
		v.c.ac.Update(ctx, id, v.tools.add(ev.Update))
		v.watchTerminals(ev.Update)
	case conversation.Decided:
		if u, ok := v.tools.decided(ev); ok {
			v.c.ac.Update(ctx, id, u)
		}
	case conversation.TerminalReleased:
		v.polled[ev.ID] = true
		if out := ev.Output; out != nil {
			v.c.notify(ctx, parleyapi.MethodTerminalOutput, &parleyapi.TerminalOutputNotification{SessionID: id, TerminalID: ev.ID, Output: out.Output, Truncated: out.Truncated, ExitStatus: out.ExitStatus})
		}
	case conversation.Queued:
		v.queue = append(v.queue, ev.Prompt)
		v.notifyQueue()
	case conversation.Unqueued:
		v.dropQueued(ev.Prompt.ID)
		v.notifyQueue()
	case conversation.TurnStarted:
		if ev.Replay {
			break
		}
		if origin, _ := ev.Prompt.Origin.(promptOrigin); origin.c != v.c || origin.echo { // a plain ACP client shows its own prompt
			for _, b := range ev.Prompt.Content {
				v.c.ac.Update(ctx, id, acp.UserMessageChunk(b))
			}
		}
		running := ev.Prompt.ID
		v.running = &running
		v.dropQueued(running)
		v.notifyQueue()
	case conversation.TurnEnded:
		if ev.Replay {
			break
		}
		if v.running != nil && *v.running == ev.Turn {
			v.running = nil
		}
		v.dropQueued(ev.Turn) // a queued prompt that failed with the start
		v.notifyQueue()
	case conversation.QuestionAsked:
		v.ask(ev)
	case conversation.QuestionClosed:
		v.withdraw(ev.ID)
	case conversation.ElicitationAsked:
		v.elicit(ev)
	case conversation.ElicitationClosed:
		v.withdraw(ev.ID)
	case conversation.ElicitationCompleted:
		v.c.ac.CompleteElicitation(ctx, &acp.CompleteElicitationNotification{ElicitationID: ev.ID})
	case conversation.SignInRequired:
		v.c.notify(ctx, parleyapi.MethodSignInRequired, parleyapi.SignInRequiredNotification{SessionID: id, Agent: ev.Agent, During: ev.During, Methods: signInMethods(v.ss.agentName, ev.Methods)})
	case conversation.SigningIn:
		v.c.notify(ctx, parleyapi.MethodStatus, parleyapi.StatusNotification{SessionID: id, State: "signing_in", Text: "signing in: " + toolui.SafeText(ev.Method.Name)})
	case conversation.SignInEnded:
		n := parleyapi.SignInEndedNotification{SessionID: id, Method: toolui.SafeText(ev.Method.Name)}
		if ev.Err != nil {
			n.Error = toolui.SafeText(ev.Err.Error())
		}
		v.c.notify(ctx, parleyapi.MethodSignInEnded, n)
	case conversation.TurnChanges:
		n := parleyapi.TurnChangesNotification{SessionID: id, PromptID: ev.Turn, ChangedTurn: changesrpc.Turn(ev.Record)}
		if ev.Err != nil {
			n.Error = toolui.SafeText(ev.Err.Error())
		}
		v.c.notify(ctx, parleyapi.MethodChanges, n)
	case conversation.ChangesUndone:
		n := parleyapi.ChangesChangedNotification{SessionID: id, What: "undone", Files: []string{}}
		for _, f := range ev.Result.Files {
			n.Files = append(n.Files, f.Rel)
		}
		v.c.notify(ctx, parleyapi.MethodChangesChanged, n)
	case conversation.ChangesKept:
		n := parleyapi.ChangesChangedNotification{SessionID: id, What: "kept", Files: []string{}}
		for _, k := range ev.Kept {
			n.Files = append(n.Files, k.Change.Rel)
		}
		v.c.notify(ctx, parleyapi.MethodChangesChanged, n)
	case conversation.Notice:
		v.c.notify(ctx, parleyapi.MethodNotice, parleyapi.NoticeNotification{SessionID: id, Text: ev.Text})
	case conversation.Starting:
		text := "starting " + ev.Agent
		if ev.Restart {
			text = "restarting " + ev.Agent
			if ev.Reason != nil {
				text += ": " + toolui.SafeText(ev.Reason.Error())
			}
		}
		v.c.notify(ctx, parleyapi.MethodStatus, parleyapi.StatusNotification{SessionID: id, State: "starting", Text: text})
	case conversation.StartProgress:
		v.c.notify(ctx, parleyapi.MethodStatus, parleyapi.StatusNotification{SessionID: id, State: "starting", Text: toolui.SafeText(progressText(ev))})
	case conversation.Ready:
		v.c.notify(ctx, parleyapi.MethodStatus, parleyapi.StatusNotification{SessionID: id, State: "ready"})
	case conversation.StartFailed:
		v.c.notify(ctx, parleyapi.MethodStatus, parleyapi.StatusNotification{SessionID: id, State: "failed", Text: toolui.SafeText(ev.Err.Error())})
	case conversation.Closed:
		v.c.notify(ctx, parleyapi.MethodStatus, parleyapi.StatusNotification{SessionID: id, State: "closed"})
		return false
	}
	return true
}

// ask puts a permission question to the page. The first answer from any view wins; the
// others' requests are withdrawn ($/cancel_request) when the question closes.
func (v *view) ask(q conversation.QuestionAsked) {
	ctx, cancel := context.WithCancel(v.c.ctx)
	v.mu.Lock()
	v.asks[q.ID] = cancel
	v.mu.Unlock()
	req := permissionRequest(v.ss.id, q)
	v.wg.Go(func() {
		defer cancel()
		resp, err := v.c.ac.RequestPermission(ctx, req)
		if err != nil {
			return // withdrawn, or the page went away: the question waits for another view
		}
		a := answerOf(resp.Outcome, q.Question.Answers)
		if v.ss.conv.AnswerFirst(q.ID, a) {
			v.logAnswer(q.ID, "answer", a.String())
		}
	})
}

// logAnswer tells the server's log that this view answered question id first.
func (v *view) logAnswer(id int, key, answer string) {
	p := v.c.peer
	v.ss.srv.logger.Info("a question answered", "session", v.ss.id, "question", id, key, answer, "token", p.Name, "remote", p.Remote)
}

// withdraw takes back what the page was asked (answered elsewhere, or withdrawn).
func (v *view) withdraw(id int) {
	v.mu.Lock()
	if cancel := v.asks[id]; cancel != nil {
		cancel()
		delete(v.asks, id)
	}
	v.mu.Unlock()
}

func (v *view) stopAsks() {
	v.mu.Lock()
	for id, cancel := range v.asks {
		cancel()
		delete(v.asks, id)
	}
	v.mu.Unlock()
	v.wg.Wait()
}

// The options a page is offered are parley's answers, not the agent's options: the
// policy decides which answers it accepts (no "always allow" for a critical command) and
// how each becomes the agent's option. Their ids are the answers' kinds (answerID).
var answerKinds = map[permission.Answer]acp.PermissionOptionKind{
	permission.AllowOnce:          acp.PermissionOptionKindAllowOnce,
	permission.AllowWhileConfined: acp.PermissionOptionKindAllowOnce, // its id says which
	permission.AllowAlways:        acp.PermissionOptionKindAllowAlways,
	permission.RejectOnce:         acp.PermissionOptionKindRejectOnce,
	permission.RejectAlways:       acp.PermissionOptionKindRejectAlways,
}

var answerNames = map[permission.Answer]string{
	permission.AllowOnce:          "Allow once",
	permission.AllowWhileConfined: "Allow while confined (this session)",
	permission.AllowAlways:        "Always allow",
	permission.RejectOnce:         "Reject",
	permission.RejectAlways:       "Always reject",
}

// permissionRequest is the question as the page is asked it.
func permissionRequest(session acp.SessionID, q conversation.QuestionAsked) *acp.RequestPermissionRequest {
	agentReq := q.Question.Request
	req := &acp.RequestPermissionRequest{SessionID: session, ToolCall: agentReq.ToolCall}
	if !hasDiff(req.ToolCall.Content) && len(q.Question.Diffs) > 0 {
		// The edit the question is about, as parley worked it out: shown before asking.
		req.ToolCall.Content = append([]acp.ToolCallContent(nil), req.ToolCall.Content...)
		for _, d := range q.Question.Diffs {
			diff := &acp.Diff{Path: d.Path, NewText: d.NewText}
			if !d.IsNew {
				old := d.OldText
				diff.OldText = &old
			}
			req.ToolCall.Content = append(req.ToolCall.Content, acp.ToolCallContent{Diff: diff})
		}
	}
	for _, a := range q.Question.Answers {
		kind := answerKinds[a]
		name := answerNames[a]
		for _, o := range agentReq.Options { // the agent's words for it, when it has them
			if o.Kind == kind && o.Name != "" && a != permission.AllowWhileConfined {
				name = o.Name
				break
			}
		}
		req.Options = append(req.Options, acp.PermissionOption{OptionID: answerID(a), Name: name, Kind: kind})
	}
	s := q.Question.Subject
	risk := parleyapi.RiskMeta{Command: s.Command, Tier: s.Tier().String(), Always: s.Always, RunsEditableCode: s.RunsEditableCode()}
	if s.Analysis != nil {
		for _, f := range s.Analysis.Findings {
			risk.Reasons = append(risk.Reasons, f.Reason)
		}
	}
	req.Meta = parleyMeta(risk)
	return req
}

func hasDiff(content []acp.ToolCallContent) bool {
	for _, c := range content {
		if c.Diff != nil {
			return true
		}
	}
	return false
}

// answerOf maps the page's outcome back to an answer; anything not offered is a refusal.
func answerOf(o acp.RequestPermissionOutcome, offered []permission.Answer) permission.Answer {
	if o.Selected == nil {
		return permission.Cancelled
	}
	for _, a := range offered {
		if answerID(a) == o.Selected.OptionID {
			return a
		}
	}
	return permission.RejectOnce
}

// answerID is the id of an answer's option: its kind, or for the one answer that shares
// a kind, its own name.
func answerID(a permission.Answer) acp.PermissionOptionID {
	if a == permission.AllowWhileConfined {
		return "allow_while_confined"
	}
	return acp.PermissionOptionID(answerKinds[a])
}

// progressText says how an agent's slow start goes.
func progressText(p conversation.StartProgress) string {
	text := "starting " + p.Agent + ": " + p.Command
	if p.Download != "" {
		text += " (downloading " + p.Download + ")"
	}
	for _, line := range p.Stderr {
		text += "\n" + line
	}
	return text
}
