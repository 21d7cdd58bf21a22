package conversation

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/toolui"
)

// An elicitation is the agent asking the user something (elicitation/create): a form to
// fill in, or a web page to open. It is a question like a permission question, in the
// same queue: one on screen at a time, answered by any view (AnswerElicitation), or
// withdrawn by the agent ($/cancel_request). A conversation without a person to ask
// declines at once and the turn goes on. Answers are checked against the form before
// they are sent, and never logged.

// Elicitation is what the agent asks.
type Elicitation struct {
	Agent   string              // the agent's name, as the user chose it
	Message string              // the agent's words (made safe to print by the view)
	Mode    acp.ElicitationMode // form or url
	// ToolCallID is the tool call it is about, if the agent said.
	ToolCallID acp.ToolCallID
	Form       *Form       // mode form
	URL        *URLRequest // mode url
	// Request is the agent's request as it came, for a view that relays it to a client
	// of its own (the web chat's server); the answer still goes through AnswerElicitation.
	Request *acp.CreateElicitationRequest
}

// URLRequest is the page a URL elicitation asks the user to open. Accepting only says
// the user agreed to open it: the agent tells when it is done (ElicitationCompleted).
// Views see only addresses CheckPageURL passes (http and https pages): any other is
// declined before it is asked, with a Notice saying why.
type URLRequest struct {
	ID   acp.ElicitationID
	URL  string // whole, as the agent sent it
	Host string
	// Punycode: the host has internationalized labels (xn--…), which can imitate
	// another name; the view warns before the user agrees.
	Punycode bool
}

// ElicitationAnswer is a view's answer: accept (with the form's values, by field name:
// see Form), decline or cancel.
type ElicitationAnswer struct {
	Action  acp.ElicitationAction
	Content map[string]any
}

// ElicitationAsked: the agent asks something of the user; answer it with
// AnswerElicitation. It is on screen until ElicitationClosed.
type ElicitationAsked struct {
	ID          int // shares its numbering with QuestionAsked
	Elicitation *Elicitation
}

// ElicitationClosed: the elicitation is answered (Action) or withdrawn by the agent.
type ElicitationClosed struct {
	ID        int
	Action    acp.ElicitationAction
	Withdrawn bool
}

// ElicitationCompleted: the agent says the page of an accepted URL elicitation is done
// with (elicitation/complete).
type ElicitationCompleted struct {
	ID acp.ElicitationID
}

// ElicitationDeclined: the agent asked something and nobody could answer (the
// conversation is not interactive): parley declined, and the turn goes on.
type ElicitationDeclined struct {
	Elicitation *Elicitation
}

func (ElicitationAsked) event()     {}
func (ElicitationClosed) event()    {}
func (ElicitationCompleted) event() {}
func (ElicitationDeclined) event()  {}

var _ acp.Elicitor = (*Agent)(nil)

// CreateElicitation hands the elicitation to the conversation it is about: the owner of
// its session, or, for one about a request (a sign-in), the conversation signing in. A
// mode parley did not advertise is refused (-32602).
func (a *Agent) CreateElicitation(ctx context.Context, req *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
	switch req.Mode {
	case acp.ElicitationModeForm:
		if !a.opts.ElicitForms {
			return nil, acp.ErrInvalidParams("parley did not advertise form elicitations")
		}
	case acp.ElicitationModeURL:
		if !a.opts.ElicitURLs {
			return nil, acp.ErrInvalidParams("parley did not advertise URL elicitations")
		}
	default:
		return nil, acp.ErrInvalidParams("parley does not know the elicitation mode %q", req.Mode)
	}
	c, err := a.elicitationOwner(req)
	if err != nil {
		return nil, err
	}
	e, err := newElicitation(a.opts.Name, req)
	if err != nil {
		return nil, acp.ErrInvalidParams("%v", err)
	}
	return c.elicit(ctx, e)
}

