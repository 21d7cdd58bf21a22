package conversation

import (
	"context"
	"errors"
	"fmt"
	"github.com/parley-acp/parley/internal/agentproc"
	"maps"
	"sync/atomic"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolstate"
	"github.com/parley-acp/parley/internal/workspace"
)

// Options configure a Conversation.
type Options struct {
	Agent *Agent
	// Roots confine the session: the first is its working directory, the others are
	// given to the agent as additional directories where it supports them.
	Roots *workspace.Roots
	// Policy decides the agent's permission requests and terminal commands. Its Ask must
	// be nil: the conversation asks its views when Interactive. The conversation keeps a
	// copy (Policy.Clone): changing Policy after New changes nothing.
	Policy *permission.Policy
	// Interactive says a person can answer questions. Without one, what the policy would
	// ask is refused (and a Refused event says so).
	Interactive bool
	// Elicit says that person also answers the agent's elicitations (with Interactive);
	// otherwise they are declined at once (ElicitationDeclined) and the turn goes on.
	Elicit bool
	// ElicitFor, when set, says at each elicitation whether someone can answer one of
	// that mode, in place of Elicit: a server whose views come and go, each answering
	// some modes, asks only when one can. It is called on the agent's goroutines.
	ElicitFor  func(acp.ElicitationMode) bool
	MCPServers []acp.MCPServer
	// MCPServersFor, when set, gives the MCP servers of each session instead, from what
	// the agent said it takes (an HTTP server only for an agent with
	// mcpCapabilities.http): a view that serves tools itself (VS Code's, bridged) offers
	// them in the form the agent can reach. It is called on a helper goroutine.
	MCPServersFor func(acp.AgentCapabilities) []acp.MCPServer
	// Predecide, when set, sees every permission request of the session before the policy
	// (see permission.go): a view that knows better decides it there. What it leaves
	// Undecided goes to the policy.
	Predecide func(ctx context.Context, req *acp.RequestPermissionRequest, seen *toolstate.ToolCall) Predecision
	// Load, when set, is the agent's session to reopen (session/load, or session/resume)
	// instead of a new one.
	Load acp.SessionID
	// Carry, when set, is how the first session carries an earlier conversation on
	// (carry.go): reopened, forked, or a new one seeded with its transcript.
	Carry *Carry
	// Changes, when set, records what each turn changes in the workspace (see changes.go);
	// the conversation closes it when it ends.
	Changes *changes.Record
}

// Conversation is one ACP session on an Agent, shown by any number of views. See the
// package comment. Its methods are safe for concurrent use.
type Conversation struct {
	opts   Options
	agent  *Agent
	inbox  chan message
	done   chan struct{} // closed when the actor has ended
	ctx    context.Context
	cancel context.CancelFunc
	ids    atomic.Int64 // prompt ids

	// Everything below is owned by the actor (run).
	st state
}

// inboxSize bounds the messages waiting for the actor. Posters wait when it is full: the
// agent's connection then stops reading, which slows an agent that floods (nothing is
// dropped).
const inboxSize = 256

// message is what the actor handles: commands from views, what the agent sent, and the
// results of the calls the actor started. A message that is answered carries a buffered
// reply channel (the actor never waits on it) and is sent with roundTrip, which is the
// only place that waits for the actor: see there why.
type message interface{ handle(c *Conversation) }

// state is the actor's.
type state struct {
	session  Session
	proc     *agentproc.Server // the process the session lives on; nil while none is open
	starting bool              // a start (agent and session) is under way
	start    error             // the last start's failure, until the next start
	// The start under way as it was announced (nil for a NewSession or LoadSession),
	// and its progress so far (StartProgress merged: see Snapshot.Progress).
	startEv  *Starting
	progress *StartProgress
	// what the conversation showed, for a view that comes late (Snapshot.Transcript),
	// and when it last changed
	transcript *transcript
	updated    time.Time
	stale      bool              // updates were applied since updated was set (touch)
	released   releasedTerminals // the last output of terminals the agent released
	refusals   []Decided         // the last refusals, for a relaying view that comes late

	turn     *runningTurn
	shown    *toolstate.Turn // the turn updates are folded into: the running one, else the last
	text     heldText        // text deltas not sent yet (heldtext.go)
	textTurn int             // the turn whose text went out last
	lastTurn int
	queue    []Prompt
	// fresh: the session was opened by session/new and has not been sent a prompt (see
	// SendOptions.FirstInSession).
	fresh bool
	// seed goes before the first prompt of a fresh session that carries a conversation on
	// (carry.go).
	seed []acp.ContentBlock

	questions []*question // the open questions, oldest first; the first is on screen
	nextQ     int

	signIn     context.CancelFunc // the sign-in under way (auth.go), if any
	signInWith *AuthMethod        // its method
	wantSignIn *SignInRequired    // the agent wants a sign-in: until the session opens or one succeeds

	subs      []*Subscription
	replaying bool // attach is applying a loaded session's replay
	helpers   int  // goroutines that will post one message each
	closed    bool
	closeErr  error
}

