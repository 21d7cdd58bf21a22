package acpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/parley-acp/parley/internal/version"
	"github.com/parley-acp/parley/internal/workspace"
)

// conn serves one client: it is the acp.Agent of one connection.
type conn struct {
	srv *Server
	ac  *acp.AgentConn
	// ctx ends with the connection: what the views send is bounded by it.
	ctx context.Context
	// peer is who the connection serves: the log names it, and a remote one's cwd is
	// a directory on its own machine.
	peer Peer

	// What the client said in initialize.
	parley atomic.Bool // it asked for parley's notifications (clientCapabilities._meta.parley)
	forms  atomic.Bool // it answers form elicitations
	urls   atomic.Bool // and URL elicitations
	// held releases the agent initialize started to learn its capabilities (under mu).
	held func()

	mu     sync.Mutex
	views  map[acp.SessionID]*view
	closed bool
	wg     sync.WaitGroup // the views' goroutines
}

var (
	_ acp.Agent              = (*conn)(nil)
	_ acp.SessionLoader      = (*conn)(nil)
	_ acp.SessionLister      = (*conn)(nil)
	_ acp.SessionCloser      = (*conn)(nil)
	_ acp.ModeSetter         = (*conn)(nil)
	_ acp.ConfigOptionSetter = (*conn)(nil)
	_ acp.ModelSetter        = (*conn)(nil)
	_ acp.Canceller          = (*conn)(nil)
	_ acp.ExtensionHandler   = (*conn)(nil)
)

func parleyMeta(v any) acp.Meta {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("acpserver: encoding _meta: %v", err)) // only parley's own types
	}
	return acp.Meta{"parley": b}
}

func readMeta(m acp.Meta) parleyapi.RequestMeta {
	var r parleyapi.RequestMeta
	if raw := m["parley"]; raw != nil {
		json.Unmarshal(raw, &r) // a malformed _meta is ignored, as ACP has it
	}
	return r
}

// Initialize answers with what the client will find true. loadSession, session/list and
// session/close are parley's own (it loads, lists and closes the sessions it holds,
// whatever the agent); parley passes no client MCP servers on (no mcpCapabilities). The
// prompt capabilities are the agent's: a client that speaks parley's extensions
// (clientCapabilities._meta.parley) may choose the agent of each session
// (_meta.parley.agent), so it is told only what every agent takes (text and resource
// links) here and each session's own in session/new's _meta.parley.promptCapabilities;
// any other client gets the default agent, which is started now to learn what it takes
// (and kept for the session/new that follows while the connection lasts).
func (c *conn) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	caps := req.ClientCapabilities
	_, parley := caps.Meta["parley"]
	c.parley.Store(parley)
	if e := caps.Elicitation; e != nil {
		c.forms.Store(e.Form != nil)
		c.urls.Store(e.URL != nil)
	}
	var prompt acp.PromptCapabilities
	if !parley {
		var release func()
		prompt, release = c.srv.promptCapabilities(ctx, c.srv.opts.DefaultAgent)
		c.hold(release)
	}
	return &acp.InitializeResponse{
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  prompt,
			SessionCapabilities: acp.SessionCapabilities{List: &acp.SessionListCapabilities{}, Close: &acp.SessionCloseCapabilities{}},
		},
		AgentInfo: &acp.Implementation{Name: "parley", Title: "parley", Version: version.String()},
		Meta:      parleyMeta(parleyapi.InitializeMeta{DefaultAgent: c.srv.opts.DefaultAgent, Workspace: c.srv.Workspace()}),
	}, nil
}

func (c *conn) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	if len(req.MCPServers) > 0 {
		return nil, acp.ErrInvalidParams("parley does not pass a client's MCP servers on to its agents")
	}
	name := readMeta(req.Meta).Agent
	if name == "" {
		name = c.srv.opts.DefaultAgent
	}
	roots, moved, err := c.srv.roots(req.Cwd, c.peer.Remote)
	if err != nil {
		return nil, err
	}
	ss, err := c.srv.openSession(newSessionID(), name, roots, "", c.elicits())
	if err != nil {
		return nil, err
	}
	state, signIn, err := ss.waitStarted(ctx)
	if _, auth := errors.AsType[*conversation.AuthRequiredError](err); err != nil && (!auth || !c.parley.Load()) {
		// Only a client that speaks _parley/sign_in can sign in through parley: another
		// gets the agent's auth_required.
		ss.close()
		return nil, startError(name, err)
	}
	// A session whose agent wants a sign-in first is parley's all the same: the page
	// shows the agent's methods (_parley/sign_in_required follows the response), and
	// the session opens once the user has signed in.
	c.attachAfterResponse(ctx, ss)
	c.logAttach(ss, "session/new")
	meta := c.describe(ss, state, signIn != nil)
	if moved {
		meta.RequestedCwd = req.Cwd
	}
	meta.DroppedDirectories = req.AdditionalDirectories // a session has one root, its cwd
	return &acp.NewSessionResponse{
		SessionID: ss.id, Modes: state.Modes, ConfigOptions: state.Config, Models: state.Models,
		Meta: parleyMeta(meta),
	}, nil
}

