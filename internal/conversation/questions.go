package conversation

import (
	"context"
	"slices"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/toolui"
)

// A permission request runs on the agent's request goroutine: the policy decides, and
// what it must ask a person goes to the actor as a question, which waits its turn (one on
// screen at a time, oldest first) and an Answer from any view.

// Refused: parley refused what the agent asked while the conversation is not
// Interactive. Title is the agent's title for it; By says what refused it (nobody could
// be asked, a rule, an earlier "always").
type Refused struct {
	Title string
	By    permission.Decider
}

func (Refused) event() {}

// question is a question waiting for, or on, the screen: a permission question or an
// elicitation (elicitation.go), one queue for both.
type question struct {
	id       int // 0 until the actor has it
	ctx      context.Context
	q        *permission.Question               // a permission question, or
	e        *Elicitation                       // an elicitation
	answer   chan answered                      // buffered: the actor never waits on it
	elicited chan acp.CreateElicitationResponse // buffered, likewise
}

// answered is a permission question's answer, and what to send right behind the
// response that carries it (AnswerAndCancel's session/cancel), if anything.
type answered struct {
	a     permission.Answer
	after func(ctx context.Context)
}

// cancel answers the question "cancelled": the conversation is closing.
func (q *question) cancel() {
	if q.e != nil {
		q.elicited <- acp.CreateElicitationResponse{Action: acp.ElicitationActionCancel}
		return
	}
	q.answer <- answered{a: permission.Cancelled}
}

// Predecision is what Options.Predecide made of a permission request.
type Predecision int

const (
	// Undecided: the policy decides (and may ask).
	Undecided Predecision = iota
	// AllowWithoutAsking: allowed once (the agent's allow_once option), without a question.
	AllowWithoutAsking
	// RefuseWithoutAsking: refused (reject_once, else reject_always), without a question.
	RefuseWithoutAsking
)

// predecided is the outcome of a Predecision, if it has one the offered options can
// express: an allow only as allow_once (an allow is never widened), a refusal as
// reject_once, else reject_always, else cancelled.
func predecided(d Predecision, options []acp.PermissionOption) (acp.RequestPermissionOutcome, bool) {
	switch d {
	case AllowWithoutAsking:
		if o, ok := permission.ChooseOption(options, acp.PermissionOptionKindAllowOnce); ok {
			return acp.SelectedOutcome(o.OptionID), true
		}
	case RefuseWithoutAsking:
		for _, kind := range []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways} {
			if o, ok := permission.ChooseOption(options, kind); ok {
				return acp.SelectedOutcome(o.OptionID), true
			}
		}
		return acp.CancelledOutcome(), true
	}
	return acp.RequestPermissionOutcome{}, false
}

// requestPermission answers session/request_permission: Options.Predecide first, then
// the policy. The response is always safe to send; a problem deciding (the answer
// already fails closed for it) is told to the views. (When the turn is cancelled while
// it is decided, ctx ends, and the agent is answered "cancelled": acp.ClientConn does that.)
func (c *Conversation) requestPermission(ctx context.Context, req *acp.RequestPermissionRequest) *acp.RequestPermissionResponse {
	if pd := c.opts.Predecide; pd != nil {
		if out, ok := predecided(pd(ctx, req, c.seenCall(req.ToolCall.ToolCallID)), req.Options); ok {
			resp := &acp.RequestPermissionResponse{Outcome: out}
			c.postCtx(ctx, decidedMsg{req: req, resp: resp, by: permission.DecidedByClient})
			return resp
		}
	}
	resp, by, err := c.opts.Policy.DecideBy(ctx, req)
	c.postCtx(ctx, decidedMsg{req: req, resp: resp, by: by, err: err})
	return resp
}

// decideTerminal decides a terminal/create; reason says why it was refused.
func (c *Conversation) decideTerminal(ctx context.Context, session acp.SessionID, argv []string, env []acp.EnvVariable, dir string) (reason string, ok bool) {
	d := c.opts.Policy.DecideTerminal(ctx, session, argv, env, dir)
	if d.Request != nil {
		c.postCtx(ctx, decidedMsg{req: d.Request, resp: d.Response, by: d.By, err: d.Err})
	}
	return d.Reason, d.Allowed
}

