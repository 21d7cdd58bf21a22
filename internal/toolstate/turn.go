package toolstate

import (
	"slices"

	"github.com/parley-acp/parley/acp"
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	NoEvent             EventKind = iota // the zero Event: nothing changed
	TextDelta                            // Text: more of the agent's reply (Markdown)
	ThoughtDelta                         // Text: more of the agent's reasoning
	PlanChanged                          // Plan: the whole new plan
	ToolStarted                          // Tool: a new tool call
	ToolUpdated                          // Tool, Changed: something visible about a call changed
	PermissionRequested                  // Tool: a call now waits for the user's decision
	UsageChanged                         // Usage: context window use or cost changed
	Other                                // Update, UpdateKind: commands, modes, config, session info, user chunks, non-text chunks
	Unknown                              // Update, UpdateKind: an update kind this version does not know
	// PermissionDecided, Tool: a permission request about a call was decided, whether a
	// person answered it or not (Tool.Confirmation's Outcome and DecidedBy). Only the
	// JSON encoder shows it: the other views draw the call's own updates.
	PermissionDecided
)

var eventKindNames = [...]string{"none", "text", "thought", "plan", "tool_started", "tool_updated", "permission", "usage", "other", "unknown", "permission_decided"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "invalid"
}

// Change is a set of things about a tool call that a ToolUpdated event reports changed.
type Change uint16

const (
	ChangedState        Change = 1 << iota // State or IsError
	ChangedMessage                         // Title, ToolName, Kind, InvocationMessage, PastTenseMessage or ErrorMessage
	ChangedCommand                         // TerminalCommand
	ChangedContent                         // Content
	ChangedDiffs                           // Diffs
	ChangedTerminals                       // Terminals
	ChangedLocations                       // Locations
	ChangedConfirmation                    // Confirmation
	ChangedGrouping                        // ParentID, Depth or Presentation
)

// Event is one thing that changed in a turn, for a front-end to show.
//
// Tool points at the Turn's own state of the call: it is current until the next call to
// a Turn method, and only the Turn changes it. A front-end that keeps it, or hands it to
// another goroutine, takes a Clone. Plan and Usage are shared the same way.
type Event struct {
	Kind      EventKind
	Text      string        // TextDelta, ThoughtDelta
	MessageID acp.MessageID // TextDelta, ThoughtDelta: the agent's message id, if it sent one
	Tool      *ToolCall     // ToolStarted, ToolUpdated, PermissionRequested
	Changed   Change        // ToolUpdated
	Plan      []acp.PlanEntry
	Usage     *acp.UsageUpdate
	// Update is the update behind an Other or Unknown event, as received (an unknown
	// one's raw JSON is in Update.Unknown), and UpdateKind its sessionUpdate value.
	Update     acp.SessionUpdate
	UpdateKind string
}

// Turn applies the session updates of a prompt turn, in order, to the presentation state
// of its tool calls, and reports what changed as Events. It is not safe for concurrent
// use: the goroutine that receives a session's updates owns its Turn (and its
// renderer). A front-end makes a new Turn for each prompt.
type Turn struct {
	root     string
	calls    map[acp.ToolCallID]*ToolCall
	order    []*ToolCall
	folded   int // finished calls forgotten to stay within MaxCalls
	plan     []acp.PlanEntry
	usage    acp.UsageUpdate
	hasUsage bool
	events   []Event // reused by every call: what Apply and Cancel return
}

// TurnOptions configure a Turn. The zero value (or nil) is fine.
type TurnOptions struct {
	// Root is the session's working directory: paths inside it are shown relative to it.
	Root string
}

// NewTurn returns an empty Turn.
func NewTurn(opts *TurnOptions) *Turn {
	t := &Turn{calls: map[acp.ToolCallID]*ToolCall{}, events: make([]Event, 0, 4)}
	if opts != nil {
		t.root = opts.Root
	}
	return t
}