// logAttach tells the server's log that the connection attached to ss, and who it is.
func (c *conn) logAttach(ss *session, how string) {
	c.srv.logger.Info("a view attached", "session", ss.id, "agent", ss.agentName, "by", how, "token", c.peer.Name, "remote", c.peer.Remote)
}

// startError says why an agent did not start, keeping the agent's own error code (an
// auth_required is one the page acts on).
func startError(name string, err error) error {
	var ae *acp.Error
	if errors.As(err, &ae) {
		return &acp.Error{Code: ae.Code, Message: fmt.Sprintf("%s: %s", name, err), Data: ae.Data}
	}
	return acp.Errorf(acp.CodeInternalError, "%s did not start: %v", name, err)
}

func (c *conn) describe(ss *session, state conversation.Session, signIn bool) parleyapi.SessionMeta {
	m := parleyapi.SessionMeta{
		Agent: ss.agentName, AgentTitle: state.Agent.Title, AgentVersion: state.Agent.Version,
		PromptCapabilities: state.Agent.Capabilities.PromptCapabilities, Cwd: ss.roots.Dirs()[0],
		CanList: state.Agent.Capabilities.SessionCapabilities.List != nil, AgentSessionID: state.ID,
	}
	m.PromptCapabilities.Meta, m.PromptCapabilities.Extra = nil, nil
	m.SignIn = signIn
	return m
}

// attachAfterResponse attaches the connection to ss now; what the session showed so far
// and the events after it follow the response to the request being handled.
func (c *conn) attachAfterResponse(ctx context.Context, ss *session) {
	v := ss.attach(c)
	snap, rest := v.first()
	if !c.addView(ss.id, v) {
		return
	}
	// Started once the response is queued: everything the view writes follows it (a hook
	// of AfterResponse runs before the response is written, and a goroutine it started
	// could write first).
	c.startViewAfterResponse(ctx, func() { c.runView(v, snap, rest, false) })
}

// startViewAfterResponse runs a view on its own goroutine once the response to the request
// handled in ctx is queued, so that nothing the view writes can overtake it; outside a
// request handler, at once.
func (c *conn) startViewAfterResponse(ctx context.Context, run func()) {
	if !acp.WhenQueued(ctx, func() { c.wg.Go(run) }) {
		c.wg.Go(run)
	}
}

// addView records the connection's view of a session, replacing an older one.
func (c *conn) addView(id acp.SessionID, v *view) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		v.ss.detach(v)
		v.stop()
		return false
	}
	if old := c.views[id]; old != nil {
		old.ss.detach(old)
		old.stop()
	}
	c.views[id] = v
	return true
}

// view returns the connection's view of session id, if it has one.
func (c *conn) view(id acp.SessionID) *view {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.views[id]
}

func (c *conn) runView(v *view, snap conversation.Snapshot, rest []conversation.Event, replayed bool) {
	v.run(snap, rest, replayed)
	v.ss.detach(v)
	c.mu.Lock()
	if c.views[v.ss.id] == v {
		delete(c.views, v.ss.id)
	}
	c.mu.Unlock()
}

// detachAll runs when the connection has ended: its views stop, the sessions go on.
func (c *conn) detachAll() {
	c.mu.Lock()
	c.closed = true
	views := c.views
	c.views = map[acp.SessionID]*view{}
	c.mu.Unlock()
	for _, v := range views {
		v.ss.detach(v)
		v.stop() // one whose goroutine never started (the response never went out) too
	}
	c.wg.Wait()
	c.hold(nil)
}

// hold keeps release to call when the connection ends (an agent started for initialize),
// calling the one held before; nil releases what is held.
func (c *conn) hold(release func()) {
	c.mu.Lock()
	old := c.held
	c.held = release
	if c.closed && release != nil { // the connection ended meanwhile
		c.held = nil
		defer release()
	}
	c.mu.Unlock()
	if old != nil {
		old()
	}
}

// elicits says the client answers elicitations of some mode.
func (c *conn) elicits() bool { return c.forms.Load() || c.urls.Load() }

// takes says the client answers elicitations of mode.
func (c *conn) takes(mode acp.ElicitationMode) bool {
	switch mode {
	case acp.ElicitationModeForm:
		return c.forms.Load()
	case acp.ElicitationModeURL:
		return c.urls.Load()
	}
	return false
}

