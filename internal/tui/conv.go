package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
)

// convView is one conversation as the screen shows it: its transcript and what the
// status line and the composer need to know (the session's settings, whether a turn
// runs, what is queued, the question on screen). It changes only in answer to the
// conversation's events, on the UI's goroutine.
type convView struct {
	id   int
	conv Conv
	sub  *conversation.Subscription
	tr   *transcript
	// turnAt is when the running turn started; lasted, once it ended, how long it took
	// (until the bell, if any, is rung for it).
	turnAt time.Time
	lasted time.Duration

	session  conversation.Session
	ready    bool
	starting bool
	closed   bool

	running    int // the prompt whose turn runs; 0 between turns
	replay     bool
	turnStart  time.Time
	firstWord  bool // the running turn has shown something
	cancelling bool

	reply    *entry // the reply being streamed, if any
	thought  *entry
	plan     *entry
	tools    map[acp.ToolCallID]*entry
	lastUser *entry

	// replySafe and thoughtSafe make the reply's and the thought's chunks safe to show,
	// each judged by the end of the chunk before (an emoji's selector may come apart).
	replySafe, thoughtSafe toolui.SafeStream

	sending  int        // a prompt sent that neither started nor was queued yet
	usage    *acp.Usage // the last turn's, as the agent reported it
	now      time.Time  // when the event being applied came
	queued   []conversation.Prompt
	labels   map[int][]string // attachments of prompts sent, by prompt id
	question *questionPanel
	elicit   *formPanel // the agent's question (an elicitation), or parley's own form

	signIn    []conversation.AuthMethod // the methods, once the agent said it needs a sign-in
	signingIn bool
	askSignIn bool // the app should offer the methods (a picker)
}

func newConvView(id int, c Conv, st styles, md *markdown) *convView {
	return &convView{id: id, conv: c, sub: c.Conversation.Subscribe(), tr: newTranscript(st, md),
		tools: map[acp.ToolCallID]*entry{}, labels: map[int][]string{}, starting: true}
}

// eventsMsg carries what a conversation reported since the last batch.
type eventsMsg struct {
	conv   int
	events []conversation.Event
}

// frame is the shortest time between two batches of a conversation's events: what
// arrives meanwhile is drawn together, so a flood of chunks costs a frame, not a
// redraw per chunk.
const frame = 16 * time.Millisecond

// pump waits for the conversation's next events, at most one batch a frame.
func (cv *convView) pump(ctx context.Context, last time.Time) tea.Cmd {
	sub, id := cv.sub, cv.id
	return func() tea.Msg {
		select {
		case <-sub.Ready():
		case <-ctx.Done():
			return nil
		}
		if wait := frame - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil
			}
		}
		return eventsMsg{conv: id, events: sub.Take()}
	}
}

// busy says whether something runs that the status line shows moving.
func (cv *convView) busy() bool {
	return cv.starting || cv.running != 0 || cv.sending != 0
}

func (cv *convView) notice(text string, warn bool) {
	cv.endStream()
	cv.tr.add(&noticeItem{text: toolui.SafeText(text), warn: warn})
}

// endStream ends the reply and thought being streamed: what comes next starts a new item.
func (cv *convView) endStream() {
	if cv.reply != nil {
		cv.reply.it.(*agentItem).finish()
		cv.tr.changed(cv.reply)
		cv.reply = nil
	}
	cv.endThought()
}

func (cv *convView) endThought() {
	if cv.thought != nil {
		t := cv.thought.it.(*thoughtItem)
		if t.end.IsZero() {
			t.end = cv.now
		}
		cv.tr.changed(cv.thought)
		cv.thought = nil
	}
}