// Apply applies one session update and returns what changed: usually one event, none
// when nothing a user could see changed. The slice is reused by the next call.
//
// A text chunk costs no work that grows with the turn: the hot path of a long reply is
// a type switch and an append.
func (t *Turn) Apply(u acp.SessionUpdate) []Event {
	t.events = t.events[:0]
	switch {
	case u.AgentMessageChunk != nil:
		if text, ok := u.AgentMessageChunk.Content.AsText(); ok {
			if text != "" {
				t.events = append(t.events, Event{Kind: TextDelta, Text: text, MessageID: u.AgentMessageChunk.MessageID})
			}
			return t.events
		}
	case u.AgentThoughtChunk != nil:
		if text, ok := u.AgentThoughtChunk.Content.AsText(); ok {
			if text != "" {
				t.events = append(t.events, Event{Kind: ThoughtDelta, Text: text, MessageID: u.AgentThoughtChunk.MessageID})
			}
			return t.events
		}
	case u.ToolCall != nil:
		update := acp.ToolCallUpdate(*u.ToolCall) // the same members; absent ones are defaults
		t.applyTool(&update)
		return t.events
	case u.ToolCallUpdate != nil:
		t.applyTool(u.ToolCallUpdate)
		return t.events
	case u.Plan != nil:
		if !samePlan(t.plan, u.Plan.Entries) {
			t.plan = u.Plan.Entries
			t.events = append(t.events, Event{Kind: PlanChanged, Plan: t.plan})
		}
		return t.events
	case u.UsageUpdate != nil:
		if !t.hasUsage || !sameUsage(&t.usage, u.UsageUpdate) {
			t.usage, t.hasUsage = *u.UsageUpdate, true
			t.events = append(t.events, Event{Kind: UsageChanged, Usage: &t.usage})
		}
		return t.events
	case u.Unknown != nil:
		t.events = append(t.events, Event{Kind: Unknown, Update: u, UpdateKind: u.Kind()})
		return t.events
	case u.IsZero():
		return t.events
	}
	// Commands, modes, config options, session info, user message chunks, and message
	// or thought chunks that are not text.
	t.events = append(t.events, Event{Kind: Other, Update: u, UpdateKind: u.Kind()})
	return t.events
}

// applyTool applies a tool_call or tool_call_update. An update for a call not seen yet
// creates it (agents do skip the tool_call).
func (t *Turn) applyTool(u *acp.ToolCallUpdate) {
	tc, isNew := t.call(u.ToolCallID)
	before := snapshotOf(tc)
	tc.apply(u)
	tc.applyStatus(u.Status)
	tc.derive(t.root, t.Call)
	t.report(tc, isNew, before)
}

// MaxCalls is the most tool calls a Turn remembers: an agent can start calls without end,
// and each costs memory. Beyond it the oldest finished calls are folded (forgotten, and
// counted by Folded); an update that names one later starts it afresh.
const MaxCalls = 1000

func (t *Turn) call(id acp.ToolCallID) (tc *ToolCall, isNew bool) {
	if tc = t.calls[id]; tc != nil {
		return tc, false
	}
	if len(t.order) >= MaxCalls {
		t.fold()
	}
	tc = &ToolCall{ID: id}
	t.calls[id] = tc
	t.order = append(t.order, tc)
	return tc, true
}

// fold forgets the oldest finished calls, a quarter of MaxCalls at a time (so that folding
// costs little per call), or as many as are finished.
func (t *Turn) fold() {
	want := MaxCalls / 4
	kept := t.order[:0]
	for _, tc := range t.order {
		if want > 0 && tc.State.Done() {
			delete(t.calls, tc.ID)
			t.folded++
			want--
			continue
		}
		kept = append(kept, tc)
	}
	clear(t.order[len(kept):])
	t.order = kept
}

// Folded is how many finished calls the turn has forgotten (see MaxCalls).
func (t *Turn) Folded() int { return t.folded }

func (t *Turn) report(tc *ToolCall, isNew bool, before snapshot) {
	if isNew {
		t.events = append(t.events, Event{Kind: ToolStarted, Tool: tc})
		return
	}
	if changed := before.diff(snapshotOf(tc)); changed != 0 {
		t.events = append(t.events, Event{Kind: ToolUpdated, Tool: tc, Changed: changed})
	}
}

// AwaitConfirmation records a permission request: its tool call (created if not seen
// yet) waits for the user, with the request's title and options. The returned event is
// PermissionRequested; a front-end shows it before it asks.
func (t *Turn) AwaitConfirmation(req *acp.RequestPermissionRequest) Event {
	tc, _ := t.call(req.ToolCall.ToolCallID)
	fields := req.ToolCall
	fields.Status = "" // the request's copy of the status is not news
	tc.apply(&fields)
	if tc.State != Cancelled {
		tc.State = WaitingForConfirmation
	}
	tc.derive(t.root, t.Call)
	tc.Confirmation = newConfirmation(req, tc)
	return Event{Kind: PermissionRequested, Tool: tc}
}

// newConfirmation is the pending Confirmation of req about tc (its fields applied).
func newConfirmation(req *acp.RequestPermissionRequest, tc *ToolCall) *Confirmation {
	title := req.ToolCall.Title
	if title == "" {
		title = tc.InvocationMessage
	}
	message := tc.InvocationMessage
	if tc.TerminalCommand != "" {
		message = tc.TerminalCommand
	}
	if message == title {
		message = ""
	}
	return &Confirmation{Title: title, Message: message, Options: req.Options}
}

