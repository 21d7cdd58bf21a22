package vscodelm

import (
	"context"
	"time"
)

// router is the state of the request router, which runs on Serve's goroutine: the history
// of every conversation (the Matcher), which worker serves it, and the requests not
// answered yet. Everyone else reaches it with messages on Server.inbox.
type router struct {
	matcher *Matcher
	convs   map[string]*convState   // by Conversation.ID
	open    map[string]*chatRequest // by request id
	// early holds lm/cancel ids that came before their request was routed (the client
	// sends lm/cancel right after the request; the request's handler may not have run).
	early []string
}

// convState is what the router knows of a conversation besides its history.
type convState struct {
	conv       *Conversation
	w          *worker
	current    *chatRequest // the latest request routed to it
	busy       bool
	lastActive time.Time
}

// maxEarlyCancels bounds the lm/cancel ids kept for requests not routed yet.
const maxEarlyCancels = 64

func newRouter() router {
	return router{matcher: NewMatcher(), convs: map[string]*convState{}, open: map[string]*chatRequest{}}
}

// Messages to the router.
type (
	routeChat     struct{ req *chatRequest }
	routeCancel   struct{ id string }
	routeAnswered struct{ id string } // the request's handler has its answer
	routeExchange struct {            // a worker ended an exchange
		conv    string
		req     *chatRequest
		answer  []AnswerPart
		outcome string
	}
	routeBusy struct { // a worker started or stopped having work
		conv string
		busy bool
		last *chatRequest // the latest request the worker had taken
	}
)

// route is the router's loop. It returns when the client connection ends (false) or ctx
// ends (true).
func (s *Server) route(ctx context.Context) (signalled bool) {
	janitor := time.NewTicker(min(s.idle/4, time.Minute))
	defer janitor.Stop()
	for {
		select {
		case msg := <-s.inbox:
			s.handleRoute(msg)
		case <-janitor.C:
			s.evictIdle()
		case <-s.conn.Done():
			return false
		case <-ctx.Done():
			return true
		}
	}
}

func (s *Server) handleRoute(msg any) {
	rt := &s.router
	switch m := msg.(type) {
	case routeChat:
		s.routeChat(m.req)
	case routeCancel:
		if r := rt.open[m.id]; r != nil {
			r.finish(errCancelled)
			if cs := rt.convs[r.conv]; cs != nil {
				cs.w.mail.post(ctlCancel{req: r})
			}
			return
		}
		rt.early = append(rt.early, m.id)
		if len(rt.early) > maxEarlyCancels {
			rt.early = rt.early[1:]
		}
	case routeAnswered:
		delete(rt.open, m.id)
	case routeExchange:
		s.logger.Debug("exchange ended", "request", m.req.key, "conversation", m.conv, "outcome", m.outcome, "parts", len(m.answer))
		if cs := rt.convs[m.conv]; cs != nil {
			cs.lastActive = time.Now()
			if cs.current == m.req {
				cs.conv.Record(m.answer)
			}
		}
	case routeBusy:
		if cs := rt.convs[m.conv]; cs != nil && (m.busy || m.last == cs.current) {
			cs.busy, cs.lastActive = m.busy, time.Now()
		}
	}
}

// routeChat matches a request to its conversation, starting a new one (and its worker)
// when no session can take it, and hands it to the conversation's worker.
func (s *Server) routeChat(r *chatRequest) {
	rt := &s.router
	for i, id := range rt.early {
		if id == r.key {
			rt.early = append(rt.early[:i], rt.early[i+1:]...)
			r.finish(errCancelled)
			return
		}
	}
	mt := rt.matcher.Match(r.def.Key, r.params.Messages)
	conv, fresh := mt.Conversation, mt.Conversation == nil
	if fresh {
		conv = rt.matcher.Start(r.def.Key, mt)
	} else {
		conv.Commit(mt)
	}
	r.conv, r.new, r.context = conv.ID, mt.New, mt.Context
	s.logger.Debug("chat request", "request", r.key, "conversation", conv.ID, "agent", r.def.Label(),
		"messages", len(r.params.Messages), "shared", mt.Shared, "new", len(mt.New), "cancelled", mt.Cancelled, "fresh", fresh)

	cs := rt.convs[conv.ID]
	if cs == nil {
		cs = &convState{conv: conv, w: newWorker(s, conv.ID, r.def)}
		rt.convs[conv.ID] = cs
		s.goroutines.Go(cs.w.run)
		if len(rt.convs) > s.max {
			s.evictOldest(conv.ID)
		}
	}
	cs.current, cs.busy, cs.lastActive = r, true, time.Now()
	rt.open[r.key] = r
	cs.w.mail.post(ctlRequest{req: r})
}

// evictIdle closes the conversations idle for longer than the idle timeout.
func (s *Server) evictIdle() {
	cutoff := time.Now().Add(-s.idle)
	for _, cs := range s.router.convs {
		if !cs.busy && cs.lastActive.Before(cutoff) {
			s.evict(cs)
		}
	}
}

// evictOldest closes the least recently active idle conversation other than keep.
func (s *Server) evictOldest(keep string) {
	var oldest *convState
	for id, cs := range s.router.convs {
		if id == keep || cs.busy {
			continue
		}
		if oldest == nil || cs.lastActive.Before(oldest.lastActive) {
			oldest = cs
		}
	}
	if oldest != nil {
		s.evict(oldest)
	}
}

// evict forgets a conversation and tells its worker to close its session and end.
func (s *Server) evict(cs *convState) {
	s.logger.Debug("closing an idle conversation", "conversation", cs.conv.ID)
	s.router.matcher.Remove(cs.conv)
	delete(s.router.convs, cs.conv.ID)
	cs.w.mail.post(ctlClose{})
}