type runningTurn struct {
	prompt    Prompt
	cancel    context.CancelFunc
	cancelled bool
	refused   string
	// grace cancels the turn's context a while after a refusal that ended it
	// (AnswerAndCancel), for an agent that ignores session/cancel.
	grace *time.Timer
	// The session the prompt went to, and whether no prompt had gone to it before.
	session acp.SessionID
	fresh   bool
	seed    []acp.ContentBlock // the seed the prompt took (given back if it never went out)
}

// New starts a conversation: the agent (if it is not running) and its session start at
// once, in the background; Subscribe to see how that goes.
func New(opts Options) *Conversation {
	c := newConversation(opts)
	go c.run()
	c.post(startMsg{})
	c.post(prepareChangesMsg{})
	return c
}

// newConversation is a conversation whose actor has not started.
func newConversation(opts Options) *Conversation {
	// The conversation's own copy: the caller may change or reuse the policy it gave (one
	// per agent for every session) without changing this one's, and setting Ask below
	// does not change the caller's.
	opts.Policy = opts.Policy.Clone()
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conversation{opts: opts, agent: opts.Agent, inbox: make(chan message, inboxSize), done: make(chan struct{}), ctx: ctx, cancel: cancel}
	c.st.shown = c.newToolTurn()
	c.st.transcript = newTranscript()
	c.st.updated = time.Now()
	if opts.Interactive {
		c.opts.Policy.Ask = c.ask
	}
	return c
}

// run is the actor: it handles messages until the conversation is closed and every
// helper goroutine it started has reported.
func (c *Conversation) run() {
	defer close(c.done)
	for m := range c.inbox {
		if _, update := m.(updateMsg); !update {
			c.flushText() // held text goes out before anything else is handled (heldtext.go)
		}
		m.handle(c)
		if len(c.inbox) == 0 {
			c.settleText()
			c.touch()
		}
		if c.st.closed && c.st.helpers == 0 {
			c.finish()
			return
		}
	}
}

// touch sets the time of the last activity, when updates were applied since it was set.
func (c *Conversation) touch() {
	if c.st.stale {
		c.st.updated, c.st.stale = time.Now(), false
	}
}

// post hands m to the actor; it gives up once the actor has ended. A post that succeeds
// does not mean m will be handled: the actor may end with m still in its inbox (it ends
// once closed and its helpers have reported, whatever is queued behind), which is why
// whoever waits for an answer does so with roundTrip.
func (c *Conversation) post(m message) bool { return c.postCtx(context.Background(), m) }

// postCtx is post for the agent's requests and notifications: it also gives up when ctx
// ends (the request was withdrawn, the connection closed).
func (c *Conversation) postCtx(ctx context.Context, m message) bool {
	select {
	case <-c.done: // first: a select picks at random among the ready cases
		return false
	default:
	}
	select {
	case c.inbox <- m: // the common case, without a select over three channels
		return true
	default:
	}
	select {
	case c.inbox <- m:
		return true
	case <-c.done:
		return false
	case <-ctx.Done():
		return false
	}
}

// ErrClosed is the error of a call to a conversation that has ended (or ends before it
// answers).
var ErrClosed = errors.New("the conversation has ended")

