package vscodelm

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// router is the request router, which runs on Serve's goroutine: it owns the history of
// every conversation (the Matcher), which worker serves it, and the requests not answered
// yet. Everyone else reaches it with messages (routerMsg) on Server.inbox.
type router struct {
	s       *Server // what the router uses: the logger, the limits, starting workers
	matcher *Matcher
	convs   map[string]*convState   // by Conversation.ID
	open    map[string]*chatRequest // by request id
	// early holds lm/cancel ids that came before their request was routed (the client
	// sends lm/cancel right after the request; the request's handler may not have run).
	early []string
	// spares are sessions opened ahead of the next new conversation, one per agent at
	// most, only for agents the user configured or wants (eligible), and only while that
	// agent has no conversation in that workspace (see prepareSpare). An agent is wanted
	// once the user chose it: a conversation with it, or lm/prepareSession.
	spares   map[AgentKey]*spare
	eligible map[AgentKey]AgentDef
	wanted   map[AgentKey]bool
	workers  int // numbering
	// Of the latest chat request: where a spare session opens, and the tools it offers.
	lastCwd   string
	lastDirs  []string
	lastTools []ToolDefinition
}

// spare is a worker that has opened (or is opening) a session no conversation uses yet.
type spare struct {
	w     *worker
	cwd   string
	dirs  []string
	since time.Time
}

// convState is what the router knows of a conversation besides its history.
type convState struct {
	conv       *Conversation
	w          *worker
	key        AgentKey
	cwd        string       // where its session works
	current    *chatRequest // the latest request routed to it
	busy       bool
	lastActive time.Time
}

// maxEarlyCancels bounds the lm/cancel ids kept for requests not routed yet.
const maxEarlyCancels = 64

func newRouter(s *Server) *router {
	return &router{
		s: s, matcher: NewMatcher(), convs: map[string]*convState{}, open: map[string]*chatRequest{},
		spares: map[AgentKey]*spare{}, eligible: map[AgentKey]AgentDef{}, wanted: map[AgentKey]bool{},
	}
}

// routerMsg is what the router's inbox holds.
type routerMsg interface{ routerMsg() }

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
	routeListed struct { // the client listed the models: the agents the user configured
		configured []AgentDef
		cwd        string
		dirs       []string
	}
	routePrepare struct { // lm/prepareSession: the agent the user chose last
		def  AgentDef
		cwd  string
		dirs []string
	}
	routeLookup struct { // which worker serves a conversation (nil: none)
		conv  string
		reply chan *worker // buffered
	}
)

func (routeChat) routerMsg()     {}
func (routeCancel) routerMsg()   {}
func (routeAnswered) routerMsg() {}
func (routeExchange) routerMsg() {}
func (routeBusy) routerMsg()     {}
func (routeListed) routerMsg()   {}
func (routePrepare) routerMsg()  {}
func (routeLookup) routerMsg()   {}

// run is the router's loop. It returns when the client connection ends (false) or ctx
// ends (true).
func (rt *router) run(ctx context.Context) (signalled bool) {
	s := rt.s
	janitor := time.NewTicker(min(s.idle/4, time.Minute))
	defer janitor.Stop()
	for {
		select {
		case msg := <-s.inbox:
			rt.handle(msg)
		case <-janitor.C:
			rt.evictIdle()
		case <-s.conn.Done():
			return false
		case <-ctx.Done():
			return true
		}
	}
}

