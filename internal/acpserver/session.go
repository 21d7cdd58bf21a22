package acpserver

import (
	"context"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/workspace"
)

// session is one conversation parley holds for its clients: the hub that takes the
// conversation's events, the transcript a view that attaches later is given first, and
// the views attached now. See the package comment.
type session struct {
	srv       *Server
	id        acp.SessionID
	agentName string
	roots     *workspace.Roots
	conv      *conversation.Conversation
	sub       *conversation.Subscription
	started   chan struct{} // closed when the first start ended (ready or failed)
	closeOnce sync.Once
	pollers   sync.WaitGroup // the terminal output pollers
	ctx       context.Context
	cancel    context.CancelFunc
	files     fileIndex     // for @ mentions
	watched   chan struct{} // a view came or went (pokes merge: the hub reads the views itself)
	done      chan struct{} // closed when the hub has finished

	mu         sync.Mutex // everything below
	state      conversation.Session
	startErr   error
	ready      bool
	transcript transcript
	terminals  map[acp.TerminalID]*terminalOutput // the last output of each terminal shown
	views      map[*view]bool
	shown      bool                   // a view was attached once: until then the request opening it holds it
	waiters    map[int]chan promptEnd // prompt id → the session/prompt waiting for its end
	owners     map[int]promptOwner    // prompt id → who sent it
	running    *conversation.Prompt
	queue      []conversation.Prompt
	question   *conversation.QuestionAsked
	elicit     *conversation.ElicitationAsked
	signIn     *conversation.SignInRequired // the agent wants a sign-in before it goes on
	updatedAt  time.Time
	ended      bool
}

// promptOwner is the connection that sent a prompt, and whether it wants the prompt
// shown back when its turn starts (the web page does; a plain ACP client shows its own).
type promptOwner struct {
	c    *conn
	echo bool
}

// promptEnd is how a prompt ended: its turn ended, it was taken out of the queue, or the
// session closed.
type promptEnd struct {
	ended    *conversation.TurnEnded
	unqueued bool
	closed   bool
}

func newSession(srv *Server, id acp.SessionID, agentName string, roots *workspace.Roots, conv *conversation.Conversation) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{
		srv: srv, id: id, agentName: agentName, roots: roots, conv: conv, sub: conv.SubscribeRelay(),
		started: make(chan struct{}), ctx: ctx, cancel: cancel, watched: make(chan struct{}, 1), done: make(chan struct{}),
		terminals: map[acp.TerminalID]*terminalOutput{}, views: map[*view]bool{},
		waiters: map[int]chan promptEnd{}, owners: map[int]promptOwner{}, updatedAt: time.Now(),
	}
}

// hub takes the conversation's events until it closes, and hands each to the views. It
// also owns the idle timer: with Options.IdleTimeout, a session with no view and no turn
// running or queued for that long is closed.
func (ss *session) hub() {
	defer ss.finish()
	var idle *time.Timer
	var idleC <-chan time.Time
	defer func() {
		if idle != nil {
			idle.Stop()
		}
	}()
	for {
		select {
		case <-ss.sub.Ready():
			for _, ev := range ss.sub.Take() {
				ss.deliver(ev)
				if _, closed := ev.(conversation.Closed); closed {
					return
				}
			}
		case <-ss.watched:
		case <-idleC:
			idle, idleC = nil, nil
			if ss.idle() {
				ss.srv.logger.Info("closing a session nobody watched", "session", ss.id, "agent", ss.agentName, "after", ss.srv.opts.IdleTimeout)
				ss.close() // its Closed event ends the loop
				continue
			}
		}
		switch d := ss.srv.opts.IdleTimeout; {
		case d > 0 && idle == nil && ss.idle():
			idle = time.NewTimer(d)
			idleC = idle.C
		case idle != nil && !ss.idle():
			idle.Stop()
			idle, idleC = nil, nil
		}
	}
}

// idle reports whether nobody watches the session and it has nothing to do.
func (ss *session) idle() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.shown && len(ss.views) == 0 && ss.running == nil && len(ss.queue) == 0 && !ss.ended
}

// poke tells the hub that the views changed.
func (ss *session) poke() {
	select {
	case ss.watched <- struct{}{}:
	default:
	}
}

