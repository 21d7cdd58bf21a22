package conversation

import (
	"context"
	"errors"
	"github.com/parley-acp/parley/internal/agentproc"
	"sort"

	"github.com/parley-acp/parley/acp"
)

// The session's commands: its settings, and which session it is. Each makes its request
// on a helper goroutine, bounded by the agent's timeout, and the actor applies the result.

// sessionCall does something with the open session on a helper goroutine; the function
// it returns, if any, is then applied by the actor.
type sessionCall func(ctx context.Context, conn *acp.ClientConn, s Session) (apply func(c *Conversation), err error)

type callMsg struct {
	ctx    context.Context
	method string
	do     sessionCall
	reply  chan<- error
}

func (m callMsg) handle(c *Conversation) {
	switch {
	case c.st.closed:
		m.reply <- ErrClosed
		return
	case c.st.proc == nil || exited(c.st.proc):
		m.reply <- c.notReady()
		return
	}
	proc, s := c.st.proc, c.st.session
	c.goHelper(func() {
		var apply func(*Conversation)
		err := c.agent.call(m.ctx, proc, m.method, func(ctx context.Context, conn *acp.ClientConn) (err error) {
			apply, err = m.do(ctx, conn, s)
			return err
		})
		c.post(calledMsg{proc: proc, session: s.ID, apply: apply, err: err, reply: m.reply})
	})
}

// notReady says why there is no session to act on.
func (c *Conversation) notReady() error {
	switch {
	case c.st.starting:
		return errors.New("the agent is still starting")
	case c.st.start != nil:
		return c.st.start
	}
	return errors.New("the agent is not running; send a prompt to start it again")
}

type calledMsg struct {
	proc    *agentproc.Server
	session acp.SessionID
	apply   func(*Conversation)
	err     error
	reply   chan<- error
}

func (m calledMsg) handle(c *Conversation) {
	c.helperDone()
	// A result for a session the conversation has left since changes nothing.
	if m.err == nil && m.apply != nil && m.proc == c.st.proc && m.session == c.st.session.ID {
		m.apply(c)
	}
	c.noteAuth(m.err)
	m.reply <- m.err
}

// callSession runs do with the open session and waits for it (and its apply). A ctx that
// ends first leaves the call to end by itself (it is bounded by ctx and the agent's
// timeout); its result is then applied all the same.
func (c *Conversation) callSession(ctx context.Context, method string, do sessionCall) error {
	reply := make(chan error, 1)
	err, waitErr := roundTrip(ctx, c, callMsg{ctx: ctx, method: method, do: do, reply: reply}, reply)
	if waitErr != nil {
		return waitErr
	}
	return err
}

// Session returns the session as it stands now.
func (c *Conversation) Session(ctx context.Context) (Session, error) {
	reply := make(chan Session, 1)
	return roundTrip(ctx, c, sessionMsg{reply}, reply)
}

type sessionMsg struct{ reply chan<- Session }

func (m sessionMsg) handle(c *Conversation) { m.reply <- c.st.session }

// changeSession records a change of settings and tells the views.
func (c *Conversation) changeSession(f func(s *Session)) {
	f(&c.st.session)
	c.emit(SessionChanged{Session: c.st.session})
}

// SetConfigOption sets a select config option to value and returns the session as the
// agent then reports it (the agent decides what was set).
func (c *Conversation) SetConfigOption(ctx context.Context, id acp.SessionConfigID, value acp.SessionConfigValueID) (Session, error) {
	return c.setConfigValue(ctx, id, acp.ConfigValueID(value))
}

// SetMode switches the session's mode: through the config option of category mode when
// the agent offers one, else session/set_mode.
func (c *Conversation) SetMode(ctx context.Context, id string) (Session, error) {
	s, err := c.Session(ctx)
	if err != nil {
		return s, err
	}
	if o, ok := s.ConfigOption(acp.SessionConfigOptionCategoryMode); ok {
		return c.SetConfigOption(ctx, o.ID, acp.SessionConfigValueID(id))
	}
	if s.Modes == nil {
		return s, errors.New("this agent has no modes")
	}
	err = c.callSession(ctx, acp.MethodSetSessionMode, func(ctx context.Context, conn *acp.ClientConn, s Session) (func(*Conversation), error) {
		if _, err := conn.SetSessionMode(ctx, &acp.SetSessionModeRequest{SessionID: s.ID, ModeID: acp.SessionModeID(id)}); err != nil {
			return nil, err
		}
		return func(c *Conversation) {
			c.changeSession(func(s *Session) {
				if s.Modes != nil {
					modes := *s.Modes
					modes.CurrentModeID = acp.SessionModeID(id)
					s.Modes = &modes
				}
			})
		}, nil
	})
	if err != nil {
		return Session{}, err
	}
	return c.Session(ctx)
}