func (rt *router) handle(msg routerMsg) {
	s := rt.s
	switch m := msg.(type) {
	case routeChat:
		rt.routeChat(m.req)
	case routeCancel:
		if r := rt.open[m.id]; r != nil {
			r.finish(errCancelled)
			if cs := rt.convs[r.conv]; cs != nil {
				cs.w.mail.Post(cancelMsg{req: r})
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
	case routeListed:
		if m.cwd != "" {
			rt.lastCwd, rt.lastDirs = m.cwd, m.dirs
		}
		for _, def := range m.configured {
			if _, ok := rt.eligible[def.Key]; !ok {
				rt.eligible[def.Key] = def
			}
		}
		// The agents the user wants first, so that they get the spares within the bound.
		eligible := slices.SortedFunc(maps.Values(rt.eligible), func(a, b AgentDef) int {
			if wa, wb := rt.wanted[a.Key], rt.wanted[b.Key]; wa != wb {
				if wa {
					return -1
				}
				return 1
			}
			return strings.Compare(a.Label(), b.Label())
		})
		for _, def := range eligible {
			rt.prepareSpare(def, rt.lastCwd, rt.lastDirs)
		}
	case routeLookup:
		var w *worker
		if cs := rt.convs[m.conv]; cs != nil {
			w = cs.w
		}
		m.reply <- w
	case routePrepare:
		s.logger.Debug("asked to prepare a session", "agent", m.def.Label(), "cwd", m.cwd)
		rt.want(m.def)
		cwd, dirs := m.cwd, m.dirs
		if cwd == "" {
			cwd, dirs = rt.lastCwd, rt.lastDirs
		}
		rt.prepareSpare(m.def, cwd, dirs)
	}
}

// want marks an agent the user chose: it gets a spare session when the models are listed
// (once it has no conversation in that workspace), before the agents only configured.
func (rt *router) want(def AgentDef) {
	rt.eligible[def.Key] = def
	rt.wanted[def.Key] = true
}

// routeChat matches a request to its conversation, starting a new one (and its worker)
// when no session can take it, and hands it to the conversation's worker.
//
// A request whose lm/cancel came first (the client cancelled it before its handler ran) is
// answered -32800 at once, and still routed: its conversation records it as it records
// any cancelled request, and its worker never prompts it. The next request of that chat
// repeats its user message ([..., U1, U2]); the agent then gets U1 as earlier context and
// answers U2, as after a cancel that came later, never U1 run again as a new prompt.
func (rt *router) routeChat(r *chatRequest) {
	s := rt.s
	cancelled := false
	for i, id := range rt.early {
		if id == r.key {
			rt.early = append(rt.early[:i], rt.early[i+1:]...)
			cancelled = true
			break
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

	rt.lastCwd, rt.lastDirs, rt.lastTools = r.params.Cwd, r.params.AdditionalDirectories, r.tools
	cs := rt.convs[conv.ID]
	if cs == nil {
		var w *worker
		if cancelled {
			w = rt.startWorker(r.def) // the spare is left to a request that runs
		} else {
			w = rt.takeSpare(r)
		}
		cs = &convState{conv: conv, w: w, key: r.def.Key, cwd: r.params.Cwd}
		rt.convs[conv.ID] = cs
		if len(rt.convs) > s.max {
			rt.evictOldest(conv.ID)
		}
		rt.want(r.def) // the user chose this agent: it gets a spare next time
	}
	cs.current, cs.lastActive = r, time.Now()
	if cancelled {
		r.finish(errCancelled)
		cs.w.mail.Post(requestMsg{req: r, cancelled: true})
		return
	}
	cs.busy = true
	rt.open[r.key] = r
	if !cs.w.mail.Post(requestMsg{req: r}) {
		r.finish(errClosed) // the worker has ended
	}
}

// startWorker starts a worker for def.
func (rt *router) startWorker(def AgentDef) *worker {
	rt.workers++
	w := newWorker(rt.s, fmt.Sprintf("w%d", rt.workers), def)
	rt.s.goroutines.Go(w.run)
	return w
}

// takeSpare returns the spare worker for the request's agent when its session opened
// (or is opening) where the request works, else a new worker.
func (rt *router) takeSpare(r *chatRequest) *worker {
	sp := rt.spares[r.def.Key]
	if sp == nil || sp.cwd != r.params.Cwd || !slices.Equal(sp.dirs, r.params.AdditionalDirectories) {
		return rt.startWorker(r.def)
	}
	delete(rt.spares, r.def.Key)
	rt.s.logger.Debug("took a spare session", "agent", r.def.Label(), "worker", sp.w.id)
	return sp.w
}

// prepareSpare opens a spare session for an eligible agent that has none, in the
// workspace cwd (parley's own directory when "") and dirs, within the bound: the next new
// conversation with that agent in that workspace takes it and does not wait for the agent
// to start or for session/new. At the bound, a wanted agent's spare replaces one of an
// agent only configured. A spare in another workspace is replaced: the newest signal wins.
//
// Not while the agent has a conversation in that workspace: some agents (opencode 1.18)
// keep MCP servers per workspace, not per session, so a second session's vscode_tools
// replaces the first's and that conversation's calls of VS Code tools fail. A spare
// therefore never adds a session the user did not ask for beside a live one.
func (rt *router) prepareSpare(def AgentDef, cwd string, dirs []string) {
	s := rt.s
	if _, ok := rt.eligible[def.Key]; !ok || s.spares <= 0 {
		return
	}
	if cwd == "" {
		cwd = s.cwd
	}
	if sp := rt.spares[def.Key]; sp != nil {
		if sp.cwd == cwd && slices.Equal(sp.dirs, dirs) {
			return
		}
		rt.closeSpare(def.Key)
	}
	for _, cs := range rt.convs {
		if cs.key == def.Key && cs.cwd == cwd {
			return
		}
	}
	if len(rt.spares) >= s.spares && !(rt.wanted[def.Key] && rt.closeUnwantedSpare()) {
		return
	}
	w := rt.startWorker(def)
	rt.spares[def.Key] = &spare{w: w, cwd: cwd, dirs: dirs, since: time.Now()}
	s.logger.Debug("opening a spare session", "agent", def.Label(), "worker", w.id, "cwd", cwd)
	w.mail.Post(prepareMsg{cwd: cwd, dirs: dirs, tools: rt.lastTools})
}

// closeUnwantedSpare closes the oldest spare of an agent the user only configured, to make
// room for one the user wants; false when there is none.
func (rt *router) closeUnwantedSpare() bool {
	var oldest *spare
	var key AgentKey
	for k, sp := range rt.spares {
		if !rt.wanted[k] && (oldest == nil || sp.since.Before(oldest.since)) {
			oldest, key = sp, k
		}
	}
	if oldest == nil {
		return false
	}
	rt.closeSpare(key)
	return true
}

// closeSpare closes the spare session of an agent.
func (rt *router) closeSpare(key AgentKey) {
	sp := rt.spares[key]
	rt.s.logger.Debug("closing an unused spare session", "agent", sp.w.def.Label(), "worker", sp.w.id)
	delete(rt.spares, key)
	sp.w.mail.Post(closeMsg{})
}

// evictIdle closes the conversations and spare sessions idle for longer than the idle
// timeout.
func (rt *router) evictIdle() {
	cutoff := time.Now().Add(-rt.s.idle)
	for _, cs := range rt.convs {
		if !cs.busy && cs.lastActive.Before(cutoff) {
			rt.evict(cs)
		}
	}
	for key, sp := range rt.spares {
		if sp.since.Before(cutoff) {
			rt.closeSpare(key)
		}
	}
}

// evictOldest closes the least recently active idle conversation other than keep.
func (rt *router) evictOldest(keep string) {
	var oldest *convState
	for id, cs := range rt.convs {
		if id == keep || cs.busy {
			continue
		}
		if oldest == nil || cs.lastActive.Before(oldest.lastActive) {
			oldest = cs
		}
	}
	if oldest != nil {
		rt.evict(oldest)
	}
}

// evict forgets a conversation and tells its worker to close its session and end.
func (rt *router) evict(cs *convState) {
	rt.s.logger.Debug("closing an idle conversation", "conversation", cs.conv.ID)
	rt.matcher.Remove(cs.conv)
	delete(rt.convs, cs.conv.ID)
	cs.w.mail.Post(closeMsg{})
}
