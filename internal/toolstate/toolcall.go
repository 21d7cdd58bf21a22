package toolstate

import (
	"slices"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// State is where a tool call is in its life, as a user sees it (the states of VS Code's
// ChatToolInvocationPart). A failed call is Completed with IsError set.
type State uint8

const (
	Streaming              State = iota // "pending" on the wire: input still streaming, not started
	WaitingForConfirmation              // a permission request for it waits for an answer
	Executing                           // "in_progress" on the wire, or approved
	Completed                           // "completed" or "failed" on the wire
	Cancelled                           // the turn was cancelled or the request rejected; set locally
)

var stateNames = [...]string{"streaming", "waiting_for_confirmation", "executing", "completed", "cancelled"}

// String returns the state's name as the JSON events spell it.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// Done reports whether the call has finished, one way or another.
func (s State) Done() bool { return s == Completed || s == Cancelled }

// Presentation says whether a front-end shows a tool call at all.
type Presentation string

const (
	Visible             Presentation = ""
	Hidden              Presentation = "hidden"              // never shown
	HiddenAfterComplete Presentation = "hiddenAfterComplete" // shown while it runs, gone once done
)

// ToolCall is the presentation state of one tool call, derived from the ACP updates about
// it. Front-ends read it; only a Turn changes it.
type ToolCall struct {
	ID acp.ToolCallID
	// ToolName is the agent's internal tool name (the "name" member, or
	// _meta.claudeCode.toolName), or else the kind.
	ToolName string
	// Kind is the tool kind for icons and verbs: a known kind, or "other" for an absent or
	// unknown one. RawKind is the kind as sent ("" when absent).
	Kind    acp.ToolKind
	RawKind acp.ToolKind
	// RawStatus is the last status the agent sent, verbatim; State is what it means.
	RawStatus acp.ToolCallStatus
	Title     string // the agent's title, verbatim
	State     State
	IsError   bool // with Completed: the call failed

	InvocationMessage string // present tense, for a running call: "Reading `main.go`"
	PastTenseMessage  string // for a finished call: "Read `main.go`", "Edited `a.go` (+3 −1)"
	ErrorMessage      string // why a failed call failed, from its content or raw output

	Confirmation *Confirmation // the permission request about this call, if there was one

	TerminalCommand string           // the command an execute tool runs, if known
	Terminals       []acp.TerminalID // terminals attached to the call
	Diffs           []Diff           // file edits
	Locations       []acp.ToolCallLocation
	Content         string // the text of the call's content blocks, joined by newlines

	// ParentID is the tool call this one runs under (a sub-agent's task), from _meta; see
	// the package documentation for the keys read. Depth is how many visible ancestors
	// it has: the indentation a front-end gives it.
	ParentID     acp.ToolCallID
	Depth        int
	Presentation Presentation

	RawInput  json.RawMessage
	RawOutput json.RawMessage
	Meta      acp.Meta // the _meta members received, later updates overriding earlier ones

	name string // the wire "name"
}

// Visible reports whether a front-end shows the call in its current state.
func (tc *ToolCall) Visible() bool {
	switch tc.Presentation {
	case Hidden:
		return false
	case HiddenAfterComplete:
		return !tc.State.Done()
	}
	return true
}

// Clone returns a copy that later updates to tc do not change, for handing to another
// goroutine. Raw JSON and the strings are shared: they are never modified in place.
func (tc *ToolCall) Clone() *ToolCall {
	c := *tc
	c.Terminals = slices.Clone(tc.Terminals)
	c.Diffs = slices.Clone(tc.Diffs)
	c.Locations = slices.Clone(tc.Locations)
	if tc.Confirmation != nil {
		conf := *tc.Confirmation
		c.Confirmation = &conf
	}
	return &c
}

// Confirmation is a pending or answered permission request about a tool call.
type Confirmation struct {
	Title   string // what is asked: the request's tool call title
	Message string // more about it: the command, or the invocation message
	Options []acp.PermissionOption
	// Outcome is "" while the request waits, then the kind of the option chosen
	// ("allow_once", "reject_once", ...), "cancelled", or "unknown" for an option id
	// that was not offered.
	Outcome string
	// DecidedBy says who decided, once decided: a permission.Decider's word ("user",
	// "rule", "always", "yolo", "no_one_to_ask", "parley", "client", "cancelled"); ""
	// when the front-end did not say.
	DecidedBy string
}

// Allowed reports whether the request was answered with an allow option.
func (c *Confirmation) Allowed() bool {
	return c.Outcome == string(acp.PermissionOptionKindAllowOnce) ||
		c.Outcome == string(acp.PermissionOptionKindAllowAlways)
}

// Diff is one file edit of a tool call, with its size in lines.
type Diff struct {
	Path    string // absolute, as the agent sent it
	OldText string
	NewText string
	IsNew   bool // no old text: the file is created
	Added   int  // lines added
	Removed int  // lines removed
}

var knownKinds = map[acp.ToolKind]bool{
	acp.ToolKindRead: true, acp.ToolKindEdit: true, acp.ToolKindDelete: true,
	acp.ToolKindMove: true, acp.ToolKindSearch: true, acp.ToolKindExecute: true,
	acp.ToolKindThink: true, acp.ToolKindFetch: true, acp.ToolKindSwitchMode: true,
	acp.ToolKindOther: true,
}

// apply merges the fields an update carries into the call: a zero field leaves the old
// value, non-nil Content and Locations replace the old lists. The wire status is not
// applied here (see applyStatus): a permission request's status says nothing about
// what the user sees.
func (tc *ToolCall) apply(u *acp.ToolCallUpdate) {
	if u.Title != "" {
		tc.Title = u.Title
	}
	if u.Name != "" {
		tc.name = u.Name
	}
	if u.Kind != "" {
		tc.RawKind = u.Kind
	}
	if u.Content != nil {
		tc.setContent(u.Content)
	}
	if u.Locations != nil {
		tc.Locations = u.Locations
	}
	if u.RawInput != nil {
		tc.RawInput = u.RawInput
	}
	if u.RawOutput != nil {
		tc.RawOutput = u.RawOutput
	}
	if len(u.Meta) > 0 {
		tc.mergeMeta(u.Meta)
	}
}

// applyStatus maps a wire status to a state. A call cancelled locally stays cancelled:
// the agent may still report it failed, but the user was already told. An unknown status
// leaves the state alone.
func (tc *ToolCall) applyStatus(s acp.ToolCallStatus) {
	if s == "" {
		return
	}
	tc.RawStatus = s
	if tc.State == Cancelled {
		return
	}
	switch s {
	case acp.ToolCallStatusPending:
		if tc.State != WaitingForConfirmation {
			tc.State = Streaming
		}
	case acp.ToolCallStatusInProgress:
		tc.State, tc.IsError = Executing, false
	case acp.ToolCallStatusCompleted:
		tc.State, tc.IsError = Completed, false
	case acp.ToolCallStatusFailed:
		tc.State, tc.IsError = Completed, true
	}
}

func (tc *ToolCall) mergeMeta(m acp.Meta) {
	if tc.Meta == nil {
		tc.Meta = m // never written to: a merge makes a new map
		return
	}
	merged := make(acp.Meta, len(tc.Meta)+len(m))
	for k, v := range tc.Meta {
		merged[k] = v
	}
	for k, v := range m {
		merged[k] = v
	}
	tc.Meta = merged
}

func (tc *ToolCall) setContent(content []acp.ToolCallContent) {
	tc.Terminals = tc.Terminals[:0:0]
	tc.Diffs = tc.Diffs[:0:0]
	var text strings.Builder
	for _, c := range content {
		switch {
		case c.Content != nil:
			if s, ok := c.Content.Content.AsText(); ok && s != "" {
				if text.Len() > 0 {
					text.WriteByte('\n')
				}
				text.WriteString(s)
			}
		case c.Terminal != nil:
			tc.Terminals = append(tc.Terminals, c.Terminal.TerminalID)
		case c.Diff != nil:
			tc.Diffs = append(tc.Diffs, newDiff(c.Diff))
		}
	}
	tc.Content = text.String()
}

func newDiff(d *acp.Diff) Diff {
	out := Diff{Path: d.Path, NewText: d.NewText, IsNew: d.OldText == nil}
	if d.OldText != nil {
		out.OldText = *d.OldText
	}
	out.Added, out.Removed = countChanges(out.OldText, out.NewText)
	return out
}

// derive recomputes everything that follows from the raw fields: names, messages, the
// command, the error, grouping. root shortens paths.
func (tc *ToolCall) derive(root string, parentOf func(acp.ToolCallID) *ToolCall) {
	tc.Kind = acp.ToolKindOther
	if knownKinds[tc.RawKind] {
		tc.Kind = tc.RawKind
	}
	tc.ToolName = tc.name
	if tc.ToolName == "" {
		tc.ToolName = metaString(tc.Meta, "claudeCode", "toolName")
	}
	if tc.ToolName == "" {
		tc.ToolName = string(tc.Kind)
	}
	tc.TerminalCommand = terminalCommand(tc)
	tc.ErrorMessage = ""
	if tc.IsError {
		tc.ErrorMessage = errorMessage(tc)
	}
	tc.ParentID = parentID(tc.Meta)
	if tc.ParentID == tc.ID {
		tc.ParentID = ""
	}
	tc.Presentation = presentation(tc.Meta)
	tc.Depth = 0
	if tc.ParentID != "" {
		tc.Depth = 1
		if p := parentOf(tc.ParentID); p != nil {
			tc.Depth = min(p.Depth+1, MaxDepth)
			if p.Presentation == Hidden {
				tc.Depth = p.Depth
			}
		}
	}
	tc.InvocationMessage, tc.PastTenseMessage = messages(tc, root)
}

// MaxDepth is the deepest a call is nested under its parents (ToolCall.Depth).
const MaxDepth = 4

// terminalCommand finds the command of an execute tool (or any tool showing a terminal):
// rawInput's command or cmd (a string, or an argv whose "sh -c" script is taken), else
// the title of a call that shows a terminal.
func terminalCommand(tc *ToolCall) string {
	if tc.Kind != acp.ToolKindExecute && len(tc.Terminals) == 0 {
		return ""
	}
	for _, key := range []string{"command", "cmd"} {
		if cmd := commandMember(json.Member(tc.RawInput, key)); cmd != "" {
			return cmd
		}
	}
	if len(tc.Terminals) > 0 {
		return strings.Trim(strings.TrimSpace(tc.Title), "`")
	}
	return ""
}

func commandMember(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var argv []string
	if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	// ["bash", "-lc", "go test ./..."] runs a script: the script is the command.
	if n := len(argv); n == 3 && strings.HasPrefix(argv[1], "-") && strings.HasSuffix(argv[1], "c") {
		switch shell := argv[0][strings.LastIndexByte(argv[0], '/')+1:]; shell {
		case "sh", "bash", "zsh", "dash", "fish", "pwsh", "powershell":
			return strings.TrimSpace(argv[2])
		}
	}
	return strings.Join(argv, " ")
}

// errorMessage says why a failed call failed: its text content, else rawOutput as a
// string or its error, message or stderr member.
func errorMessage(tc *ToolCall) string {
	if s := strings.TrimSpace(tc.Content); s != "" {
		return s
	}
	var s string
	if json.Unmarshal(tc.RawOutput, &s) == nil {
		return strings.TrimSpace(s)
	}
	for _, key := range []string{"error", "message", "stderr"} {
		if json.Unmarshal(json.Member(tc.RawOutput, key), &s) == nil && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// WithDiffs is a copy of the call with its edits replaced and its messages derived again
// from them (root shortens paths, as the Turn's Root does): for a front-end that knows
// better than the agent what a file held (a file the agent calls new that exists).
func (tc *ToolCall) WithDiffs(diffs []Diff, root string) *ToolCall {
	c := tc.Clone()
	c.Diffs = slices.Clone(diffs)
	c.InvocationMessage, c.PastTenseMessage = messages(c, root)
	return c
}
