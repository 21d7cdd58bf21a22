package conversation

import (
	"context"
	"errors"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolui"
)

// A permission request runs on the agent's request goroutine: the policy decides, and
// what it must ask a person goes to the actor as a question, which waits its turn (one on
// screen at a time, oldest first) and an Answer from any view.

// Refused: parley refused what the agent asked because nobody could be asked (the
// conversation is not Interactive). Title is the agent's title for it.
type Refused struct {
	Title string
}

func (Refused) event() {}

// question is a question waiting for, or on, the screen: a permission question or an
// elicitation (elicitation.go), one queue for both.
type question struct {
	id       int // 0 until the actor has it
	ctx      context.Context
	q        *permission.Question               // a permission question, or
	e        *Elicitation                       // an elicitation
	answer   chan permission.Answer             // buffered: the actor never waits on it
	elicited chan acp.CreateElicitationResponse // buffered, likewise
}

// cancel answers the question "cancelled": the conversation is closing.
func (q *question) cancel() {
	if q.e != nil {
		q.elicited <- acp.CreateElicitationResponse{Action: acp.ElicitationActionCancel}
		return
	}
	q.answer <- permission.Cancelled
}

// requestPermission answers session/request_permission. The response is always safe to
// send; a problem deciding (the answer already fails closed for it) is told to the views.
func (c *Conversation) requestPermission(ctx context.Context, req *acp.RequestPermissionRequest) *acp.RequestPermissionResponse {
	resp, err := c.opts.Policy.Decide(ctx, req)
	c.postCtx(ctx, decidedMsg{req: req, resp: resp, err: err})
	return resp
}

// decideTerminal decides a terminal/create; reason says why it was refused.
func (c *Conversation) decideTerminal(ctx context.Context, session acp.SessionID, argv []string, env []acp.EnvVariable, dir string) (reason string, ok bool) {
	d := c.opts.Policy.DecideTerminal(ctx, session, argv, env, dir)
	if d.Request != nil {
		c.postCtx(ctx, decidedMsg{req: d.Request, resp: d.Response, err: d.Err})
	}
	return d.Reason, d.Allowed
}

// ask is the policy's question to a person (only when Interactive).
func (c *Conversation) ask(ctx context.Context, q *permission.Question) (permission.Answer, error) {
	q.Diffs = c.editDiffs(q.Request.ToolCall)
	pq := &question{ctx: ctx, q: q, answer: make(chan permission.Answer, 1)}
	if !c.postCtx(ctx, askMsg{pq}) {
		if ctx.Err() != nil {
			return permission.Cancelled, ctx.Err()
		}
		return permission.Cancelled, errors.New("the conversation has ended")
	}
	select {
	case a := <-pq.answer:
		return a, nil
	case <-ctx.Done():
		c.post(withdrawMsg{pq})
		return permission.Cancelled, ctx.Err()
	}
}

// Answer answers the question with this id. An answer to a question that is no longer
// open (another view answered first, the agent withdrew it) is ignored.
func (c *Conversation) Answer(id int, a permission.Answer) { c.post(answerMsg{id, a}) }

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
		q.q.Diffs = append([]toolui.Diff(nil), ev.Tool.Diffs...)
	}
	c.emitTurn([]toolui.Event{ev})
	c.emit(QuestionAsked{ID: q.id, Question: q.q})
}

type answerMsg struct {
	id int
	a  permission.Answer
}

func (m answerMsg) handle(c *Conversation) {
	if len(c.st.questions) == 0 || c.st.questions[0].id != m.id || c.st.questions[0].q == nil {
		return
	}
	q := c.st.questions[0]
	c.st.questions = c.st.questions[1:]
	q.answer <- m.a
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
	err  error
}

func (m decidedMsg) handle(c *Conversation) {
	c.emitTurn([]toolui.Event{c.st.shown.ResolveConfirmation(m.req.ToolCall.ToolCallID, m.resp.Outcome)})
	if m.err != nil {
		c.emit(Notice{Text: toolui.SafeText(m.err.Error())})
	}
	if c.opts.Interactive || m.resp.Outcome.Selected == nil {
		return
	}
	o, ok := optionByID(m.req.Options, m.resp.Outcome.Selected.OptionID)
	if ok && (o.Kind == acp.PermissionOptionKindRejectOnce || o.Kind == acp.PermissionOptionKindRejectAlways) {
		c.emit(Refused{Title: m.req.ToolCall.Title})
		if c.st.turn != nil {
			c.st.turn.refused = m.req.ToolCall.Title
		}
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