// roundTrip posts m and waits for what the actor (or whoever m hands it on to) sends on
// reply, which must be buffered for the one value. Every method that waits for the actor
// goes through here, because the actor can end with m unhandled in its inbox (see post):
// the wait ends too when the conversation has ended (ErrClosed) or ctx does (its error).
// A reply sent just before the end is still returned.
func roundTrip[T any](ctx context.Context, c *Conversation, m message, reply <-chan T) (T, error) {
	var zero T
	if !c.postCtx(ctx, m) {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		return zero, ErrClosed
	}
	select {
	case v := <-reply:
		return v, nil
	case <-c.done:
		select {
		case v := <-reply:
			return v, nil
		default:
			return zero, ErrClosed
		}
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// goHelper runs f on a goroutine of the actor's: f must post exactly one message (its
// result), which calls helperDone.
func (c *Conversation) goHelper(f func()) {
	c.st.helpers++
	go f()
}

func (c *Conversation) helperDone() { c.st.helpers-- }

// emit sends ev to every view (a TurnUpdate only to those that draw toolui's model),
// after the text held (heldtext.go).
func (c *Conversation) emit(ev Event) {
	c.flushText()
	c.emitNow(ev)
}

func (c *Conversation) emitNow(ev Event) {
	_, turnUpdate := ev.(TurnUpdate)
	for _, s := range c.st.subs {
		if turnUpdate && s.kind != modelSub {
			continue
		}
		s.box.Post(ev)
	}
}

type terminalReleasedMsg struct{ ev TerminalReleased }

func (m terminalReleasedMsg) handle(c *Conversation) {
	c.st.released.add(m.ev)
	for _, s := range c.st.subs {
		if s.kind == relaySub {
			s.box.Post(m.ev)
		}
	}
}

// releasedTerminals keeps the last output of the terminals the agent released, for a
// relaying view that comes late (the terminal is gone: nobody can read it again). It
// keeps the last maxReleased.
type releasedTerminals struct {
	output map[acp.TerminalID]*acp.TerminalOutputResponse
	order  []acp.TerminalID
}

const maxReleased = 100

func (r *releasedTerminals) add(ev TerminalReleased) {
	if ev.Output == nil {
		return
	}
	if r.output == nil {
		r.output = map[acp.TerminalID]*acp.TerminalOutputResponse{}
	}
	if _, ok := r.output[ev.ID]; !ok {
		r.order = append(r.order, ev.ID)
	}
	r.output[ev.ID] = ev.Output
	if len(r.order) > maxReleased {
		delete(r.output, r.order[0])
		r.order = r.order[1:]
	}
}

func (r *releasedTerminals) copy() map[acp.TerminalID]*acp.TerminalOutputResponse {
	if len(r.output) == 0 {
		return nil
	}
	return maps.Clone(r.output)
}

// emitRelay sends the agent's update as it came to the views that relay it.
func (c *Conversation) emitRelay(u acp.SessionUpdate) {
	for _, s := range c.st.subs {
		if s.kind == relaySub {
			s.box.Post(AgentUpdate{Turn: c.st.lastTurn, Update: u, Replay: c.st.replaying})
		}
	}
}

func (c *Conversation) newToolTurn() *toolstate.Turn {
	return toolstate.NewTurn(&toolstate.TurnOptions{Root: c.opts.Roots.Dirs()[0]})
}

// Done is closed when the conversation has ended (after Close).
func (c *Conversation) Done() <-chan struct{} { return c.done }

// Close ends the conversation: the turn is cancelled, what was queued is dropped, open
// questions are answered "cancelled", the session is closed where the agent can, and
// Close waits for all of it (bounded by the agent's timeout and the cancel grace). The
// Agent is not closed: its owner does that.
func (c *Conversation) Close() {
	c.post(closeMsg{})
	<-c.done
}

// Starting the agent and its session.

type startMsg struct{}

func (startMsg) handle(c *Conversation) { c.startSession() }

// startSession starts the agent if it is not running and opens the session, unless that
// is under way already.
func (c *Conversation) startSession() {
	if c.st.starting || c.st.closed {
		return
	}
	restart := c.st.proc != nil
	var reason error
	if restart {
		reason = c.st.proc.Explain(errors.New("gone"))
		c.agent.detach(c.st.session.ID, c)
		c.st.proc = nil
	}
	c.st.starting = true
	c.st.start = nil
	ev := Starting{Agent: c.agent.Name(), Command: c.agent.opts.Spec.String(), Restart: restart, Reason: reason}
	c.st.startEv, c.st.progress = &ev, nil
	c.emit(ev)
	o := c.opts.opening()
	if restart {
		o = opening{} // the process is new: a new session
		if c.agent.opts.Dial != nil {
			// A parley server keeps its conversations past a dropped connection: attach
			// to the same one again (its history is replayed), never a new one unasked.
			o = opening{load: c.st.session.ID}
		}
	}
	ctx := c.withStartProgress(c.ctx)
	c.goHelper(func() {
		res := openedMsg{}
		res.proc, _, res.err = c.agent.running(ctx)
		if res.err == nil {
			res.session, res.err = c.open(ctx, res.proc, o)
		}
		res.loaded = res.session.reopened()
		c.post(res)
	})
}

// open opens a session (a new one, or the one o reopens or forks) on proc. It runs on a
// helper goroutine.
func (c *Conversation) open(ctx context.Context, proc *agentproc.Server, o opening) (Session, error) {
	s := Session{Agent: c.agent.info(proc), Cwd: c.opts.Roots.Dirs()[0]}
	s.ExtraDirs = c.opts.Roots.Dirs()[1:]
	caps := proc.Info.AgentCapabilities
	mcp := c.opts.MCPServersFor
	servers := c.opts.MCPServers
	if mcp != nil {
		servers = mcp(caps)
	}
	if servers == nil {
		servers = []acp.MCPServer{}
	}
	// The other roots go to an agent that takes them; either way parley's own file and
	// terminal access covers them all (the session's Roots).
	var extra []string
	if caps.SessionCapabilities.AdditionalDirectories != nil {
		extra = s.ExtraDirs
	}
	newSession := func() error {
		err := c.agent.call(ctx, proc, acp.MethodNewSession, func(ctx context.Context, conn *acp.ClientConn) error {
			resp, err := conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: s.Cwd, MCPServers: servers, AdditionalDirectories: extra})
			if err == nil {
				s.ID, s.Modes, s.Config, s.Models = resp.SessionID, resp.Modes, resp.ConfigOptions, resp.Models
				c.remoteCwd(&s, resp.Meta)
			}
			return err
		})
		if err != nil && !isAuthRequiredErr(err) {
			err = fmt.Errorf("opening a session: %w", err)
		}
		return err
	}
	load := func(id acp.SessionID) error {
		s.Carried = CarriedLoad
		return c.agent.call(ctx, proc, acp.MethodLoadSession, func(ctx context.Context, conn *acp.ClientConn) error {
			resp, err := conn.LoadSession(ctx, &acp.LoadSessionRequest{SessionID: id, Cwd: s.Cwd, MCPServers: servers, AdditionalDirectories: extra})
			if err == nil {
				s.ID, s.Modes, s.Config, s.Models = id, resp.Modes, resp.ConfigOptions, resp.Models
				c.remoteCwd(&s, resp.Meta)
			}
			return err
		})
	}
	resume := func(id acp.SessionID) error {
		s.Carried = CarriedResume
		return c.agent.call(ctx, proc, acp.MethodResumeSession, func(ctx context.Context, conn *acp.ClientConn) error {
			resp, err := conn.ResumeSession(ctx, &acp.ResumeSessionRequest{SessionID: id, Cwd: s.Cwd, MCPServers: servers, AdditionalDirectories: extra})
			if err == nil {
				s.ID, s.Modes, s.Config, s.Models = id, resp.Modes, resp.ConfigOptions, resp.Models
			}
			return err
		})
	}
	fork := func(id acp.SessionID) error {
		s.Carried = CarriedFork
		return c.agent.call(ctx, proc, acp.MethodForkSession, func(ctx context.Context, conn *acp.ClientConn) error {
			resp, err := conn.ForkSession(ctx, &acp.ForkSessionRequest{SessionID: id, Cwd: s.Cwd, MCPServers: servers, AdditionalDirectories: extra})
			if err == nil {
				s.ID, s.Modes, s.Config, s.Models = resp.SessionID, resp.Modes, resp.ConfigOptions, resp.Models
			}
			return err
		})
	}
	var err error
	canLoad, canResume, canFork := caps.LoadSession, caps.SessionCapabilities.Resume != nil, caps.SessionCapabilities.Fork != nil
	switch {
	case o.load != "" && o.preferResume && canResume:
		err = resume(o.load)
	case o.load != "" && canLoad:
		err = load(o.load)
	case o.load != "" && canResume:
		err = resume(o.load)
	case o.fork != "" && canFork:
		err = fork(o.fork)
	case o.load != "" && o.seed == nil:
		err = errors.New("this agent cannot reopen sessions")
	case o.fork != "" && o.seed == nil:
		err = errors.New("this agent cannot fork sessions")
	default:
		return s, c.seeded(&s, o, newSession, nil)
	}
	if err != nil && o.seed != nil && !isAuthRequiredErr(err) {
		// The agent no longer has the session (or refused): the transcript goes on.
		return s, c.seeded(&s, o, newSession, err)
	}
	if err != nil && !isAuthRequiredErr(err) {
		switch {
		case o.load != "":
			err = fmt.Errorf("loading session %s: %w", o.load, err)
		case o.fork != "":
			err = fmt.Errorf("forking session %s: %w", o.fork, err)
		}
	}
	return s, err
}