// deliver applies one event to the session's state and hands it to every view.
func (ss *session) deliver(ev conversation.Event) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var owner promptOwner
	queueChanged := false
	switch e := ev.(type) {
	case conversation.Snapshot:
		ss.state = e.Session
		switch {
		case e.Ready:
			ss.setStarted(nil)
		case e.Failed != nil && !e.Starting:
			ss.setStarted(e.Failed)
		}
	case conversation.Ready:
		ss.state = e.Session
		ss.signIn = nil
		ss.setStarted(nil)
	case conversation.StartFailed:
		ss.setStarted(e.Err)
	case conversation.SessionChanged:
		ss.state = e.Session
	case conversation.AgentUpdate:
		ss.transcript.add(e.Update)
		ss.updatedAt = time.Now()
		ss.watchTerminals(e.Update)
	case conversation.Queued:
		ss.queue = append(ss.queue, e.Prompt)
		queueChanged = true
	case conversation.Unqueued:
		ss.dropQueued(e.Prompt.ID)
		ss.endPrompt(e.Prompt.ID, promptEnd{unqueued: true})
		queueChanged = true
	case conversation.TurnStarted:
		if e.Replay {
			break
		}
		p := e.Prompt
		ss.running = &p
		ss.dropQueued(p.ID)
		for _, b := range p.Content {
			ss.transcript.add(acp.UserMessageChunk(b))
		}
		ss.updatedAt = time.Now()
		owner = ss.owners[p.ID]
		queueChanged = true
	case conversation.TurnEnded:
		if e.Replay {
			break
		}
		if ss.running != nil && ss.running.ID == e.Turn {
			ss.running = nil
		}
		ss.dropQueued(e.Turn) // a queued prompt that failed with the start
		ss.endPrompt(e.Turn, promptEnd{ended: &e})
		queueChanged = true
	case conversation.TerminalReleased:
		t := ss.terminals[e.ID]
		if t == nil {
			t = &terminalOutput{}
			ss.terminals[e.ID] = t
		}
		*t = terminalOutput{Output: e.Output.Output, Truncated: e.Output.Truncated, ExitStatus: e.Output.ExitStatus}
		n := t.notification(ss.id, e.ID)
		for v := range ss.views {
			v.post(viewEvent{terminal: n})
		}
		return
	case conversation.QuestionAsked:
		q := e
		ss.question = &q
	case conversation.QuestionClosed:
		if ss.question != nil && ss.question.ID == e.ID {
			ss.question = nil
		}
	case conversation.ElicitationAsked:
		q := e
		ss.elicit = &q
	case conversation.ElicitationClosed:
		if ss.elicit != nil && ss.elicit.ID == e.ID {
			ss.elicit = nil
		}
	case conversation.SignInRequired:
		r := e
		ss.signIn = &r
		ss.setStarted(nil) // the session waits for a sign-in: the page shows the choices
	case conversation.SignInEnded:
		if e.Err == nil {
			ss.signIn = nil
		}
	case conversation.Closed:
		ss.ended = true
		for id, w := range ss.waiters {
			w <- promptEnd{closed: true}
			delete(ss.waiters, id)
		}
	}
	for v := range ss.views {
		v.post(viewEvent{ev: ev, owner: owner.c, echo: owner.echo})
		if queueChanged {
			v.post(viewEvent{queue: ss.queueState()})
		}
	}
}

func (ss *session) setStarted(err error) {
	ss.startErr = err
	ss.ready = err == nil
	select {
	case <-ss.started:
	default:
		close(ss.started)
	}
}

func (ss *session) dropQueued(id int) {
	for i, p := range ss.queue {
		if p.ID == id {
			ss.queue = append(ss.queue[:i:i], ss.queue[i+1:]...)
			return
		}
	}
}

// endPrompt tells the session/prompt waiting for prompt id how it ended, through the
// view of the connection that sent it when it has one: after what that view was handed
// before (the turn's updates), so the answer follows them on the wire.
func (ss *session) endPrompt(id int, end promptEnd) {
	w := ss.waiters[id]
	owner := ss.owners[id]
	delete(ss.waiters, id)
	delete(ss.owners, id)
	if w == nil {
		return
	}
	for v := range ss.views {
		if v.c == owner.c && v.post(viewEvent{end: w, endValue: end}) {
			return
		}
	}
	w <- end
}