// seenCall returns what the agent reported of tool call id in the turn (a copy), nil when
// it reported nothing. The actor answers it after the updates the agent sent before the
// request, which reached it first.
func (c *Conversation) seenCall(id acp.ToolCallID) *toolstate.ToolCall {
	if id == "" {
		return nil
	}
	reply := make(chan *toolstate.ToolCall, 1)
	tc, _ := roundTrip(context.Background(), c, seenCallMsg{id: id, reply: reply}, reply)
	return tc // nil once the conversation has ended
}

type seenCallMsg struct {
	id    acp.ToolCallID
	reply chan<- *toolstate.ToolCall
}

func (m seenCallMsg) handle(c *Conversation) {
	var seen *toolstate.ToolCall
	if tc := c.st.shown.Call(m.id); tc != nil {
		seen = tc.Clone()
	}
	m.reply <- seen
}

// ask is the policy's question to a person (only when Interactive).
func (c *Conversation) ask(ctx context.Context, q *permission.Question) (permission.Answer, error) {
	q.Diffs = c.editDiffs(q.Request.ToolCall)
	answer := make(chan answered, 1)
	pq := &question{ctx: ctx, q: q, answer: answer}
	a, err := roundTrip(ctx, c, askMsg{pq}, answer)
	switch {
	case err == nil:
		if a.after != nil {
			// This runs on the request's handler goroutine (the policy asks there), so
			// what after sends goes out right behind the response, in the same write.
			jsonrpc2.AfterResponse(ctx, a.after)
		}
		return a.a, nil
	case ctx.Err() != nil:
		c.post(withdrawMsg{pq})
	}
	return permission.Cancelled, err
}

// Answer answers the question with this id. An answer to a question that is no longer
// open (another view answered first, the agent withdrew it) is ignored.
func (c *Conversation) Answer(id int, a permission.Answer) { c.post(answerMsg{id: id, a: a}) }

// AnswerFirst answers like Answer and reports whether this answer closed the question:
// false when another view answered first, the agent withdrew it or the conversation
// ended. A server with many views logs who answered by it.
func (c *Conversation) AnswerFirst(id int, a permission.Answer) bool {
	taken := make(chan bool, 1)
	ok, err := roundTrip(context.Background(), c, answerMsg{id: id, a: a, taken: taken}, taken)
	return err == nil && ok
}

// AnswerAndCancel answers the question with this id, and cancels the turn it came in:
// session/cancel goes out right behind the answer, in the same write. The agent reads
// the answer first: a session/cancel before it would make the request "cancelled",
// which some agents take as "stop everything" rather than a refusal of one action (VS
// Code's user declined an agent action by writing another message). The turn's own
// context, which gives up on the turn, is cancelled only declineGrace later, for an
// agent that ignores session/cancel. What was queued goes back to the views, as with
// Cancel. An answer to a question no longer open is ignored, and cancels nothing.
func (c *Conversation) AnswerAndCancel(id int, a permission.Answer) {
	c.post(answerMsg{id: id, a: a, cancelTurn: true})
}

// declineGrace is how long a turn AnswerAndCancel cancelled has to end by itself.
const declineGrace = 2 * time.Second

type askMsg struct{ q *question }

func (m askMsg) handle(c *Conversation) {
	if c.st.closed {
		m.q.cancel()
		return
	}
	c.st.nextQ++
	m.q.id = c.st.nextQ
	c.st.questions = append(c.st.questions, m.q)
	if len(c.st.questions) == 1 {
		c.showQuestion()
	}
}

// showQuestion puts the oldest open question on screen.
func (c *Conversation) showQuestion() {
	if len(c.st.questions) == 0 {
		return
	}
	q := c.st.questions[0]
	if q.e != nil {
		c.emit(ElicitationAsked{ID: q.id, Elicitation: q.e})
		return
	}
	ev := c.st.shown.AwaitConfirmation(q.q.Request)
	if len(q.q.Diffs) == 0 && ev.Tool != nil { // the diffs earlier updates of the call carried
		q.q.Diffs = append([]toolstate.Diff(nil), ev.Tool.Diffs...)
	}
	c.emitTurn([]toolstate.Event{ev})
	c.emit(QuestionAsked{ID: q.id, Question: q.q, Tool: ev.Tool.Clone()})
}