// notify sends one of parley's own notifications, to a client that asked for them: any
// other ACP client would show them as noise, or choke on them.
func (c *conn) notify(ctx context.Context, method string, params any) {
	if c.parley.Load() {
		c.ac.NotifyExtension(ctx, method, params)
	}
}

func (c *conn) LoadSession(ctx context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	ss, err := c.srv.session(req.SessionID)
	moved := false // a remote client's cwd replaced by the workspace
	if err != nil {
		// Not one parley holds: one of the agent's own sessions (from session/list).
		name := readMeta(req.Meta).Agent
		if name == "" {
			name = c.srv.opts.DefaultAgent
		}
		var roots *workspace.Roots
		roots, moved, err = c.srv.roots(req.Cwd, c.peer.Remote)
		if err != nil {
			return nil, err
		}
		if ss, err = c.srv.openSession(req.SessionID, name, roots, req.SessionID, c.elicits()); err != nil {
			return nil, err
		}
		if _, _, err := ss.waitStarted(ctx); err != nil {
			ss.close()
			return nil, startError(name, err)
		}
	}
	if state, _, err := ss.waitStarted(ctx); err != nil && state.ID == "" {
		return nil, startError(ss.agentName, err)
	}
	// The replay goes out before the response, as session/load has it: the transcript of
	// the view's own Snapshot, so that the events after it follow it exactly.
	v := ss.attach(c)
	snap, rest := v.first()
	// With parley's words for each call (_meta.parley), as the live updates carry them,
	// and how each refused call ended.
	tools := newToolMessages(ss.roots.Dirs()[0])
	for _, u := range snap.Transcript {
		c.ac.Update(ctx, ss.id, tools.add(u))
	}
	for _, d := range snap.Refusals {
		if u, ok := tools.decided(d); ok && u.ToolCallUpdate != nil {
			c.ac.Update(ctx, ss.id, u)
		}
	}
	if !c.addView(ss.id, v) {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	c.startViewAfterResponse(ctx, func() { c.runView(v, snap, rest, true) })
	c.logAttach(ss, "session/load")
	state := snap.Session
	meta := c.describe(ss, state, snap.SignIn != nil)
	if moved {
		meta.RequestedCwd = req.Cwd
	}
	if snap.Running != nil {
		id := snap.Running.ID
		meta.Running = &id
	}
	return &acp.LoadSessionResponse{Modes: state.Modes, ConfigOptions: state.Config, Models: state.Models, Meta: parleyMeta(meta)}, nil
}

func (c *conn) ListSessions(ctx context.Context, req *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	resp := &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	live := map[string]bool{} // agent name + agent session id of the sessions parley holds
	byAgent := map[string]*session{}
	want := req.Cwd // "" lists them all
	if want != "" {
		if dir, ok := c.srv.inWorkspace(want); ok {
			want = dir
		} else if c.peer.Remote {
			want = c.srv.Workspace() // a directory on the client's machine: its sessions open in the workspace
		}
	}
	for _, ss := range c.srv.liveSessions() {
		state, err := ss.conv.Session(ctx)
		if err != nil {
			continue // it has just closed
		}
		updated, _ := ss.conv.LastActive(ctx)
		cwd := ss.roots.Dirs()[0]
		if want != "" && want != cwd {
			continue
		}
		live[ss.agentName+"\x00"+string(state.ID)] = true
		if byAgent[ss.agentName] == nil && state.Agent.Capabilities.SessionCapabilities.List != nil {
			byAgent[ss.agentName] = ss
		}
		title := state.Title
		if title == "" {
			title = ss.firstPrompt() // never a bare id in a list
		}
		resp.Sessions = append(resp.Sessions, acp.SessionInfo{
			SessionID: ss.id, Cwd: cwd, Title: title, UpdatedAt: updated.UTC().Format("2006-01-02T15:04:05Z"),
			Meta: parleyMeta(parleyapi.SessionListMeta{Agent: ss.agentName, Live: true}),
		})
	}
	// The latest first (the times are UTC in one format: they sort as text), then by id.
	slices.SortFunc(resp.Sessions, func(a, b acp.SessionInfo) int {
		if c := strings.Compare(b.UpdatedAt, a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(string(a.SessionID), string(b.SessionID))
	})
	// The agents' own sessions, through a session parley holds with each agent that
	// lists them (listing needs a running agent).
	for name, ss := range byAgent {
		infos, err := ss.conv.ListSessions(ctx)
		if err != nil {
			continue
		}
		for _, si := range infos {
			if live[name+"\x00"+string(si.SessionID)] {
				continue
			}
			si.Meta = parleyMeta(parleyapi.SessionListMeta{Agent: name, Live: false})
			resp.Sessions = append(resp.Sessions, si)
		}
	}
	return resp, nil
}

func (c *conn) CloseSession(ctx context.Context, req *acp.CloseSessionRequest) (*acp.CloseSessionResponse, error) {
	ss, err := c.srv.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	ss.close()
	return &acp.CloseSessionResponse{}, nil
}

func (c *conn) Cancel(ctx context.Context, n *acp.CancelNotification) error {
	if ss, err := c.srv.session(n.SessionID); err == nil {
		ss.conv.Cancel()
	}
	return nil
}

func (c *conn) SetSessionMode(ctx context.Context, req *acp.SetSessionModeRequest) (*acp.SetSessionModeResponse, error) {
	ss, err := c.srv.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	if _, err := ss.conv.SetMode(ctx, string(req.ModeID)); err != nil {
		return nil, err
	}
	ss.broadcast(acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: req.ModeID}}, c)
	return &acp.SetSessionModeResponse{}, nil
}

