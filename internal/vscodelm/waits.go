package vscodelm

import (
	"context"
	"errors"
	"time"

	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/mcpbridge"
	"github.com/parley-acp/parley/internal/permission"
)

// What waits for VS Code: the agent's calls of VS Code tools (through the bridge) and the
// conversation's permission questions (shown as calls of the agent-action tool). Each is
// shown to VS Code as a tool_call part; a later request of the conversation carries its
// tool_result. One that arrives while no request is open is held and shown in the next
// response; only one VS Code saw (a response carried it) and did not answer counts as
// declined.

// waitingCall is an agent's call of a VS Code tool.
type waitingCall struct {
	call  mcpbridge.Call
	reply chan mcpbridge.Result // buffered: the worker never waits on it
	shown bool
}

// waitingPerm is a permission question of the conversation shown as a call of the
// agent-action tool.
type waitingPerm struct {
	id       string // the tool_call part's toolCallId
	question int    // the conversation's id of the question
	title    string
	shown    bool
}

// completeDelay is how long an open request stays open after a tool call was shown, so
// that calls the agent makes at the same time go out in the same response.
const completeDelay = 50 * time.Millisecond

// onBridgeCall is the bridge's callback for an agent's call of a VS Code tool: it waits
// until a later request of the conversation carries the result.
func (w *worker) onBridgeCall(ctx context.Context, call mcpbridge.Call) (mcpbridge.Result, error) {
	reply := make(chan mcpbridge.Result, 1)
	if !w.mail.Post(callMsg{call: call, reply: reply}) {
		return mcpbridge.Result{}, errors.New("the conversation ended")
	}
	select {
	case res := <-reply:
		return res, nil
	case <-ctx.Done():
		return mcpbridge.Result{}, ctx.Err()
	case <-w.done:
		return mcpbridge.Result{}, errors.New("the conversation ended")
	}
}

func (w *worker) onCall(call mcpbridge.Call, reply chan mcpbridge.Result) {
	if w.turn == nil || w.turn.draining {
		reply <- mcpbridge.Result{Text: "The request was cancelled.", IsError: true}
		return
	}
	c := &waitingCall{call: call, reply: reply}
	w.calls = append(w.calls, c)
	w.showWait(ContentPart{Type: PartToolCall, ToolCallID: call.ID, ToolName: call.Tool, Parameters: call.Arguments}, &c.shown, "tool", call.Tool)
}

// onQuestion shows a permission question the policy asks (the conversation's Predecide
// has allowed the agent's calls of VS Code tools already) as a call of the agent-action
// tool, which VS Code confirms with its user. Without that tool, or outside a turn that
// runs, nobody can be asked: it is refused.
func (w *worker) onQuestion(e conversation.QuestionAsked) {
	req := e.Question.Request
	if w.action == "" || w.turn == nil || w.turn.draining {
		w.conv.Answer(e.ID, permission.RejectOnce)
		return
	}
	p := &waitingPerm{id: string(req.ToolCall.ToolCallID), question: e.ID, title: req.ToolCall.Title}
	if p.id == "" {
		p.id = "permission-" + mcpbridge.NewCallID()
	}
	w.perms = append(w.perms, p)
	// What the user approves is what the agent asks for: an agent that leaves the
	// request's title, kind or input out (codex) said them on the tool call it reported,
	// which the conversation folded into e.Tool.
	title, kind, input := req.ToolCall.Title, req.ToolCall.Kind, req.ToolCall.RawInput
	if tc := e.Tool; tc != nil {
		title, kind, input = tc.Title, tc.RawKind, tc.RawInput
	}
	params, _ := json.Marshal(map[string]any{"kind": nullIfEmpty(string(kind)), "title": nullIfEmpty(title), "raw_input": input})
	w.showWait(ContentPart{Type: PartToolCall, ToolCallID: p.id, ToolName: w.action, Parameters: params}, &p.shown, "permission", req.ToolCall.Title)
}

// onQuestionClosed forgets a question answered elsewhere or withdrawn by the agent.
func (w *worker) onQuestionClosed(e conversation.QuestionClosed) {
	for i, p := range w.perms {
		if p.question == e.ID {
			w.perms = append(w.perms[:i], w.perms[i+1:]...)
			return
		}
	}
}

// showWait emits a waiting call's tool_call part. With a request open it goes out and the
// request completes shortly; otherwise it is held for the next response.
func (w *worker) showWait(part ContentPart, shown *bool, what, name string) {
	w.emit(said{part: part, shows: shown})
	if w.open == nil {
		w.logger.Debug(what+" held for the next request", "tool", name)
		return
	}
	w.completeSoon()
}