type answerMsg struct {
	id         int
	a          permission.Answer
	cancelTurn bool
	taken      chan<- bool // if set, told whether this answer closed the question (buffered)
}

func (m answerMsg) handle(c *Conversation) {
	if len(c.st.questions) == 0 || c.st.questions[0].id != m.id || c.st.questions[0].q == nil {
		if m.taken != nil {
			m.taken <- false
		}
		return
	}
	if m.taken != nil {
		m.taken <- true
	}
	q := c.st.questions[0]
	c.st.questions = c.st.questions[1:]
	var after func(context.Context)
	if t := c.st.turn; m.cancelTurn && t != nil && c.st.proc != nil {
		conn, session := c.st.proc.Conn, c.st.session.ID
		after = func(ctx context.Context) { conn.Cancel(ctx, &acp.CancelNotification{SessionID: session}) }
		c.unqueueAll()
		if !t.cancelled {
			t.cancelled = true
			t.grace = time.AfterFunc(declineGrace, t.cancel)
		}
	}
	q.answer <- answered{a: m.a, after: after}
	c.emit(QuestionClosed{ID: q.id, Answer: m.a})
	c.showQuestion()
}

type withdrawMsg struct{ q *question }

func (m withdrawMsg) handle(c *Conversation) {
	for i, q := range c.st.questions {
		if q != m.q {
			continue
		}
		c.st.questions = append(c.st.questions[:i], c.st.questions[i+1:]...)
		if i == 0 {
			if q.e != nil {
				c.emit(ElicitationClosed{ID: q.id, Action: acp.ElicitationActionCancel, Withdrawn: true})
			} else {
				c.emit(QuestionClosed{ID: q.id, Answer: permission.Cancelled, Withdrawn: true})
			}
			c.showQuestion()
		}
		return
	}
}

// decidedMsg reports how a permission request was answered.
type decidedMsg struct {
	req  *acp.RequestPermissionRequest
	resp *acp.RequestPermissionResponse
	by   permission.Decider
	err  error
}

func (m decidedMsg) handle(c *Conversation) {
	updated, decided := c.st.shown.Decide(m.req, m.resp.Outcome, string(m.by))
	c.emitTurn([]toolstate.Event{updated, decided})
	d := Decided{Request: m.req, Outcome: m.resp.Outcome, By: m.by}
	for _, s := range c.st.subs {
		if s.kind == relaySub {
			s.box.Post(d)
		}
	}
	if !permission.Allows(m.req.Options, m.resp.Outcome) {
		c.st.refusals = append(c.st.refusals, d)
		if len(c.st.refusals) > maxRefusals {
			c.st.refusals = slices.Delete(c.st.refusals, 0, len(c.st.refusals)-maxRefusals)
		}
	}
	if m.err != nil {
		c.emit(Notice{Text: toolui.SafeText(m.err.Error())})
	}
	if m.resp.Outcome.Selected == nil {
		return
	}
	o, ok := optionByID(m.req.Options, m.resp.Outcome.Selected.OptionID)
	if !ok || (o.Kind != acp.PermissionOptionKindRejectOnce && o.Kind != acp.PermissionOptionKindRejectAlways) {
		return
	}
	if !c.opts.Interactive {
		c.emit(Refused{Title: m.req.ToolCall.Title, By: m.by})
	}
	// A refusal nobody answered then (a rule, an "always", nobody to ask) is the
	// turn's: parley run exits with a status that says so.
	if c.st.turn != nil && !m.by.ByPerson() && m.by != permission.DecidedByClient {
		c.st.turn.refused = m.req.ToolCall.Title
	}
}

func optionByID(options []acp.PermissionOption, id acp.PermissionOptionID) (acp.PermissionOption, bool) {
	for _, o := range options {
		if o.OptionID == id {
			return o, true
		}
	}
	return acp.PermissionOption{}, false
}

// maxRefusals bounds the refusals a conversation keeps for views that come late.
const maxRefusals = 200
