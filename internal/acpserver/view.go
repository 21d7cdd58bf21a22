package acpserver

import (
	"context"
	"strings"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changesrpc"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/mailbox"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolui"
)

// view is one connection's view of one session: a mailbox the hub posts to (it never
// waits: a page that reads slowly holds only its own view back) and one goroutine that
// writes to the connection. Its mailbox holds what the agent sent that the page has not
// read yet, which is what the page will be shown, so it keeps all of it.
type view struct {
	c   *conn
	ss  *session
	box *mailbox.Box[viewEvent]

	mu   sync.Mutex
	asks map[int]context.CancelFunc // open permission questions put to the page, by id
	wg   sync.WaitGroup             // the asks' goroutines
}

// viewEvent is one thing to show: one of its fields is set.
type viewEvent struct {
	ev       conversation.Event
	owner    *conn              // with a TurnStarted: the connection that sent the prompt
	echo     bool               // and it wants its prompt shown back
	replay   *acp.SessionUpdate // an update from the transcript, or one parley made
	queue    *parleyapi.QueueNotification
	terminal *parleyapi.TerminalOutputNotification
	// end, when set, is told endValue once everything before it was sent: a prompt's
	// answer follows its updates on the wire.
	end      chan<- promptEnd
	endValue promptEnd
}

func newView(c *conn, ss *session) *view {
	return &view{c: c, ss: ss, box: mailbox.New[viewEvent](), asks: map[int]context.CancelFunc{}}
}

func (v *view) post(e viewEvent) bool { return v.box.Post(e) }

// run shows first, then what the hub posts, until the session or the connection ends.
func (v *view) run(first []viewEvent) {
	defer v.stopAsks()
	defer v.releaseEnds()
	done := v.c.ac.Done()
	for _, e := range first {
		if !v.show(e) {
			return
		}
	}
	for {
		select {
		case <-v.box.Ready():
		case <-done:
			return
		}
		for _, e := range coalesce(v.box.Take()) {
			if !v.show(e) {
				return
			}
		}
	}
}

// coalesce joins runs of plain text chunks of one message in a batch into one update. A
// batch holds more than one event only when the page reads slower than the agent writes,
// so a page that keeps up sees every chunk as it came, and one that falls behind catches
// up in a few frames instead of one per chunk (ACP's chunks are only ever concatenated).
func coalesce(batch []viewEvent) []viewEvent {
	if len(batch) < 2 {
		return batch
	}
	out := batch[:0:0]
	var run strings.Builder // the text of the run that out's last event starts
	flush := func() {
		if run.Len() == 0 {
			return
		}
		last := &out[len(out)-1]
		u := last.ev.(conversation.AgentUpdate).Update
		kind, ch, _, _ := joinable(u)
		last.ev = conversation.AgentUpdate{Update: chunkUpdate(kind, &acp.ContentChunk{Content: acp.TextBlock(run.String()), MessageID: ch.MessageID})}
		run.Reset()
	}
	for _, e := range batch {
		if joined(out, e, &run) {
			continue
		}
		flush()
		out = append(out, e)
	}
	flush()
	return out
}

// joined adds e's text to the run when e continues the plain text message out ends with.
func joined(out []viewEvent, e viewEvent, run *strings.Builder) bool {
	if len(out) == 0 || !plainEvent(e) || !plainEvent(out[len(out)-1]) {
		return false
	}
	prev := out[len(out)-1].ev.(conversation.AgentUpdate).Update
	pk, pch, ptext, _ := joinable(prev)
	kind, ch, text, _ := joinable(e.ev.(conversation.AgentUpdate).Update)
	if kind != pk || ch.MessageID != pch.MessageID {
		return false
	}
	if run.Len() == 0 {
		run.WriteString(ptext)
	}
	run.WriteString(text)
	return true
}

// plainEvent reports whether e is only an agent update with a joinable text chunk.
func plainEvent(e viewEvent) bool {
	if e.end != nil || e.replay != nil || e.queue != nil || e.terminal != nil {
		return false
	}
	au, ok := e.ev.(conversation.AgentUpdate)
	if !ok {
		return false
	}
	_, _, _, ok = joinable(au.Update)
	return ok
}

// releaseEnds tells the prompts whose ends were still to be shown: nothing will be.
func (v *view) releaseEnds() {
	v.box.Close()
	for _, e := range v.box.Take() {
		if e.end != nil {
			e.end <- e.endValue
		}
	}
}

// show sends one event to the page; it reports false when the view is over.
func (v *view) show(e viewEvent) bool {
	if e.end != nil {
		defer func() { e.end <- e.endValue }()
	}
	ctx := v.c.ctx
	id := v.ss.id
	switch {
	case e.replay != nil:
		v.c.ac.Update(ctx, id, *e.replay)
	case e.queue != nil:
		v.c.notify(ctx, parleyapi.MethodQueue, e.queue)
	case e.terminal != nil:
		v.c.notify(ctx, parleyapi.MethodTerminalOutput, e.terminal)
	}
	switch ev := e.ev.(type) {
	case conversation.AgentUpdate:
		v.c.ac.Update(ctx, id, ev.Update)
	case conversation.TurnStarted:
		if e.owner != v.c || e.echo { // a plain ACP client shows its own prompt
			for _, b := range ev.Prompt.Content {
				v.c.ac.Update(ctx, id, acp.UserMessageChunk(b))
			}
		}
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
		v.ss.conv.Answer(q.ID, answerOf(resp.Outcome, q.Question.Answers))
	})
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
// how each becomes the agent's option. Their ids are the answers' kinds.
var answerKinds = map[permission.Answer]acp.PermissionOptionKind{
	permission.AllowOnce:    acp.PermissionOptionKindAllowOnce,
	permission.AllowAlways:  acp.PermissionOptionKindAllowAlways,
	permission.RejectOnce:   acp.PermissionOptionKindRejectOnce,
	permission.RejectAlways: acp.PermissionOptionKindRejectAlways,
}

var answerNames = map[permission.Answer]string{
	permission.AllowOnce:    "Allow once",
	permission.AllowAlways:  "Always allow",
	permission.RejectOnce:   "Reject",
	permission.RejectAlways: "Always reject",
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
			if o.Kind == kind && o.Name != "" {
				name = o.Name
				break
			}
		}
		req.Options = append(req.Options, acp.PermissionOption{OptionID: acp.PermissionOptionID(kind), Name: name, Kind: kind})
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
		if string(answerKinds[a]) == string(o.Selected.OptionID) {
			return a
		}
	}
	return permission.RejectOnce
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