func (a *Agent) elicitationOwner(req *acp.CreateElicitationRequest) (*Conversation, error) {
	if req.SessionID != "" {
		return a.owner(req.SessionID)
	}
	if len(req.RequestID) == 0 {
		return nil, acp.ErrInvalidParams("an elicitation names a session or a request")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.signingIn != nil {
		return a.signingIn, nil
	}
	// parley's views make one conversation per agent: it made the request.
	if len(a.sessions) == 1 {
		for _, c := range a.sessions {
			return c, nil
		}
	}
	return nil, acp.ErrInvalidParams("parley has no request %s waiting for an elicitation", string(req.RequestID))
}

// CompleteElicitation tells the conversation that accepted the URL elicitation; an id
// parley does not know (or knows as done) is ignored.
func (a *Agent) CompleteElicitation(ctx context.Context, n *acp.CompleteElicitationNotification) error {
	a.mu.Lock()
	c := a.urlElicits[n.ElicitationID]
	delete(a.urlElicits, n.ElicitationID)
	a.mu.Unlock()
	if c != nil {
		c.postCtx(ctx, completedMsg{n.ElicitationID})
	}
	return nil
}

func newElicitation(agent string, req *acp.CreateElicitationRequest) (*Elicitation, error) {
	e := &Elicitation{Agent: agent, Message: req.Message, Mode: req.Mode, ToolCallID: req.ToolCallID, Request: req}
	switch req.Mode {
	case acp.ElicitationModeForm:
		form, err := newForm(req.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("the form cannot be asked: %w", err)
		}
		e.Form = form
	case acp.ElicitationModeURL:
		if req.ElicitationID == "" || req.URL == "" {
			return nil, errors.New("a URL elicitation needs an elicitationId and a url")
		}
		u, err := url.Parse(req.URL)
		if err != nil {
			return nil, fmt.Errorf("the url is not a URL: %w", err)
		}
		host := u.Hostname()
		e.URL = &URLRequest{ID: req.ElicitationID, URL: req.URL, Host: host, Punycode: punycode(host)}
	}
	return e, nil
}

// punycode reports a host with an internationalized label, or one that is not ASCII.
func punycode(host string) bool {
	for label := range strings.SplitSeq(strings.ToLower(host), ".") {
		if strings.HasPrefix(label, "xn--") {
			return true
		}
	}
	for _, r := range host {
		if r > 0x7e {
			return true
		}
	}
	return false
}

// elicit asks the conversation's views, or declines when nobody can answer. It runs on
// the agent's request goroutine; ctx ends when the agent withdraws the request.
func (c *Conversation) elicit(ctx context.Context, e *Elicitation) (*acp.CreateElicitationResponse, error) {
	if e.URL != nil {
		if err := CheckPageURL(e.URL.URL); err != nil {
			// Declined, not refused as an error: the agent learns the user will not open it,
			// and its turn goes on.
			c.postCtx(ctx, refusedURLMsg{e: e, why: err})
			return &acp.CreateElicitationResponse{Action: acp.ElicitationActionDecline}, nil
		}
	}
	answers := c.opts.Elicit
	if f := c.opts.ElicitFor; f != nil {
		answers = f(e.Mode)
	}
	if !c.opts.Interactive || !answers {
		c.postCtx(ctx, declinedMsg{e})
		return &acp.CreateElicitationResponse{Action: acp.ElicitationActionDecline}, nil
	}
	elicited := make(chan acp.CreateElicitationResponse, 1)
	q := &question{ctx: ctx, e: e, elicited: elicited}
	resp, err := roundTrip(ctx, c, askMsg{q}, elicited)
	switch {
	case err == nil:
		return &resp, nil
	case ctx.Err() != nil:
		c.post(withdrawMsg{q})
		return nil, jsonrpc2.Errorf(acp.CodeRequestCancelled, "the agent withdrew the elicitation")
	}
	return &acp.CreateElicitationResponse{Action: acp.ElicitationActionCancel}, nil // the conversation ended
}

type declinedMsg struct{ e *Elicitation }

func (m declinedMsg) handle(c *Conversation) {
	c.emit(ElicitationDeclined{Elicitation: m.e})
}

type refusedURLMsg struct {
	e   *Elicitation
	why error
}

func (m refusedURLMsg) handle(c *Conversation) {
	c.emit(Notice{Text: "declined the agent's request to open a page: " + toolui.SafeText(m.why.Error())})
}

type completedMsg struct{ id acp.ElicitationID }

func (m completedMsg) handle(c *Conversation) { c.emit(ElicitationCompleted{ID: m.id}) }

// AnswerElicitation answers the elicitation on screen with this id. An answer to accept
// a form is checked against it first: an error says what is wrong (naming the field,
// never quoting the value) and nothing is sent; the elicitation stays on screen. An
// answer to an elicitation no longer open is ignored (another view answered first, or
// the agent withdrew it).
func (c *Conversation) AnswerElicitation(id int, a ElicitationAnswer) error {
	_, err := c.AnswerElicitationFirst(id, a)
	return err
}

// AnswerElicitationFirst answers like AnswerElicitation and reports whether this answer
// closed the elicitation: false when another view answered first, the agent withdrew
// it, the answer was refused (err says why) or the conversation ended.
func (c *Conversation) AnswerElicitationFirst(id int, a ElicitationAnswer) (bool, error) {
	reply := make(chan elicitReply, 1)
	r, waitErr := roundTrip(context.Background(), c, elicitAnswerMsg{id: id, a: a, reply: reply}, reply)
	if waitErr != nil {
		return false, waitErr
	}
	return r.taken, r.err
}

type elicitAnswerMsg struct {
	id    int
	a     ElicitationAnswer
	reply chan<- elicitReply
}

type elicitReply struct {
	taken bool
	err   error
}

func (m elicitAnswerMsg) handle(c *Conversation) {
	if len(c.st.questions) == 0 || c.st.questions[0].id != m.id || c.st.questions[0].e == nil {
		m.reply <- elicitReply{}
		return
	}
	q := c.st.questions[0]
	resp := acp.CreateElicitationResponse{Action: m.a.Action}
	switch m.a.Action {
	case acp.ElicitationActionAccept:
		if q.e.Form != nil {
			content, err := q.e.Form.Validate(m.a.Content)
			if err != nil {
				m.reply <- elicitReply{err: err}
				return
			}
			resp.Content = map[string]acp.ElicitationContentValue{}
			for k, v := range content {
				resp.Content[k] = json.RawMessage(v)
			}
		}
		if u := q.e.URL; u != nil {
			c.agent.watchURL(u.ID, c)
		}
	case acp.ElicitationActionDecline, acp.ElicitationActionCancel:
	default:
		m.reply <- elicitReply{err: fmt.Errorf("%q is no answer to an elicitation: accept, decline or cancel", m.a.Action)}
		return
	}
	c.st.questions = c.st.questions[1:]
	q.elicited <- resp
	m.reply <- elicitReply{taken: true}
	c.emit(ElicitationClosed{ID: q.id, Action: resp.Action})
	c.showQuestion()
}

// forgetURLs drops the URL elicitations c accepted (c has ended): their completion, if
// it comes, is ignored.
func (a *Agent) forgetURLs(c *Conversation) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, owner := range a.urlElicits {
		if owner == c {
			delete(a.urlElicits, id)
		}
	}
}

// watchURL remembers which conversation accepted a URL elicitation, for its completion.
func (a *Agent) watchURL(id acp.ElicitationID, c *Conversation) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.urlElicits == nil {
		a.urlElicits = map[acp.ElicitationID]*Conversation{}
	}
	a.urlElicits[id] = c
}