// queueState is what _parley/queue tells: the turn that runs and what waits behind it.
func (ss *session) queueState() *parleyapi.QueueNotification {
	n := &parleyapi.QueueNotification{SessionID: ss.id, Queued: []parleyapi.QueuedPrompt{}}
	if ss.running != nil {
		id := ss.running.ID
		n.Running = &id
	}
	for _, p := range ss.queue {
		n.Queued = append(n.Queued, parleyapi.QueuedPrompt{PromptID: p.ID, Text: p.Text()})
	}
	return n
}

// send sends a prompt for c and returns the channel its end is told on.
func (ss *session) send(c *conn, content []acp.ContentBlock, echo bool) (conversation.Prompt, <-chan promptEnd) {
	end := make(chan promptEnd, 1)
	// Held while sending: the hub cannot hand out the prompt's end before its waiter is
	// registered (Send only posts to the conversation, which never waits for the hub).
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.ended {
		end <- promptEnd{closed: true}
		return conversation.Prompt{}, end
	}
	p := ss.conv.Send(content)
	ss.waiters[p.ID] = end
	ss.owners[p.ID] = promptOwner{c, echo}
	return p, end
}

// attach adds a view for c. It returns the view and what it must be shown first: the
// transcript, the terminals' output, the queue and the open question.
func (ss *session) attach(c *conn) (*view, []viewEvent) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	v := newView(c, ss)
	var first []viewEvent
	for _, u := range ss.transcript.updates() {
		first = append(first, viewEvent{replay: &u})
	}
	for id, t := range ss.terminals {
		first = append(first, viewEvent{terminal: t.notification(ss.id, id)})
	}
	first = append(first, viewEvent{queue: ss.queueState()})
	if ss.signIn != nil {
		first = append(first, viewEvent{ev: *ss.signIn})
	}
	if ss.question != nil {
		first = append(first, viewEvent{ev: *ss.question})
	}
	if ss.elicit != nil {
		first = append(first, viewEvent{ev: *ss.elicit})
	}
	if ss.ended {
		first = append(first, viewEvent{ev: conversation.Closed{}})
	} else {
		ss.views[v] = true
		ss.shown = true
		ss.poke()
	}
	return v, first
}

func (ss *session) detach(v *view) {
	ss.mu.Lock()
	delete(ss.views, v)
	ss.mu.Unlock()
	ss.poke()
}

// broadcast records an update parley made (a setting a client changed) and shows it to
// every view but except's.
func (ss *session) broadcast(u acp.SessionUpdate, except *conn) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.transcript.add(u)
	for v := range ss.views {
		if v.c != except {
			v.post(viewEvent{replay: &u})
		}
	}
}

// snapshot returns the session's settings as the agent last reported them.
func (ss *session) snapshot() (conversation.Session, time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state, ss.updatedAt
}

// waitStarted waits for the first start of the conversation's agent and session, or
// for the session's end (the hub finished).
func (ss *session) waitStarted(ctx context.Context) (conversation.Session, error) {
	select {
	case <-ss.started:
	case <-ss.done:
		select {
		case <-ss.started:
		default:
			return conversation.Session{}, conversation.ErrClosed
		}
	case <-ctx.Done():
		return conversation.Session{}, ctx.Err()
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state, ss.startErr
}

// close ends the conversation (the hub then finishes).
func (ss *session) close() {
	ss.closeOnce.Do(func() {
		ss.srv.forget(ss)
		ss.conv.Close()
	})
}

// finish runs when the hub ends: the conversation has closed.
func (ss *session) finish() {
	defer close(ss.done)
	ss.sub.Close()
	ss.cancel()
	ss.pollers.Wait()
	ss.srv.forget(ss)
	ss.srv.releaseAgent(ss.agentName, ss.roots)
	ss.mu.Lock()
	ss.views = map[*view]bool{} // each was handed Closed by deliver
	ss.mu.Unlock()
}