// remoteCwd sets the session's cwd to the one a parley server says its session works
// in (_meta.parley.cwd): over a Dial the client's directory names nothing there, and
// the server opens the session in its workspace.
func (c *Conversation) remoteCwd(s *Session, meta acp.Meta) {
	if c.agent.opts.Dial == nil || meta["parley"] == nil {
		return
	}
	var m parleyapi.SessionMeta
	if json.Unmarshal(meta["parley"], &m) == nil && m.Cwd != "" {
		s.Cwd = m.Cwd
	}
}

// info is what initialize said about the agent proc.
func (a *Agent) info(proc *agentproc.Server) AgentInfo {
	info := agentInfo(a.opts.Name, proc.Info)
	info.Methods = a.methodsOf(proc)
	return info
}

func isAuthRequiredErr(err error) bool {
	_, ok := errors.AsType[*AuthRequiredError](err)
	return ok
}

func agentInfo(name string, info *acp.InitializeResponse) AgentInfo {
	a := AgentInfo{Name: name, Title: name, Capabilities: info.AgentCapabilities, AuthMethods: info.AuthMethods}
	if impl := info.AgentInfo; impl != nil {
		a.Version = impl.Version
		switch {
		case impl.Title != "":
			a.Title = impl.Title
		case impl.Name != "":
			a.Title = impl.Name
		}
	}
	return a
}