// apply shows one event. It returns what the app must do about it (a question to put on
// screen, text to give back to the composer).
func (cv *convView) apply(ev conversation.Event, now time.Time) (back string) {
	cv.now = now
	switch e := ev.(type) {
	case conversation.Snapshot:
		cv.session, cv.ready, cv.starting = e.Session, e.Ready, e.Starting
		if e.Failed != nil && !e.Starting {
			cv.notice("parley: "+e.Failed.Error(), true)
		}
		if e.Running != nil {
			cv.startTurn(*e.Running, false, now)
		}
		cv.queued = append(cv.queued[:0], e.Queue...)
		if e.Question != nil {
			cv.ask(*e.Question, now)
		}
		if e.Elicitation != nil {
			cv.askElicitation(*e.Elicitation, now)
		}
		cv.signingIn = e.SigningIn
	case conversation.Starting:
		cv.starting = true
		if e.Restart {
			cv.notice(fmt.Sprintf("The agent exited (%v); restarting it with a new session.", e.Reason), true)
		}
	case conversation.Ready:
		cv.session, cv.ready, cv.starting = e.Session, true, false
	case conversation.StartFailed:
		cv.starting = false
		cv.notice("parley: "+e.Err.Error(), true)
	case conversation.SessionChanged:
		cv.session = e.Session
	case conversation.Queued:
		cv.queued = append(cv.queued, e.Prompt)
		if cv.sending == e.Prompt.ID {
			cv.sending = 0
		}
	case conversation.Unqueued:
		if cv.dequeue(e.Prompt.ID) {
			return e.Prompt.Text()
		}
	case conversation.TurnStarted:
		cv.startTurn(e.Prompt, e.Replay, now)
		if !e.Replay {
			cv.turnAt = now
		}
	case conversation.TurnUpdate:
		cv.update(e.Update, now)
	case conversation.TurnEnded:
		if !e.Replay && !cv.turnAt.IsZero() {
			cv.lasted, cv.turnAt = now.Sub(cv.turnAt), time.Time{}
		}
		cv.endTurn(e)
	case conversation.QuestionAsked:
		cv.ask(e, now)
	case conversation.QuestionClosed:
		if cv.question != nil && cv.question.q.ID == e.ID {
			cv.question = nil
			if e.Withdrawn {
				cv.notice("(the agent withdrew its question)", false)
			}
		}
	case conversation.Notice:
		cv.notice("parley: "+e.Text, true)
	case conversation.Refused:
		cv.notice(fmt.Sprintf("parley: refused %s: nobody can be asked", oneLine(e.Title)), true)
	case conversation.ElicitationAsked:
		cv.askElicitation(e, now)
	case conversation.ElicitationClosed:
		if cv.elicit != nil && cv.elicit.ask.ID == e.ID {
			cv.elicit = nil
			if e.Withdrawn {
				cv.notice("(the agent withdrew its question)", false)
			}
		}
	case conversation.ElicitationCompleted:
		cv.notice("(the agent is done with the page)", false)
	case conversation.ElicitationDeclined:
		cv.notice("parley declined a question of the agent's: nobody could be asked", true)
	case conversation.SignInRequired:
		cv.signIn = e.Methods
		if cv.signIn == nil {
			cv.signIn = []conversation.AuthMethod{}
		}
		if len(e.Methods) == 0 {
			cv.notice(fmt.Sprintf("%s needs you to sign in, and offers no method parley can use: sign in with its own tools, then start parley again.", e.Agent), true)
		} else {
			cv.askSignIn = true // the conversation's notice says why; the methods are offered
		}
	case conversation.SigningIn:
		cv.signingIn = true
		cv.notice(fmt.Sprintf("Signing in with %s…", e.Method.Name), false)
	case conversation.SignInEnded:
		cv.signingIn = false
		if e.Err != nil {
			cv.notice("The sign-in failed: "+e.Err.Error(), true)
		} else {
			cv.signIn = nil
			cv.notice("Signed in.", false)
		}
	case conversation.AgentNotice:
		text := e.Title
		if e.Description != "" {
			text += ": " + e.Description
		}
		cv.notice(fmt.Sprintf("%s says (%s): %s", cv.conv.Name, e.Severity, text), e.Severity == "warning" || e.Severity == "error")
	case conversation.Compaction:
		switch e.Status {
		case acp.CompactionStatus("in_progress"):
			cv.notice("(the agent is compacting its context)", false)
		case acp.CompactionStatus("completed"):
			cv.notice("(the agent compacted its context)", false)
		default:
			cv.notice(fmt.Sprintf("(the agent's compaction: %s %s)", e.Status, e.Error), true)
		}
	case conversation.TurnChanges:
		if len(e.Record.Changes) > 0 {
			cv.endStream()
			cv.tr.add(&changesItem{turn: e.Record})
		}
		if e.Err != nil {
			cv.notice("parley: the record of this turn's changes is incomplete: "+e.Err.Error(), true)
		}
	case conversation.ChangesUndone:
		cv.notice(undoneText(e.Result), false)
	case conversation.ChangesKept:
		cv.notice("Kept "+toolstate.Count(len(e.Kept), "change: it", "changes: they")+" can no longer be undone.", false)
	case conversation.Closed:
		cv.closed, cv.running, cv.starting = true, 0, false
		if e.Err != nil {
			cv.notice("parley: the conversation ended: "+e.Err.Error(), true)
		}
	}
	return ""
}

func (cv *convView) dequeue(id int) bool {
	for i, p := range cv.queued {
		if p.ID == id {
			cv.queued = append(cv.queued[:i], cv.queued[i+1:]...)
			return true
		}
	}
	return false
}

func (cv *convView) startTurn(p conversation.Prompt, replay bool, now time.Time) {
	if cv.sending == p.ID {
		cv.sending = 0
	}
	cv.endStream()
	cv.dequeue(p.ID)
	cv.replay = replay
	cv.plan = nil
	cv.tools = map[acp.ToolCallID]*entry{}
	if replay {
		cv.notice("(the agent replays the session)", false)
		return
	}
	cv.running, cv.turnStart, cv.firstWord, cv.cancelling = p.ID, now, false, false
	cv.lastUser = cv.tr.add(&userItem{text: toolui.SafeText(strings.TrimSpace(p.Text())), attachments: cv.labels[p.ID]})
	delete(cv.labels, p.ID)
}

