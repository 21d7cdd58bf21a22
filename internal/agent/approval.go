package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/store"
)

// AutoApprove says what runs without asking the user. Critical commands always ask.
// The zero value approves nothing: every command asks, harmless ones too.
type AutoApprove struct {
	Harmless       bool // commands of no risk (reads, builds that run none of the project's code)
	Commands       bool // commands of medium and high risk (and harmless ones)
	Edits          bool // edits of files that are not sensitive
	SensitiveEdits bool // edits of sensitive files (.env, keys, lockfiles, CI workflows...)
	MCP            bool // tools of the session's MCP servers
}

// DefaultAutoApprove is what parley agent approves by default: harmless commands and
// edits of files that are not sensitive.
func DefaultAutoApprove() AutoApprove { return AutoApprove{Harmless: true, Edits: true} }

// Yolo approves everything but critical commands.
func Yolo() AutoApprove {
	return AutoApprove{Harmless: true, Commands: true, Edits: true, SensitiveEdits: true, MCP: true}
}

// storeAgent is the agent column of the decisions parley's agent remembers in the
// shared permission_rules table, where `parley permissions` lists and resets them.
const storeAgent = "parley-agent"

// The options of a question, by id. There are two "always" of each kind: for the
// session, and for the workspace (remembered in the database). A client that chooses
// by kind takes the first, the narrower one.
const (
	optAllowOnce       = "allow_once"
	optAllowSession    = "allow_session"
	optAllowWorkspace  = "allow_workspace"
	optRejectOnce      = "reject_once"
	optRejectSession   = "reject_session"
	optRejectWorkspace = "reject_workspace"
)

// approver decides, for one session, which tool calls need the user's word, asks through
// session/request_permission, and remembers "always" answers: for the session in memory,
// for the workspace in the database when the user chose that.
type approver struct {
	ask     func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error)
	session acp.SessionID
	auto    AutoApprove
	store   *store.Store // nil: nothing is remembered beyond the session
	// storeErr says why the database could not be opened: a rejection remembered for
	// the workspace may then go unseen, so nothing is approved without a question.
	storeErr  error
	workspace string // the first root: the key of what is remembered
	logger    *slog.Logger

	mu     sync.Mutex
	grants map[string]store.Decision // the session's "always" answers, by key
}

// question is one decision to make.
type question struct {
	call     pendingCall
	title    string
	key      string                // what an "always" answer remembers ("execute:…", "edit:…", "mcp:…")
	covers   string                // the same in words, for the options' names
	what     string                // "command", "edit", "tool call": for the model's message
	critical bool                  // always asks; no "always allow"
	noAlways bool                  // no "always allow": it runs code from files the agent can change
	auto     bool                  // the auto-approve settings cover it
	content  []acp.ToolCallContent // what the user sees: the diff, the command and its risk
	rawInput any
}

// errTurnCancelled is what decide returns when the client answered "cancelled": the
// turn is over.
var errTurnCancelled = errors.New("the turn was cancelled while the user was asked")

// decide returns nil when the call may go ahead, a *tools.Refusal (with guidance for the
// model) when it must not, and errTurnCancelled when the user cancelled the turn.
func (a *approver) decide(ctx context.Context, q question) error {
	d, where, known := a.remembered(ctx, q.key)
	switch {
	case d == store.Reject:
		return &tools.Refusal{Message: fmt.Sprintf("The user has refused this %s %s. Do not try it again, in this or another form; find another way, or ask the user how to go on.", q.what, where)}
	case q.critical:
		// Critical always asks: no setting or remembered answer covers it.
	case d == store.Allow && !q.noAlways:
		return nil
	case q.auto && known:
		// The settings approve it, and no rejection the user asked to remember can
		// be hiding in a database that cannot be read.
		return nil
	}
	return a.askUser(ctx, q)
}

// remembered returns the "always" answer for key: the session's first, then the
// workspace's. where says which, for the model. known is false when the workspace's
// answers cannot be read (the database failed or could not be opened): then a
// rejection may be among them.
func (a *approver) remembered(ctx context.Context, key string) (d store.Decision, where string, known bool) {
	a.mu.Lock()
	d, ok := a.grants[key]
	a.mu.Unlock()
	if ok {
		return d, "for this session", true
	}
	if a.storeErr != nil {
		return "", "", false
	}
	if a.store == nil {
		return "", "", true
	}
	r, ok, err := a.store.Lookup(ctx, storeAgent, a.workspace, key)
	if err != nil {
		a.logger.Warn("remembered answers cannot be read; asking", "key", key, "error", err)
		return "", "", false
	}
	if !ok {
		return "", "", true
	}
	return r.Decision, "in this workspace", true
}