type openedMsg struct {
	proc    *agentproc.Server
	session Session
	loaded  bool // an existing session was reopened
	err     error
}

func (m openedMsg) handle(c *Conversation) {
	c.helperDone()
	c.st.starting = false
	c.st.startEv, c.st.progress = nil, nil
	if m.err != nil {
		c.st.start = m.err
		c.noteAuth(m.err)
		c.emit(StartFailed{Err: m.err})
		// The prompts that waited for the start fail with it; the next one tries again.
		for _, p := range c.st.queue {
			ended := TurnEnded{Turn: p.ID, Err: m.err}
			c.emit(ended)
			p.tell(PromptEnd{Ended: &ended})
			c.emitChanges(p.ID, changes.Turn{}, nil)
		}
		c.st.queue = nil
		return
	}
	if c.st.closed {
		c.closeSessionOn(m.proc, m.session.ID)
		return
	}
	c.recordSession(m.session.ID, m.loaded)
	c.attach(m.proc, m.session, false)
	c.st.fresh = m.session.fresh()
	c.st.seed = m.session.seed
	c.st.session.seed = nil
	c.noteCarry(m.session)
	c.st.wantSignIn = nil
	c.emit(Ready{Session: c.st.session})
	c.pump()
}

// attach makes s the conversation's session and applies what the agent said about it
// before it was attached. replay shows those updates as a turn of their own (the
// conversation session/load replays).
func (c *Conversation) attach(proc *agentproc.Server, s Session, replay bool) {
	if c.st.proc != nil {
		c.agent.detach(c.st.session.ID, c)
	}
	c.st.proc, c.st.session = proc, s
	held := c.agent.attach(s.ID, c)
	if replay {
		c.st.shown = c.newToolTurn()
		c.emit(TurnStarted{Prompt: Prompt{}, Replay: true})
	}
	c.st.replaying = replay
	for _, n := range held {
		c.applyUpdate(n)
	}
	c.st.replaying = false
	if replay {
		c.emit(TurnEnded{Replay: true})
	}
}