func (c *conn) SetSessionConfigOption(ctx context.Context, req *acp.SetSessionConfigOptionRequest) (*acp.SetSessionConfigOptionResponse, error) {
	ss, err := c.srv.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	value := string(req.Value.ID)
	switch req.Value.Type {
	case "":
	case "boolean":
		value = strconv.FormatBool(req.Value.Boolean)
	default:
		return nil, acp.ErrInvalidParams("parley does not know config options of type %q", req.Value.Type)
	}
	state, err := ss.conv.SetConfig(ctx, string(req.ConfigID), value)
	if err != nil {
		return nil, acp.ErrInvalidParams("%s", toolui.SafeText(err.Error()))
	}
	ss.broadcast(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: state.Config}}, c)
	return &acp.SetSessionConfigOptionResponse{ConfigOptions: state.Config}, nil
}

func (c *conn) SetSessionModel(ctx context.Context, req *acp.SetSessionModelRequest) (*acp.SetSessionModelResponse, error) {
	ss, err := c.srv.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	if _, err := ss.conv.SetModel(ctx, string(req.ModelID)); err != nil {
		return nil, err
	}
	return &acp.SetSessionModelResponse{}, nil
}

// Prompt sends the prompt (queued by the core while a turn runs) and answers when its
// turn ends. Withdrawing the request ($/cancel_request) takes a queued prompt back and
// cancels a running one; a connection that ends leaves the turn running.
func (c *conn) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	ss, err := c.srv.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	if len(req.Prompt) == 0 {
		return nil, acp.ErrInvalidParams("the prompt is empty")
	}
	state, err := ss.conv.Session(ctx)
	if errors.Is(err, conversation.ErrClosed) {
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled, Meta: parleyMeta(parleyapi.PromptMeta{Closed: true})}, nil
	} else if err != nil {
		return nil, err
	}
	if err := checkPrompt(req.Prompt, state.Agent.Capabilities.PromptCapabilities); err != nil {
		return nil, err
	}
	p, e, ok := ss.send(c, req.Prompt, readMeta(req.Meta).Echo, ctx, func(p conversation.Prompt) {
		if !errors.Is(context.Cause(ctx), acp.ErrTurnCancelled) && !ss.conv.Unqueue(p.ID) {
			ss.conv.Cancel() // $/cancel_request of the running prompt
		}
	})
	if !ok {
		return nil, ctx.Err()
	}
	// The answer follows what this connection was shown of the turn.
	if v := c.view(ss.id); v != nil {
		v.flushed(c.ctx)
	}
	switch {
	case e.Closed:
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled, Meta: parleyMeta(parleyapi.PromptMeta{PromptID: p.ID, Closed: true})}, nil
	case e.Unqueued:
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled, Meta: parleyMeta(parleyapi.PromptMeta{PromptID: p.ID, Unqueued: true})}, nil
	case e.Ended.Err != nil:
		return nil, acp.Errorf(acp.CodeInternalError, "%v", e.Ended.Err)
	}
	stop := e.Ended.StopReason
	if e.Ended.Cancelled && stop == "" {
		stop = acp.StopReasonCancelled
	}
	return &acp.PromptResponse{StopReason: stop, Usage: e.Ended.Usage, Meta: parleyMeta(parleyapi.PromptMeta{PromptID: p.ID})}, nil
}

// checkPrompt refuses content the agent does not accept: it would refuse it itself,
// with less to say about why.
func checkPrompt(blocks []acp.ContentBlock, caps acp.PromptCapabilities) error {
	for _, b := range blocks {
		switch {
		case b.Image != nil && !caps.Image:
			return acp.ErrInvalidParams("this agent does not accept images")
		case b.Audio != nil && !caps.Audio:
			return acp.ErrInvalidParams("this agent does not accept audio")
		case b.Resource != nil && !caps.EmbeddedContext:
			return acp.ErrInvalidParams("this agent does not accept embedded files; mention them as links")
		}
	}
	return nil
}