// SetModel switches the model: through the config option of category model when the
// agent offers one, else the legacy session/set_model.
func (c *Conversation) SetModel(ctx context.Context, id string) (Session, error) {
	s, err := c.Session(ctx)
	if err != nil {
		return s, err
	}
	if o, ok := s.ConfigOption(acp.SessionConfigOptionCategoryModel); ok {
		return c.SetConfigOption(ctx, o.ID, acp.SessionConfigValueID(id))
	}
	if s.Models == nil {
		return s, errors.New("this agent offers no choice of model")
	}
	err = c.callSession(ctx, acp.MethodSetSessionModel, func(ctx context.Context, conn *acp.ClientConn, s Session) (func(*Conversation), error) {
		if _, err := conn.SetSessionModel(ctx, &acp.SetSessionModelRequest{SessionID: s.ID, ModelID: acp.ModelID(id)}); err != nil {
			return nil, err
		}
		return func(c *Conversation) {
			c.changeSession(func(s *Session) {
				if s.Models != nil {
					models := *s.Models
					models.CurrentModelID = acp.ModelID(id)
					s.Models = &models
				}
			})
		}, nil
	})
	if err != nil {
		return Session{}, err
	}
	return c.Session(ctx)
}

// ConfigOption returns the first select config option of the category.
func (s Session) ConfigOption(cat acp.SessionConfigOptionCategory) (acp.SessionConfigOption, bool) {
	for _, o := range s.Config {
		if o.Category == cat && o.Select != nil {
			return o, true
		}
	}
	return acp.SessionConfigOption{}, false
}

// maxSessionPages bounds session/list's pages: an agent that never ends its list cannot
// hold parley.
const maxSessionPages = 20

// ListSessions lists the agent's sessions in the conversation's working directory, the
// most recently updated first.
func (c *Conversation) ListSessions(ctx context.Context) ([]acp.SessionInfo, error) {
	var all []acp.SessionInfo
	err := c.callSession(ctx, acp.MethodListSessions, func(ctx context.Context, conn *acp.ClientConn, s Session) (func(*Conversation), error) {
		if s.Agent.Capabilities.SessionCapabilities.List == nil {
			return nil, errors.New("this agent cannot list its sessions")
		}
		cursor := ""
		for range maxSessionPages {
			resp, err := conn.ListSessions(ctx, &acp.ListSessionsRequest{Cwd: s.Cwd, Cursor: cursor})
			if err != nil {
				return nil, err
			}
			all = append(all, resp.Sessions...)
			if cursor = resp.NextCursor; cursor == "" {
				break
			}
		}
		return nil, nil
	})
	sort.SliceStable(all, func(i, j int) bool { return all[i].UpdatedAt > all[j].UpdatedAt })
	return all, err
}

// NewSession leaves the session for a new one with the same agent.
func (c *Conversation) NewSession(ctx context.Context) (Session, error) {
	return c.reopen(ctx, opening{})
}

// LoadSession reopens one of the agent's sessions: session/load replays it (shown as a
// turn of its own, TurnStarted with Replay), session/resume does not.
func (c *Conversation) LoadSession(ctx context.Context, id acp.SessionID) (Session, error) {
	if id == "" {
		return Session{}, errors.New("which session? (see the list of sessions)")
	}
	return c.reopen(ctx, opening{load: id})
}

// reopen opens another session (load's, or a new one) on the running agent, which is
// started again first if it died.
func (c *Conversation) reopen(ctx context.Context, o opening) (Session, error) {
	reply := make(chan reopened, 1)
	r, err := roundTrip(ctx, c, reopenMsg{ctx: ctx, o: o, reply: reply}, reply)
	if err != nil {
		return Session{}, err
	}
	return r.session, r.err
}

type reopened struct {
	session Session
	err     error
}

type reopenMsg struct {
	ctx   context.Context
	o     opening
	reply chan<- reopened
}

func (m reopenMsg) handle(c *Conversation) {
	switch {
	case c.st.closed:
		m.reply <- reopened{err: ErrClosed}
		return
	case c.st.starting:
		m.reply <- reopened{err: errors.New("the agent is still starting")}
		return
	case c.st.turn != nil:
		m.reply <- reopened{err: errors.New("a turn is running: cancel it first")}
		return
	}
	c.st.starting = true
	ctx := c.withStartProgress(m.ctx)
	c.goHelper(func() {
		r := reopenedMsg{reply: m.reply}
		var restarted bool
		r.proc, restarted, r.err = c.agent.running(ctx)
		if r.err == nil {
			r.restarted = restarted
			r.session, r.err = c.open(ctx, r.proc, m.o)
		}
		c.post(r)
	})
}

type reopenedMsg struct {
	proc      *agentproc.Server
	session   Session
	restarted bool
	err       error
	reply     chan<- reopened
}

func (m reopenedMsg) handle(c *Conversation) {
	c.helperDone()
	c.st.starting = false
	c.st.progress = nil
	if m.err != nil {
		c.noteAuth(m.err)
		m.reply <- reopened{err: m.err}
		return
	}
	if c.st.closed {
		c.closeSessionOn(m.proc, m.session.ID)
		m.reply <- reopened{err: ErrClosed}
		return
	}
	// The session left stays open with the agent (no session/close): the user may
	// load it again.
	c.recordSession(m.session.ID, m.session.reopened())
	c.st.transcript = newTranscript() // another session: another conversation to show
	c.st.wantSignIn = nil
	c.attach(m.proc, m.session, m.session.Carried == CarriedLoad)
	c.st.fresh = m.session.fresh()
	c.st.seed = m.session.seed
	c.st.session.seed = nil
	c.noteCarry(m.session)
	c.emit(SessionChanged{Session: c.st.session})
	m.reply <- reopened{session: c.st.session}
	c.pump()
}