// Prompts and turns.

// Send sends a prompt, or queues it behind the running turn, and returns it with its
// id. A prompt sent while the agent is not ready (starting, or dead) waits for it.
func (c *Conversation) Send(content []acp.ContentBlock) Prompt {
	return c.SendWith(content, SendOptions{})
}

// SendOptions say more about a prompt.
type SendOptions struct {
	// FirstInSession, when set, is sent instead of the content when the prompt is the
	// first its session gets: a session session/new just opened (the conversation's
	// first, or a new one after the agent restarted), which has not been sent a prompt
	// yet. A view that keeps the conversation itself (VS Code sends the whole history with
	// every request) gives such a session the earlier turns there.
	FirstInSession []acp.ContentBlock
	// Origin is handed back in the prompt (Prompt.Origin) of every event about it.
	Origin any
	// Ended, when set, is told how the prompt ended, once, after the views were sent the
	// event that says so (TurnEnded, Unqueued): a sender that waits for its prompt's end
	// has no events to sort. It must have room for the value (the conversation never
	// waits for it). A prompt sent as the conversation ends may be told nothing: wait for
	// Done too (then it ended Closed).
	Ended chan<- PromptEnd
}

// SendWith is Send with options.
func (c *Conversation) SendWith(content []acp.ContentBlock, opts SendOptions) Prompt {
	p := Prompt{ID: int(c.ids.Add(1)), Content: content, Origin: opts.Origin, firstInSession: opts.FirstInSession, ended: opts.Ended}
	if !c.post(sendMsg{p}) { // once closed, nothing answers it: the views see Closed
		p.tell(PromptEnd{Closed: true})
	}
	return p
}

type sendMsg struct{ p Prompt }

func (m sendMsg) handle(c *Conversation) {
	if c.st.closed {
		m.p.tell(PromptEnd{Closed: true})
		return
	}
	c.st.queue = append(c.st.queue, m.p)
	if c.st.turn != nil || c.st.starting || len(c.st.queue) > 1 {
		c.emit(Queued{Prompt: m.p})
	}
	c.pump()
}

// Unqueue takes a queued prompt back; it reports false when it is no longer queued (it
// started, or there is no such prompt).
func (c *Conversation) Unqueue(id int) bool {
	reply := make(chan bool, 1)
	ok, _ := roundTrip(context.Background(), c, unqueueMsg{id, reply}, reply)
	return ok // false once closed: what was queued went back as Unqueued
}

type unqueueMsg struct {
	id    int
	reply chan<- bool
}

func (m unqueueMsg) handle(c *Conversation) {
	for i, p := range c.st.queue {
		if p.ID == m.id {
			c.st.queue = append(c.st.queue[:i], c.st.queue[i+1:]...)
			c.emit(Unqueued{Prompt: p})
			p.tell(PromptEnd{Unqueued: true})
			m.reply <- true
			return
		}
	}
	m.reply <- false
}

// pump starts the next queued prompt when nothing runs, (re)starting the agent first if
// it is not running.
func (c *Conversation) pump() {
	if c.st.turn != nil || c.st.starting || c.st.closed || len(c.st.queue) == 0 {
		return
	}
	if c.st.proc == nil || exited(c.st.proc) {
		c.startSession()
		return
	}
	p := c.st.queue[0]
	c.st.queue = c.st.queue[1:]
	wasFresh := c.st.fresh
	var seed []acp.ContentBlock
	switch {
	case wasFresh && p.firstInSession != nil:
		p.Content, p.First = p.firstInSession, true
	case wasFresh && c.st.seed != nil:
		seed, c.st.seed = c.st.seed, nil
		p.Content, p.Seeded = append(append([]acp.ContentBlock(nil), seed...), p.Content...), len(seed)
	}
	p.firstInSession = nil
	c.st.fresh = false // until the prompt is known not to have gone out
	ctx, cancel := context.WithCancel(c.ctx)
	c.st.turn = &runningTurn{prompt: p, cancel: cancel, session: c.st.session.ID, fresh: wasFresh, seed: seed}
	c.st.shown = c.newToolTurn()
	c.st.lastTurn = p.ID
	c.st.transcript.prompt(p.Content[p.Seeded:])
	c.st.updated = time.Now()
	c.emit(TurnStarted{Prompt: p})
	proc, sid := c.st.proc, c.st.session.ID
	c.goHelper(func() {
		beginErr := c.beginChanges(ctx, p)
		resp, err := proc.Conn.Prompt(ctx, &acp.PromptRequest{SessionID: sid, Prompt: p.Content})
		switch {
		case isAuthRequired(err):
			err = &AuthRequiredError{Agent: c.agent.Name(), During: acp.MethodSessionPrompt, Methods: c.agent.methodsOf(proc), Err: err}
		case err != nil:
			err = proc.Explain(err)
		}
		changed, endErr := c.endChanges()
		c.post(turnDoneMsg{resp: resp, err: err, changed: changed, changesErr: errors.Join(beginErr, endErr)})
	})
}

