package vscodelm

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/mcpbridge"
	"github.com/parley-acp/parley/internal/permission"
)

// What waits for VS Code: the agent's calls of VS Code tools (through the bridge) and its
// permission requests (shown as calls of the agent-action tool). Each is shown to VS Code
// as a tool_call part; a later request of the conversation carries its tool_result. One
// that arrives while no request is open is held and shown in the next response; only one
// VS Code saw (a response carried it) and did not answer counts as declined.

// waitingCall is an agent's call of a VS Code tool.
type waitingCall struct {
	call  mcpbridge.Call
	reply chan mcpbridge.Result // buffered: the worker never waits on it
	shown bool
}

// waitingPerm is an agent's permission request shown as a call of the agent-action tool.
type waitingPerm struct {
	id    string // the tool_call part's toolCallId
	req   *acp.RequestPermissionRequest
	reply chan permAnswer // buffered
	shown bool
}

// permAnswer is the outcome for the agent and, when the answer ends the turn, the
// session/cancel to send right behind it (see pooled.RequestPermission).
type permAnswer struct {
	outcome acp.RequestPermissionOutcome
	after   func(ctx context.Context)
}

// rejectGrace is how long a declined turn waits for the agent to end it after
// session/cancel before its context is cancelled too (which sends session/cancel again and
// gives up on the turn after acp.DefaultCancelGrace).
const rejectGrace = 2 * time.Second

// completeDelay is how long an open request stays open after a tool call was shown, so
// that calls the agent makes at the same time go out in the same response.
const completeDelay = 50 * time.Millisecond

// onBridgeCall is the bridge's callback for an agent's call of a VS Code tool: it waits
// until a later request of the conversation carries the result.
func (w *worker) onBridgeCall(ctx context.Context, call mcpbridge.Call) (mcpbridge.Result, error) {
	reply := make(chan mcpbridge.Result, 1)
	if !w.post(ctx, evCall{call: call, reply: reply}) {
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

// onPermission decides an agent's permission request: a call of one of parley's own
// vscode_tools is allowed (VS Code confirms the tool itself when it runs it); anything
// else becomes a call of the agent-action tool that VS Code confirms, or is refused when
// the client offers no such tool.
func (w *worker) onPermission(req *acp.RequestPermissionRequest, reply chan permAnswer) {
	reported := w.reported[req.ToolCall.ToolCallID]
	if tool := bridgedToolAsked(req, reported, w.tools); tool != "" {
		w.logger.Debug("allowed the agent's call of a VS Code tool", "tool", tool)
		reply <- permAnswer{outcome: choose(req.Options, true)}
		return
	}
	if w.action == "" || w.turn == nil || w.turn.draining {
		reply <- permAnswer{outcome: choose(req.Options, false)}
		return
	}
	p := &waitingPerm{id: string(req.ToolCall.ToolCallID), req: req, reply: reply}
	if p.id == "" {
		p.id = "permission-" + mcpbridge.NewCallID()
	}
	w.perms = append(w.perms, p)
	// What the user approves is what the agent asks for: an agent that leaves the
	// request's title, kind or input out (codex) said them on the tool call it reported.
	title, kind, input := req.ToolCall.Title, req.ToolCall.Kind, req.ToolCall.RawInput
	if reported != nil {
		title = cmp.Or(title, reported.title)
		kind = cmp.Or(kind, reported.kind)
		if len(input) == 0 {
			input = reported.rawInput
		}
	}
	params, _ := json.Marshal(map[string]any{"kind": nullIfEmpty(string(kind)), "title": nullIfEmpty(title), "raw_input": input})
	w.showWait(ContentPart{Type: PartToolCall, ToolCallID: p.id, ToolName: w.action, Parameters: params}, &p.shown, "permission", req.ToolCall.Title)
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
	w.complete = time.AfterFunc(completeDelay, func() { w.post(context.Background(), evCompleteNow{gen: gen}) })
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
		approved := isApproval(results[p.id])
		if !approved {
			w.logger.Debug("the agent action was not approved: the agent gets reject_once", "title", p.req.ToolCall.Title, "result", abbreviate(results[p.id]))
		}
		p.reply <- permAnswer{outcome: choose(p.req.Options, approved)}
	}
	w.calls, w.perms = calls, perms
	w.open, w.answer = r, nil
	w.flush() // calls held while no request was open go out now
	if w.waitingShown() {
		w.completeSoon()
	}
	return true
}

// decline refuses everything the turn waits for and cancels it. A permission request is
// answered with the agent's reject option, and session/cancel goes out right behind that
// answer, in the same write: a session/cancel first would make the answer "cancelled",
// which some agents read as "stop everything". The turn's own context is cancelled only
// after a grace, for an agent that ignores session/cancel.
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
	if len(w.perms) == 0 {
		w.turn.cancel()
	} else {
		conn, session := w.agent.agent.Conn, w.session
		var once sync.Once
		sendCancel := func(ctx context.Context) {
			once.Do(func() { conn.Cancel(ctx, &acp.CancelNotification{SessionID: session}) })
		}
		for _, p := range w.perms {
			p.reply <- permAnswer{outcome: choose(p.req.Options, false), after: sendCancel}
		}
		time.AfterFunc(rejectGrace, w.turn.cancel)
	}
	w.calls, w.perms = nil, nil
}

// refuseWaits answers everything still waiting with a refusal, when its turn is over.
func (w *worker) refuseWaits() {
	for _, c := range w.calls {
		c.reply <- mcpbridge.Result{Text: "The request was cancelled.", IsError: true}
	}
	for _, p := range w.perms {
		p.reply <- permAnswer{outcome: choose(p.req.Options, false)}
	}
	w.calls, w.perms = nil, nil
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

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
