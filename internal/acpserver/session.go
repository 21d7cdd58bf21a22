package acpserver

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/workspace"
)

// session is one conversation parley holds for its clients, and the views attached to
// it now. What the conversation shows and where it stands is the conversation's own:
// each view subscribes to it (its Snapshot, then the events after it), and nothing of it
// is kept here. See the package comment.
type session struct {
	srv       *Server
	id        acp.SessionID
	agentName string
	roots     *workspace.Roots
	conv      *conversation.Conversation
	agent     *conversation.Agent  // the process conv runs on, to release with it
	keeper    *conversation.Keeper // keeps conv's transcript, when the server has a store
	files     fileIndex            // for @ mentions
	closeOnce sync.Once
	done      chan struct{} // closed when the session has finished: its conversation ended, its agent released

	mu    sync.Mutex // everything below
	views map[*view]bool
	shown bool          // a view was attached once: until then the request opening it holds it
	idle  chan struct{} // closed to end the idle watch under way (watchIdle), if any
	ended bool
	first string // the first line of the first prompt, the title of an agent that gives none
	// elicitModes are the elicitation modes a view of the session answers, or did.
	elicitModes map[acp.ElicitationMode]bool
}

func newSession(srv *Server, id acp.SessionID, agentName string, roots *workspace.Roots, agent *conversation.Agent, conv *conversation.Conversation) *session {
	return &session{srv: srv, id: id, agentName: agentName, roots: roots, agent: agent, conv: conv, done: make(chan struct{}), views: map[*view]bool{}, elicitModes: map[acp.ElicitationMode]bool{}}
}

// promptOrigin is the connection that sent a prompt (conversation.Prompt.Origin), and
// whether it wants the prompt shown back when its turn starts (the web page does; a
// plain ACP client shows its own).
type promptOrigin struct {
	c    *conn
	echo bool
}

// send sends a prompt for c and waits for its end: its turn ended, it was taken out of
// the queue, or the session closed. stop, when it ends first, makes it take the prompt
// back (or cancel its turn) and wait for that end; a connection that ends (gone) leaves
// the turn running and returns at once, with ok false.
func (ss *session) send(c *conn, content []acp.ContentBlock, echo bool, stop context.Context, withdraw func(conversation.Prompt)) (p conversation.Prompt, end conversation.PromptEnd, ok bool) {
	ended := make(chan conversation.PromptEnd, 1)
	p = ss.conv.SendWith(content, conversation.SendOptions{Origin: promptOrigin{c, echo}, Ended: ended})
	ss.mu.Lock()
	if ss.first == "" {
		ss.first = titleOf(p.Text())
	}
	ss.mu.Unlock()
	wait := func() conversation.PromptEnd {
		select {
		case e := <-ended:
			return e
		case <-ss.conv.Done():
			select {
			case e := <-ended:
				return e
			default:
				return conversation.PromptEnd{Closed: true} // it never reached the conversation
			}
		}
	}
	select {
	case end = <-ended:
	case <-ss.conv.Done():
		end = wait()
	case <-stop.Done():
		select {
		case <-c.ac.Ending():
			return p, end, false // the page went away; the turn goes on
		default:
		}
		withdraw(p)
		end = wait() // the turn ends cancelled, or the prompt comes back unqueued
	}
	return p, end, true
}

// canElicit says whether an elicitation of mode can be asked: a view attached answers
// that mode or, with none attached, one that was did (it may come back, as a
// permission question waits for it). Otherwise the agent's question is declined at once.
func (ss *session) canElicit(mode acp.ElicitationMode) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.views) == 0 {
		return ss.elicitModes[mode]
	}
	for v := range ss.views {
		if v.c.takes(mode) {
			return true
		}
	}
	return false
}

// firstPrompt is the title of a session whose agent gives none: its first prompt's
// first line.
func (ss *session) firstPrompt() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.first
}

// titleMax is how many characters of a prompt's first line make a title.
const titleMax = 60

// titleOf is the first line of text, cut to titleMax characters at a word if it can.
func titleOf(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	line = strings.TrimSpace(line)
	r := []rune(line)
	if len(r) <= titleMax {
		return line
	}
	cut := string(r[:titleMax])
	if i := strings.LastIndexByte(cut, ' '); i > titleMax/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…"
}

// attach subscribes a view for c. The subscription's first event is the Snapshot the
// view is shown first.
func (ss *session) attach(c *conn) *view {
	v := newView(c, ss, ss.conv.SubscribeRelay())
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.ended {
		ss.views[v] = true
		ss.shown = true
		for _, m := range []acp.ElicitationMode{acp.ElicitationModeForm, acp.ElicitationModeURL} {
			if c.takes(m) {
				ss.elicitModes[m] = true
			}
		}
		if ss.idle != nil {
			close(ss.idle)
			ss.idle = nil
		}
	}
	return v
}