type turnDoneMsg struct {
	resp       *acp.PromptResponse
	err        error
	changed    changes.Turn
	changesErr error
}

func (m turnDoneMsg) handle(c *Conversation) {
	c.helperDone()
	t := c.st.turn
	c.st.turn = nil
	t.cancel()
	if t.grace != nil {
		t.grace.Stop()
	}
	if errors.Is(m.err, acp.ErrPromptNotSent) && t.session == c.st.session.ID && t.fresh {
		c.st.fresh = true // the agent never saw it: the session is as new as it was
		if t.seed != nil {
			c.st.seed = t.seed
		}
	}
	if t.cancelled {
		c.emitTurn(c.st.shown.Cancel())
	}
	ended := TurnEnded{Turn: t.prompt.ID, Cancelled: t.cancelled, Refused: t.refused, Err: m.err}
	if m.err == nil {
		ended.StopReason, ended.Usage = m.resp.StopReason, copyUsage(m.resp.Usage)
		if m.resp.Usage != nil {
			c.st.session.TurnUsage = copyUsage(m.resp.Usage)
		}
	}
	c.noteAuth(m.err)
	c.emit(ended)
	t.prompt.tell(PromptEnd{Ended: &ended})
	c.emitChanges(t.prompt.ID, m.changed, m.changesErr)
	c.pump()
}

// Cancel cancels the running turn (session/cancel; the agent's open permission requests
// are answered "cancelled"). What was queued behind it goes back to the views
// (Unqueued): a person who stops the agent does not want the next prompt to start.
func (c *Conversation) Cancel() { c.post(cancelMsg{}) }

type cancelMsg struct{}

func (cancelMsg) handle(c *Conversation) {
	c.unqueueAll()
	if t := c.st.turn; t != nil {
		t.cancelled = true
		t.cancel() // again after AnswerAndCancel: its grace is over
	}
}

// unqueueAll gives what was queued back to the views.
func (c *Conversation) unqueueAll() {
	for _, p := range c.st.queue {
		c.emit(Unqueued{Prompt: p})
		p.tell(PromptEnd{Unqueued: true})
	}
	c.st.queue = nil
}

// Start opens the session again when it is not open (its start failed, or its agent
// exited): Starting, then Ready or StartFailed follow. It does nothing while the session
// is open or a start is under way. (A prompt sent while it is not open starts it too.)
func (c *Conversation) Start() { c.post(startAgainMsg{}) }

type startAgainMsg struct{}

func (startAgainMsg) handle(c *Conversation) {
	if c.st.closed || c.st.starting || c.st.proc != nil && !exited(c.st.proc) {
		return
	}
	c.startSession()
}

// What the agent sends.

// postUpdate hands an update to the actor, in the order the agent sent it (it is called
// from the connection's one dispatcher goroutine). It waits while the actor's inbox is
// full.
func (c *Conversation) postUpdate(ctx context.Context, n *acp.SessionNotification) {
	c.postCtx(ctx, updateMsg{n})
}

type updateMsg struct{ n *acp.SessionNotification }

func (m updateMsg) handle(c *Conversation) {
	if m.n.SessionID != c.st.session.ID {
		return // an update of a session this conversation left (after load or new)
	}
	c.applyUpdate(m.n)
}