func (w *worker) completeSoon() {
	w.completeGen++
	gen := w.completeGen
	if w.complete != nil {
		w.complete.Stop()
	}
	w.complete = time.AfterFunc(completeDelay, func() { w.mail.Post(completeMsg{gen: gen}) })
}

// waitingShown reports a call or permission request that VS Code has been shown and not
// answered yet.
func (w *worker) waitingShown() bool {
	for _, c := range w.calls {
		if c.shown {
			return true
		}
	}
	for _, p := range w.perms {
		if p.shown {
			return true
		}
	}
	return false
}

// resume answers what VS Code was shown with the request's tool results. If it answered
// everything, the turn goes on with this request open and resume reports true: a tool
// call gets its result, an agent action allow_once when the result is the approval
// (isApproval) and reject_once otherwise. If it answered nothing it was shown, the request
// is a new prompt; if it left something unanswered, that was declined, and the turn is
// refused and cancelled.
func (w *worker) resume(r *chatRequest) bool {
	results := toolResults(r.new)
	answered, declined := false, false
	for _, c := range w.calls {
		if c.shown {
			_, ok := results[c.call.ID]
			answered, declined = answered || ok, declined || !ok
		}
	}
	for _, p := range w.perms {
		if p.shown {
			_, ok := results[p.id]
			answered, declined = answered || ok, declined || !ok
		}
	}
	if !answered && !declined {
		return false
	}
	if declined || w.turn == nil || w.turn.draining {
		w.decline()
		return false
	}
	var calls []*waitingCall
	for _, c := range w.calls {
		if !c.shown {
			calls = append(calls, c)
			continue
		}
		c.reply <- mcpbridge.Result{Text: mcpbridge.ResultText(results[c.call.ID])}
	}
	var perms []*waitingPerm
	for _, p := range w.perms {
		if !p.shown {
			perms = append(perms, p)
			continue
		}
		answer := permission.AllowOnce
		if !isApproval(results[p.id]) {
			w.logger.Debug("the agent action was not approved: the agent gets reject_once", "title", p.title, "result", abbreviate(results[p.id]))
			answer = permission.RejectOnce
		}
		w.conv.Answer(p.question, answer)
	}
	w.calls, w.perms = calls, perms
	w.openExchange(r) // calls held while no request was open go out now
	if w.waitingShown() {
		w.completeSoon()
	}
	return true
}

// decline refuses everything the turn waits for and cancels it. A permission question is
// answered with the agent's reject option, and session/cancel goes out right behind that
// answer, in the same write (conversation.AnswerAndCancel): a session/cancel first would
// make the answer "cancelled", which some agents read as "stop everything".
func (w *worker) decline() {
	w.buffer = nil
	if w.turn == nil || w.turn.draining {
		w.refuseWaits()
		return
	}
	w.turn.draining = true
	for _, c := range w.calls {
		c.reply <- mcpbridge.Result{Text: "The user declined to run the tool.", IsError: true}
	}
	w.cancelElicitations()
	if len(w.perms) == 0 {
		w.conv.Cancel()
	}
	for _, p := range w.perms {
		w.conv.AnswerAndCancel(p.question, permission.RejectOnce)
	}
	w.calls, w.perms = nil, nil
}

// refuseWaits answers everything still waiting with a refusal, when its turn is over.
func (w *worker) refuseWaits() {
	for _, c := range w.calls {
		c.reply <- mcpbridge.Result{Text: "The request was cancelled.", IsError: true}
	}
	for _, p := range w.perms {
		w.conv.Answer(p.question, permission.RejectOnce)
	}
	w.calls, w.perms = nil, nil
	if w.conv != nil {
		w.cancelElicitations()
	}
}

// isApproval reports whether a tool_result of the agent-action tool is the client's
// approval: a list of exactly one part whose "value" is the string ApprovalText, which the
// tool's invoke returns (VS Code runs invoke only once the user allowed the action). Other
// members of the part ("$mid") are ignored. Anything else is a refusal: VS Code answers a
// skipped confirmation with a result of its own words without running the tool, and an
// error, an empty result or a differently worded one approves nothing either.
func isApproval(result json.RawMessage) bool {
	var parts []map[string]json.RawMessage
	if json.Unmarshal(result, &parts) != nil || len(parts) != 1 {
		return false
	}
	var value string
	return json.Unmarshal(parts[0]["value"], &value) == nil && value == ApprovalText
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