// detach removes a view; a session nobody watches any more starts its idle watch.
func (ss *session) detach(v *view) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.views[v] {
		return
	}
	delete(ss.views, v)
	ss.srv.logger.Info("a view detached", "session", ss.id, "token", v.c.peer.Name, "remote", v.c.peer.Remote, "views", len(ss.views))
	if d := ss.srv.opts.IdleTimeout; d > 0 && len(ss.views) == 0 && ss.shown && !ss.ended && ss.idle == nil {
		stop := make(chan struct{})
		ss.idle = stop
		ss.srv.watchers.Go(func() { ss.watchIdle(d, stop) })
	}
}

// watchIdle closes the session once it has had no turn running or queued for d, as the
// conversation tells it; closing stop (a view came) ends the watch.
func (ss *session) watchIdle(d time.Duration, stop <-chan struct{}) {
	sub := ss.conv.SubscribeStatus()
	defer sub.Close()
	busy := map[int]bool{} // the prompts running or queued
	var timer *time.Timer
	var fire <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-stop:
			return
		case <-fire:
			ss.srv.logger.Info("closing a session nobody watched", "session", ss.id, "agent", ss.agentName, "after", d)
			ss.close()
			return
		case <-sub.Ready():
			for _, ev := range sub.Take() {
				switch e := ev.(type) {
				case conversation.Snapshot:
					if e.Running != nil {
						busy[e.Running.ID] = true
					}
					for _, p := range e.Queue {
						busy[p.ID] = true
					}
				case conversation.Queued:
					busy[e.Prompt.ID] = true
				case conversation.TurnStarted:
					if !e.Replay {
						busy[e.Prompt.ID] = true
					}
				case conversation.Unqueued:
					delete(busy, e.Prompt.ID)
				case conversation.TurnEnded:
					if !e.Replay {
						delete(busy, e.Turn)
					}
				case conversation.Closed:
					return
				}
			}
		}
		switch {
		case len(busy) == 0 && timer == nil:
			timer = time.NewTimer(d)
			fire = timer.C
		case len(busy) > 0 && timer != nil:
			timer.Stop()
			timer, fire = nil, nil
		}
	}
}

// broadcast shows an update parley made (a setting a client changed: the agent does not
// tell it back) to every view but except's.
func (ss *session) broadcast(u acp.SessionUpdate, except *conn) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for v := range ss.views {
		if v.c != except {
			v.side.Post(sideEvent{update: &u})
		}
	}
}

// waitStarted waits for the first start of the conversation's agent and session to end
// (ready, or failed), as the conversation tells it, and returns the session and the
// sign-in the agent wants, if it wants one. A session that was open once does not wait
// for a restart.
func (ss *session) waitStarted(ctx context.Context) (conversation.Session, *conversation.SignInRequired, error) {
	sub := ss.conv.SubscribeStatus()
	defer sub.Close()
	var state conversation.Session
	var signIn *conversation.SignInRequired
	for {
		for _, ev := range sub.Take() {
			switch e := ev.(type) {
			case conversation.Snapshot:
				state, signIn = e.Session, e.SignIn
				switch {
				case e.Ready:
					return state, signIn, nil
				case e.Failed != nil && !e.Starting:
					return state, signIn, e.Failed
				case state.ID != "": // it opened once: a restart under way is not its first start
					return state, signIn, nil
				}
			case conversation.SessionChanged:
				state = e.Session
			case conversation.SignInRequired:
				signIn = &e
			case conversation.Ready:
				return e.Session, nil, nil
			case conversation.StartFailed:
				return state, signIn, e.Err
			case conversation.Closed:
				return state, signIn, conversation.ErrClosed
			}
		}
		select {
		case <-sub.Ready():
		case <-ctx.Done():
			return state, signIn, ctx.Err()
		}
	}
}

// close ends the conversation (every view is told Closed by its subscription) and
// releases the agent; it returns once that is done, whoever began it.
func (ss *session) close() {
	ss.closeOnce.Do(func() {
		defer close(ss.done)
		ss.mu.Lock()
		ss.ended = true
		if ss.idle != nil {
			close(ss.idle)
		}
		ss.idle = nil
		ss.mu.Unlock()
		ss.srv.forget(ss)
		ss.conv.Close()
		if ss.keeper != nil {
			ss.keeper.Close() // it writes the last turn
		}
		ss.srv.releaseAgent(ss.agentName, ss.roots, ss.agent)
		ss.mu.Lock()
		ss.views = map[*view]bool{} // each is told Closed by its own subscription
		ss.mu.Unlock()
	})
}