// applyUpdate keeps the session's settings current and shows the update.
func (c *Conversation) applyUpdate(n *acp.SessionNotification) {
	u := n.Update
	c.st.transcript.add(u)
	c.st.stale = true // c.st.updated is set once the inbox is empty: not a clock read per chunk
	s := &c.st.session
	changed := true
	switch {
	case u.AvailableCommandsUpdate != nil:
		s.Commands = u.AvailableCommandsUpdate.AvailableCommands
	case u.ConfigOptionUpdate != nil:
		s.Config = u.ConfigOptionUpdate.ConfigOptions
	case u.CurrentModeUpdate != nil && s.Modes != nil:
		modes := *s.Modes
		modes.CurrentModeID = u.CurrentModeUpdate.CurrentModeID
		s.Modes = &modes
	case u.SessionInfoUpdate != nil:
		if t := u.SessionInfoUpdate.Title; t.Set {
			s.Title = t.Value // "" when null: cleared
		}
	case u.UsageUpdate != nil:
		usage := *u.UsageUpdate
		s.Usage = &usage
	default:
		changed = false
		c.applyOther(u)
	}
	if changed {
		c.emit(SessionChanged{Session: c.st.session})
	}
	c.emitRelay(u)
	c.emitTurn(c.st.shown.Apply(u))
}

// emitTurn sends a turn's events, as copies the views may keep.
func (c *Conversation) emitTurn(evs []toolstate.Event) {
	for _, ev := range evs {
		if ev.Kind == toolstate.NoEvent {
			continue
		}
		if ev.Kind == toolstate.TextDelta && ev.Tool == nil && ev.Plan == nil && ev.Usage == nil {
			c.holdText(ev)
			continue
		}
		if ev.Tool != nil {
			ev.Tool = ev.Tool.Clone()
		}
		if ev.Plan != nil {
			ev.Plan = append([]acp.PlanEntry(nil), ev.Plan...)
		}
		if ev.Usage != nil {
			u := *ev.Usage
			ev.Usage = &u
		}
		c.emit(TurnUpdate{Turn: c.st.lastTurn, Update: ev})
	}
}

// Closing.

type closeMsg struct{}

func (closeMsg) handle(c *Conversation) {
	if c.st.closed {
		return
	}
	c.st.closed = true
	c.unqueueAll()
	if t := c.st.turn; t != nil {
		t.cancelled = true
		t.cancel()
	}
	for _, q := range c.st.questions {
		q.cancel()
	}
	c.st.questions = nil
	if c.st.signIn != nil {
		c.st.signIn()
	}
	if c.st.proc != nil && !exited(c.st.proc) {
		c.closeSessionOn(c.st.proc, c.st.session.ID)
	}
	c.cancel() // after the turn's own cancel: session/cancel goes out first
}

// closeSessionOn closes a session the conversation leaves, where the agent can.
func (c *Conversation) closeSessionOn(proc *agentproc.Server, id acp.SessionID) {
	c.agent.detach(id, c)
	if proc.Info.AgentCapabilities.SessionCapabilities.Close == nil || exited(proc) {
		return
	}
	c.goHelper(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeSessionTimeout)
		defer cancel()
		proc.Conn.CloseSession(ctx, &acp.CloseSessionRequest{SessionID: id})
		c.post(helperDoneMsg{})
	})
}

// closeSessionTimeout bounds session/close when the conversation ends: the agent frees
// the session's work, or it does not, but parley does not wait long for it.
const closeSessionTimeout = 2 * time.Second

type helperDoneMsg struct{}

func (helperDoneMsg) handle(c *Conversation) { c.helperDone() }

// finish runs once, when the actor ends.
func (c *Conversation) finish() {
	if c.opts.Changes != nil {
		c.opts.Changes.Close() // every turn's helper has reported: no snapshot is under way
	}
	c.agent.forgetURLs(c)
	c.emit(Closed{Err: c.st.closeErr})
	for _, s := range c.st.subs {
		s.box.Close()
	}
	c.st.subs = nil
}

// TerminalOutput reads the output so far of one of the session's terminals (those the
// agent started through parley), for a view that shows a command's output while it runs.
func (c *Conversation) TerminalOutput(ctx context.Context, id acp.TerminalID) (*acp.TerminalOutputResponse, error) {
	s, err := c.Session(ctx)
	if err != nil {
		return nil, err
	}
	return c.agent.terms.TerminalOutput(ctx, &acp.TerminalOutputRequest{SessionID: s.ID, TerminalID: id})
}