func (cv *convView) endTurn(e conversation.TurnEnded) {
	cv.endStream()
	if e.Replay {
		cv.replay = false
		return
	}
	if cv.sending == e.Turn {
		cv.sending = 0
	}
	if e.Turn != cv.running && cv.running != 0 {
		return
	}
	// A prompt that never started (the agent did not start) ends without a turn.
	if cv.running == 0 && e.Err != nil {
		cv.dequeue(e.Turn)
	}
	cv.running, cv.cancelling = 0, false
	if e.Usage != nil {
		cv.usage = e.Usage
	}
	switch {
	case e.Err != nil:
		cv.notice("parley: "+e.Err.Error(), true)
	case e.StopReason == acp.StopReasonCancelled:
		cv.notice("(cancelled)", false)
	case e.StopReason == acp.StopReasonRefusal:
		cv.notice("The agent refused the prompt.", true)
	case e.StopReason == acp.StopReasonMaxTokens:
		cv.notice("The agent stopped: it reached its token limit.", true)
	case e.StopReason == acp.StopReasonMaxTurnRequests:
		cv.notice("The agent stopped: it reached its limit of model requests for one turn.", true)
	case e.StopReason != acp.StopReasonEndTurn && e.StopReason != "":
		cv.notice("The agent stopped: "+toolui.SafeText(string(e.StopReason)), true)
	}
	if e.Refused != "" && e.StopReason != acp.StopReasonEndTurn {
		cv.notice(fmt.Sprintf("(after parley refused %s)", oneLine(e.Refused)), false)
	}
}

func (cv *convView) update(ev toolstate.Event, now time.Time) {
	switch ev.Kind {
	case toolstate.TextDelta:
		cv.firstWord = true
		cv.endThought()
		if cv.reply == nil {
			cv.reply = cv.tr.add(&agentItem{})
			cv.replySafe.Reset()
		}
		cv.reply.it.(*agentItem).append(cv.replySafe.String(ev.Text))
		cv.tr.changed(cv.reply)
	case toolstate.ThoughtDelta:
		cv.firstWord = true
		if cv.reply != nil {
			cv.endStream()
		}
		if cv.thought == nil {
			cv.thought = cv.tr.add(&thoughtItem{start: now})
			cv.thoughtSafe.Reset()
		}
		cv.thought.it.(*thoughtItem).text.WriteString(cv.thoughtSafe.String(ev.Text))
		cv.tr.changed(cv.thought)
	case toolstate.ToolStarted, toolstate.ToolUpdated, toolstate.PermissionRequested:
		cv.firstWord = true
		e := cv.tools[ev.Tool.ID]
		if e == nil {
			cv.endStream()
			e = cv.tr.add(&toolItem{tc: ev.Tool, started: now})
			cv.tools[ev.Tool.ID] = e
		}
		e.it.(*toolItem).update(ev.Tool, now)
		cv.tr.changed(e)
		if cv.question != nil && cv.question.q.Question.Request.ToolCall.ToolCallID == ev.Tool.ID {
			cv.question.tool = ev.Tool
		}
	case toolstate.PlanChanged:
		if cv.plan == nil {
			cv.endStream()
			cv.plan = cv.tr.add(&planItem{})
		}
		cv.plan.it.(*planItem).entries = ev.Plan
		cv.tr.changed(cv.plan)
	case toolstate.Other:
		if c := ev.Update.UserMessageChunk; c != nil {
			// The user's own words, when a session is loaded and the agent replays it.
			if text, ok := c.Content.AsText(); ok {
				if cv.lastUser != nil && cv.reply == nil && cv.thought == nil && cv.tr.entries[len(cv.tr.entries)-1] == cv.lastUser {
					u := cv.lastUser.it.(*userItem)
					u.text += toolui.SafeText(text)
					cv.tr.changed(cv.lastUser)
				} else {
					cv.endStream()
					cv.lastUser = cv.tr.add(&userItem{text: toolui.SafeText(text)})
				}
			}
			return
		}
		if c := ev.Update.AgentMessageChunk; c != nil {
			cv.notice(fmt.Sprintf("[the agent sent %s content]", c.Content.Kind()), false)
		}
	}
}

func (cv *convView) askElicitation(e conversation.ElicitationAsked, now time.Time) {
	conv, id := cv.conv.Conversation, e.ID
	cv.elicit = newFormPanel(e, func(a conversation.ElicitationAnswer) error { return conv.AnswerElicitation(id, a) }, cv.conv.OpenURL, now)
}

func (cv *convView) ask(q conversation.QuestionAsked, now time.Time) {
	cv.question = &questionPanel{q: q, shownAt: now}
	if e := cv.tools[q.Question.Request.ToolCall.ToolCallID]; e != nil {
		t := e.it.(*toolItem)
		cv.question.tool, t.asked = t.tc, q.Question.Diffs
	}
}

// runningTerminals are the tool calls that run with a terminal: their output is read
// while they run.
func (cv *convView) runningTerminals() []*entry {
	var out []*entry
	for _, e := range cv.tools {
		t := e.it.(*toolItem)
		if len(t.tc.Terminals) > 0 && (t.running() || !t.outputEnd) {
			out = append(out, e)
		}
	}
	return out
}