func (a *approver) askUser(ctx context.Context, q question) error {
	req := &acp.RequestPermissionRequest{
		SessionID: a.session,
		ToolCall: acp.ToolCallUpdate{
			ToolCallID: q.call.ID, Title: q.title, Kind: q.call.Kind,
			Status: acp.ToolCallStatusPending, Content: q.content, RawInput: rawJSON(q.rawInput),
		},
		Options: a.options(q),
	}
	resp, err := a.ask(ctx, req)
	if ctx.Err() != nil {
		return errTurnCancelled
	}
	if err != nil {
		return &tools.Refusal{Message: fmt.Sprintf("The %s needs the user's approval, and asking failed (%v), so it did not happen. Find another way, or ask the user.", q.what, err)}
	}
	switch {
	case resp.Outcome.Cancelled != nil:
		return errTurnCancelled
	case resp.Outcome.Selected == nil:
		return &tools.Refusal{Message: fmt.Sprintf("The user did not approve this %s.", q.what)}
	}
	id := string(resp.Outcome.Selected.OptionID)
	if !offered(req.Options, id) {
		return &tools.Refusal{Message: fmt.Sprintf("The user did not approve this %s (the client answered with an option that was not offered).", q.what)}
	}
	a.rememberAnswer(ctx, q, id)
	switch id {
	case optAllowOnce, optAllowSession, optAllowWorkspace:
		return nil
	}
	return &tools.Refusal{Message: fmt.Sprintf("The user rejected this %s, so it did not happen. Do not retry it in another form; take another way to the goal, or ask the user how to go on.", q.what)}
}

// options are the four kinds, with a session and a workspace scope for each "always".
// A critical command offers no "always allow": each one is asked.
func (a *approver) options(q question) []acp.PermissionOption {
	covers := q.covers
	if covers == "" {
		covers = "this"
	}
	opts := []acp.PermissionOption{{OptionID: optAllowOnce, Name: "Allow once", Kind: acp.PermissionOptionKindAllowOnce}}
	if !q.critical && !q.noAlways {
		opts = append(opts, acp.PermissionOption{OptionID: optAllowSession, Name: "Allow " + covers + " for this session", Kind: acp.PermissionOptionKindAllowAlways})
		if a.store != nil {
			opts = append(opts, acp.PermissionOption{OptionID: optAllowWorkspace, Name: "Always allow " + covers + " in this workspace", Kind: acp.PermissionOptionKindAllowAlways})
		}
	}
	opts = append(opts,
		acp.PermissionOption{OptionID: optRejectOnce, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		acp.PermissionOption{OptionID: optRejectSession, Name: "Reject " + covers + " for this session", Kind: acp.PermissionOptionKindRejectAlways})
	if a.store != nil {
		opts = append(opts, acp.PermissionOption{OptionID: optRejectWorkspace, Name: "Always reject " + covers + " in this workspace", Kind: acp.PermissionOptionKindRejectAlways})
	}
	return opts
}

func offered(opts []acp.PermissionOption, id string) bool {
	for _, o := range opts {
		if string(o.OptionID) == id {
			return true
		}
	}
	return false
}

// rememberAnswer keeps an "always" answer. A failure to save it in the database only
// loses the memory: the session still remembers.
func (a *approver) rememberAnswer(ctx context.Context, q question, id string) {
	var d store.Decision
	switch id {
	case optAllowSession, optAllowWorkspace:
		d = store.Allow
	case optRejectSession, optRejectWorkspace:
		d = store.Reject
	default:
		return
	}
	if d == store.Allow && (q.critical || q.noAlways) {
		return // never offered; never remembered
	}
	a.mu.Lock()
	if a.grants == nil {
		a.grants = map[string]store.Decision{}
	}
	a.grants[q.key] = d
	a.mu.Unlock()
	if (id == optAllowWorkspace || id == optRejectWorkspace) && a.store != nil {
		if err := a.store.Remember(context.WithoutCancel(ctx), store.Rule{Agent: storeAgent, Workspace: a.workspace, ToolKey: q.key, Description: q.covers, Decision: d}); err != nil {
			a.logger.Warn("an answer for the workspace is kept for the session only", "key", q.key, "error", err)
		}
	}
}

// commandContent is what a command's question shows: the command and why it asks.
func commandContent(line string, v verdict) []acp.ToolCallContent {
	var b strings.Builder
	fmt.Fprintf(&b, "```sh\n%s\n```\n", line)
	if v.reason != "" {
		fmt.Fprintf(&b, "%s\n", permission.RiskText(v.tier, v.reason))
	}
	if v.noAlways != "" {
		fmt.Fprintf(&b, "No \"always allow\": it runs %s, which can change before it runs again.", v.noAlways)
	}
	return []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(strings.TrimSpace(b.String())))}
}