// ResolveConfirmation records the answer to a call's permission request: allowed, the
// call goes on executing; rejected or cancelled, it is Cancelled. It returns the
// ToolUpdated event, or the zero Event if the call has no pending request.
func (t *Turn) ResolveConfirmation(id acp.ToolCallID, outcome acp.RequestPermissionOutcome) Event {
	tc := t.calls[id]
	if tc == nil || tc.Confirmation == nil || tc.Confirmation.Outcome != "" {
		return Event{}
	}
	before := snapshotOf(tc)
	conf := *tc.Confirmation
	conf.Outcome = outcomeKind(conf.Options, outcome)
	tc.Confirmation = &conf
	switch {
	case conf.Allowed():
		if tc.State == WaitingForConfirmation {
			tc.State = Executing
		}
	case !tc.State.Done():
		tc.State = Cancelled
	}
	tc.derive(t.root, t.Call)
	return Event{Kind: ToolUpdated, Tool: tc, Changed: before.diff(snapshotOf(tc))}
}

// Cancel marks every unfinished call Cancelled, as a client does when it cancels the
// turn (ACP v1 has no cancelled status on the wire), and a pending permission request
// answered "cancelled". It returns one ToolUpdated event per call it changed; the slice
// is reused by the next call.
func (t *Turn) Cancel() []Event {
	t.events = t.events[:0]
	for _, tc := range t.order {
		if tc.State.Done() {
			continue
		}
		before := snapshotOf(tc)
		if tc.Confirmation != nil && tc.Confirmation.Outcome == "" {
			conf := *tc.Confirmation
			conf.Outcome = "cancelled"
			tc.Confirmation = &conf
		}
		tc.State = Cancelled
		t.events = append(t.events, Event{Kind: ToolUpdated, Tool: tc, Changed: before.diff(snapshotOf(tc))})
	}
	return t.events
}

// Call returns the call with the id, or nil.
func (t *Turn) Call(id acp.ToolCallID) *ToolCall { return t.calls[id] }

// Calls returns the turn's calls in the order they started.
func (t *Turn) Calls() []*ToolCall { return slices.Clone(t.order) }

// Plan returns the latest plan.
func (t *Turn) Plan() []acp.PlanEntry { return t.plan }

// Usage returns the latest usage report, and whether there was one.
func (t *Turn) Usage() (acp.UsageUpdate, bool) { return t.usage, t.hasUsage }

func samePlan(a, b []acp.PlanEntry) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i].Content != b[i].Content || a[i].Status != b[i].Status || a[i].Priority != b[i].Priority {
			return false
		}
	}
	return true
}

func sameUsage(a, b *acp.UsageUpdate) bool {
	if a.Used != b.Used || a.Size != b.Size || (a.Cost == nil) != (b.Cost == nil) {
		return false
	}
	return a.Cost == nil || (a.Cost.Amount == b.Cost.Amount && a.Cost.Currency == b.Cost.Currency)
}

// snapshot is what a user can see of a call, to tell whether an update changed any of it.
type snapshot struct {
	state                                                 State
	isError                                               bool
	title, toolName, kind, invocation, past, errorMessage string
	command, content                                      string
	diffs                                                 []Diff
	terminals                                             []acp.TerminalID
	locations                                             []acp.ToolCallLocation
	confirmation                                          *Confirmation
	parent                                                acp.ToolCallID
	depth                                                 int
	presentation                                          Presentation
}

func snapshotOf(tc *ToolCall) snapshot {
	return snapshot{
		state: tc.State, isError: tc.IsError,
		title: tc.Title, toolName: tc.ToolName, kind: string(tc.RawKind),
		invocation: tc.InvocationMessage, past: tc.PastTenseMessage, errorMessage: tc.ErrorMessage,
		command: tc.TerminalCommand, content: tc.Content,
		diffs: tc.Diffs, terminals: tc.Terminals, locations: tc.Locations,
		confirmation: tc.Confirmation,
		parent:       tc.ParentID, depth: tc.Depth, presentation: tc.Presentation,
	}
}

func (s snapshot) diff(n snapshot) Change {
	var c Change
	if s.state != n.state || s.isError != n.isError {
		c |= ChangedState
	}
	if s.title != n.title || s.toolName != n.toolName || s.kind != n.kind || s.invocation != n.invocation ||
		s.past != n.past || s.errorMessage != n.errorMessage {
		c |= ChangedMessage
	}
	if s.command != n.command {
		c |= ChangedCommand
	}
	if s.content != n.content {
		c |= ChangedContent
	}
	if !slices.EqualFunc(s.diffs, n.diffs, func(a, b Diff) bool { return a == b }) {
		c |= ChangedDiffs
	}
	if !slices.Equal(s.terminals, n.terminals) {
		c |= ChangedTerminals
	}
	if !slices.EqualFunc(s.locations, n.locations, func(a, b acp.ToolCallLocation) bool {
		return a.Path == b.Path && a.Line == b.Line
	}) {
		c |= ChangedLocations
	}
	if s.confirmation != n.confirmation {
		c |= ChangedConfirmation
	}
	if s.parent != n.parent || s.depth != n.depth || s.presentation != n.presentation {
		c |= ChangedGrouping
	}
	return c
}
