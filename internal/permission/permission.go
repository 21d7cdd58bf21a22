// Package permission is parley's one permission policy: how every front-end (parley
// run, parley chat, the VS Code bridge) answers an agent's session/request_permission,
// and whether a terminal/create the agent sends may run.
//
// The rules it keeps, from ACP's permission requests and what clients got wrong with them:
//
//   - Options are chosen by kind, never by position, and only among those offered; an
//     option of an unknown kind is never chosen. Options that share an id cannot be
//     told apart: such a request is refused without asking.
//   - Nothing is allowed without a decision: the user's answer, a rule the user
//     configured, an "always" the user gave earlier, or --yolo.
//   - A critical command (internal/safety) is always asked about: no configured allow,
//     remembered "always" or --yolo covers it.
//   - A refusal, by the user or by policy (including "nobody to ask"), selects a reject
//     option. The cancelled outcome means "the turn was cancelled"; it is sent when the
//     turn was, or when the agent offered no reject option and a refusal has no other form.
//   - An allow is never widened: "allow once" is not sent as allow_always; "always"
//     covers the command's shape (the same command up to harmless differences), never
//     the program.
package permission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/toolstate"
)

// Answer is what the user chose when asked.
type Answer int

const (
	AllowOnce Answer = iota + 1
	AllowAlways
	RejectOnce
	RejectAlways
	// Cancelled means the question was dismissed. While the turn goes on it is a
	// refusal; the cancelled outcome is only sent when the turn itself was cancelled
	// (Decide's context is done).
	Cancelled
	// AllowWhileConfined allows this once, and the same command (its shape) without
	// asking again for the rest of the session, because the session is Confined. It is
	// offered only for a command that runs project code (go test, npm test, make), which
	// an "allow always" never covers: the code may change before the next run, but
	// confined it can only reach what the sandbox lets it. Never remembered.
	AllowWhileConfined
)

func (a Answer) String() string {
	switch a {
	case AllowOnce:
		return "Allow once"
	case AllowAlways:
		return "Allow always"
	case RejectOnce:
		return "Reject once"
	case RejectAlways:
		return "Reject always"
	case Cancelled:
		return "Cancelled"
	case AllowWhileConfined:
		return "Allow while confined"
	}
	return fmt.Sprintf("Answer(%d)", int(a))
}

// Answers returns the answers worth offering for these options: AllowOnce only when the
// agent offers allow_once (it is never sent as allow_always), AllowAlways when it offers
// any allow (parley remembers it either way), and both rejections always (a refusal
// has a form whatever is offered).
func Answers(options []acp.PermissionOption) []Answer {
	var out []Answer
	if _, ok := ChooseOption(options, acp.PermissionOptionKindAllowOnce); ok {
		out = append(out, AllowOnce)
	}
	if _, ok := firstOf(options, acp.PermissionOptionKindAllowAlways, acp.PermissionOptionKindAllowOnce); ok {
		out = append(out, AllowAlways)
	}
	return append(out, RejectOnce, RejectAlways)
}

// Question is what the user is asked: the request, what parley made of it, and the
// answers that may be given.
type Question struct {
	Request *acp.RequestPermissionRequest
	Subject Subject
	Answers []Answer
	// Diffs are the edits the request is about, for a view to show before it asks: the
	// diffs the tool call carries, or computed from the content it proposes. Whoever asks
	// fills them in (the conversation core); none for a call that edits nothing.
	Diffs []toolstate.Diff
}

// Action is what a rule the user configured does with a matching tool call.
type Action string

const (
	ActionAsk    Action = "ask"    // always ask, whatever was remembered and even with --yolo
	ActionAllow  Action = "allow"  // allow without asking (never a critical command)
	ActionReject Action = "reject" // refuse without asking
)

// Rule is a rule the user configured. Tool is a pattern where * matches any run of
// characters and ? one character, over "kind:what": for commands "execute:" and each
// command that runs, as parsed (see Policy.configured); for other calls the ToolKey
// ("edit:Write", "read:*", "*").
type Rule struct {
	Tool   string `json:"tool"`
	Action Action `json:"action"`
}

// Policy decides permission requests for one agent in one workspace. Decide and
// DecideTerminal may be called from several goroutines at once, as long as nobody
// changes the exported fields meanwhile. A Policy must not be copied after first use.
type Policy struct {
	// Store keeps "always" answers per agent, workspace and key. Nil, or an empty Agent
	// or Workspace, means nothing is remembered or looked up.
	Store *store.Store
	// StoreErr says why the store that keeps the "always" answers could not be opened
	// (another process holds it locked, it is unreadable…). A remembered rejection may
	// then go unseen, so nothing is allowed without a question on --yolo's word: what
	// would be allowed is asked about, or refused with nobody to ask.
	StoreErr  error
	Agent     string
	Workspace string // the first root: where decisions are remembered
	// Roots are the workspace roots and Home the user's home directory, against which
	// commands are judged (Roots defaults to Workspace).
	Roots []string
	Home  string
	// Yolo allows, without asking, what no rule or remembered decision refuses, except
	// critical commands.
	Yolo bool
	// Confined says the agent and the commands it runs (itself and in parley's
	// terminals) are confined for the whole session: then a command that runs project
	// code may be allowed while confined (AllowWhileConfined).
	Confined bool
	// Rules are the user's configured rules; when several match, the last one wins.
	Rules []Rule
	// Ask asks the user. Nil means there is nobody to ask: requests that get this far are
	// refused (fail closed). Ask must return when ctx is done.
	Ask func(ctx context.Context, q *Question) (Answer, error)

	mu sync.Mutex
	// approved holds, per session, what the commands just allowed through
	// session/request_permission run (safety.Analysis.Runs), so that their
	// terminal/create is not asked about a second time. Each is used once.
	approved map[acp.SessionID][]string
	// whileConfined holds, per session, the keys allowed while confined.
	whileConfined map[acp.SessionID]map[string]bool
}

// Clone returns a copy of p's configuration (its slices copied too, the Store shared)
// with none of the approvals p holds: what a conversation keeps so that its caller can
// change or reuse the policy it gave without changing a running session.
func (p *Policy) Clone() *Policy {
	if p == nil {
		return nil
	}
	return &Policy{
		Store: p.Store, StoreErr: p.StoreErr, Agent: p.Agent, Workspace: p.Workspace,
		Roots: slices.Clone(p.Roots), Home: p.Home, Yolo: p.Yolo, Confined: p.Confined, Rules: slices.Clone(p.Rules), Ask: p.Ask,
	}
}

// Decide answers req. It goes through, in order:
//
//  0. options that share an id: refused, nothing asked (an answer could not say which);
//  1. the configured rules (see configured): reject refuses; ask goes straight to Ask
//     (a remembered "always" and --yolo do not count); allow selects allow_once, else
//     allow_always, unless the command is critical;
//  2. a remembered "always" for the call's key: reject selects reject_always, else
//     reject_once; allow (never for a critical command, nor for one that runs code
//     from files the agent can change) selects allow_always, else allow_once (the user
//     did say "always");
//  3. a critical command is asked about; one allowed while confined earlier in the
//     session (AllowWhileConfined) is allowed, while the session is Confined;
//  4. --yolo: allow_once, else allow_always; but not when the remembered decisions
//     cannot be read (StoreErr, or the lookup failed): one of them may be a rejection;
//  5. Ask, whose "always" answers are remembered; without Ask, a refusal.
//
// An allow the offered options cannot express (no allow option) passes to the next step.
// A refusal selects reject_once first (reject_always for a lasting one), the other
// reject kind if that is all there is, and only with no reject option at all cancelled.
// If ctx is done before or while asking (the turn was cancelled), the outcome is
// cancelled, as ACP requires.
//
// The response is never nil and is always safe to send. A non-nil error reports a
// problem the user should hear about (the store failed, asking failed, the answer could
// not be expressed with the offered options, the options were ambiguous); the response
// already fails closed for it.
func (p *Policy) Decide(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	resp, _, err := p.DecideBy(ctx, req)
	return resp, err
}

// DecideBy is Decide, and says who decided.
func (p *Policy) DecideBy(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, Decider, error) {
	if ctx.Err() != nil { // the turn was cancelled before the request was seen
		return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, DecidedByCancel, nil
	}
	if id, dup := duplicateID(req.Options); dup {
		err := fmt.Errorf("refused %q: the agent offered two options with the same id %q, so no answer could say which", req.ToolCall.Title, id)
		return &acp.RequestPermissionResponse{Outcome: refusal(req.Options, false)}, DecidedByParley, err
	}
	s := p.Subject(req.ToolCall)
	out, by, err := p.decide(ctx, req, s)
	if allowed(req.Options, out) && s.Command != "" {
		p.approve(req.SessionID, s.Analysis.Runs())
	}
	return &acp.RequestPermissionResponse{Outcome: out}, by, err
}

func (p *Policy) decide(ctx context.Context, req *acp.RequestPermissionRequest, s Subject) (acp.RequestPermissionOutcome, Decider, error) {
	opts := req.Options
	// The allow that needs no further word from the user: a standing decision (a rule,
	// --yolo) covers this call, so prefer allow_once; fall back to allow_always, which
	// the rule or --yolo already implies for parley.
	allow, canAllow := firstOf(opts, acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways)

	switch p.configured(s) {
	case ActionAsk:
		return p.ask(ctx, req, s, nil)
	case ActionReject:
		return refusal(opts, false), DecidedByRule, nil
	case ActionAllow:
		if canAllow && !s.Critical() {
			return acp.SelectedOutcome(allow.OptionID), DecidedByRule, nil
		}
	}

	var errs []error
	rule, remembered, err := p.lookup(ctx, s)
	unknown := err != nil // what was remembered cannot be known
	if err != nil {
		errs = append(errs, err)
	}
	if p.StoreErr != nil && rememberable(s) {
		unknown = true
		errs = append(errs, fmt.Errorf("the decisions you asked parley to remember cannot be read (%w), so --yolo allows nothing unasked", p.StoreErr))
	}
	if remembered && rule.Decision == store.Reject {
		return refusal(opts, true), DecidedByAlways, errors.Join(errs...)
	}
	if s.Critical() {
		return p.ask(ctx, req, s, errs)
	}
	if canAllow && p.confinedAllows(req.SessionID, s) {
		return acp.SelectedOutcome(allow.OptionID), DecidedByConfined, errors.Join(errs...)
	}
	if remembered && rule.Decision == store.Allow && !s.NoAlwaysAllow {
		// The user said "always": tell the agent so when it offers that.
		if o, ok := firstOf(opts, acp.PermissionOptionKindAllowAlways, acp.PermissionOptionKindAllowOnce); ok {
			return acp.SelectedOutcome(o.OptionID), DecidedByAlways, errors.Join(errs...)
		}
	}

	// With what was remembered unknown, a rejection "always" may be among it: --yolo
	// must not overrule it unseen (fail closed: ask, or refuse with nobody to ask).
	if p.Yolo && canAllow && !unknown {
		return acp.SelectedOutcome(allow.OptionID), DecidedByYolo, errors.Join(errs...)
	}
	return p.ask(ctx, req, s, errs)
}

func (p *Policy) remembers() bool { return p.Store != nil && p.Agent != "" && p.Workspace != "" }

// rememberable reports whether an "always" about s can be stored: it has a key and
// words for it (a command the agent did not show has neither).
func rememberable(s Subject) bool { return s.Always != "" }

func (p *Policy) lookup(ctx context.Context, s Subject) (store.Rule, bool, error) {
	if !p.remembers() || !rememberable(s) {
		return store.Rule{}, false, nil
	}
	return p.Store.Lookup(ctx, p.Agent, p.Workspace, s.Key)
}

func (p *Policy) remember(ctx context.Context, s Subject, d store.Decision) error {
	if !p.remembers() || !rememberable(s) {
		return nil
	}
	return p.Store.Remember(ctx, store.Rule{Agent: p.Agent, Workspace: p.Workspace, ToolKey: s.Key, Description: s.Always, Decision: d})
}

// answersFor are the answers offered for a request about s.
func (p *Policy) answersFor(options []acp.PermissionOption, s Subject) []Answer {
	var out []Answer
	for _, a := range Answers(options) {
		switch {
		case a == AllowAlways && (s.NoAlwaysAllow || !rememberable(s)):
		case a == RejectAlways && !rememberable(s):
		default:
			out = append(out, a)
		}
		if a == AllowOnce && p.mayAllowWhileConfined(s) {
			out = append(out, AllowWhileConfined)
		}
	}
	return out
}

// mayAllowWhileConfined reports whether "allow while confined" is offered about s: a
// command shown, that runs project code, not critical, in a Confined session.
func (p *Policy) mayAllowWhileConfined(s Subject) bool {
	return p.Confined && s.Command != "" && rememberable(s) && s.RunsEditableCode() && !s.Critical()
}

// confinedAllows reports whether s was allowed while confined earlier in the session.
func (p *Policy) confinedAllows(session acp.SessionID, s Subject) bool {
	if !p.mayAllowWhileConfined(s) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.whileConfined[session][s.Key]
}

func (p *Policy) allowWhileConfined(session acp.SessionID, s Subject) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.whileConfined == nil {
		p.whileConfined = map[acp.SessionID]map[string]bool{}
	}
	if p.whileConfined[session] == nil {
		p.whileConfined[session] = map[string]bool{}
	}
	p.whileConfined[session][s.Key] = true
}

// ask asks the user, or refuses when there is nobody to ask. errs are problems met
// before, reported with the outcome.
func (p *Policy) ask(ctx context.Context, req *acp.RequestPermissionRequest, s Subject, errs []error) (acp.RequestPermissionOutcome, Decider, error) {
	opts := req.Options
	if p.Ask == nil {
		return refusal(opts, false), DecidedByNobody, errors.Join(errs...)
	}
	q := &Question{Request: req, Subject: s, Answers: p.answersFor(opts, s)}
	answer, err := p.Ask(ctx, q)
	if ctx.Err() != nil { // the turn was cancelled while the user was being asked
		return acp.CancelledOutcome(), DecidedByCancel, nil
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("asking for permission: %w; refused", err))
		return refusal(opts, false), DecidedByParley, errors.Join(errs...)
	}
	if answer != Cancelled && !containsAnswer(q.Answers, answer) {
		errs = append(errs, fmt.Errorf("asking for permission: %v was not offered; refused", answer))
		return refusal(opts, false), DecidedByParley, errors.Join(errs...)
	}
	var out acp.RequestPermissionOutcome
	switch answer {
	case AllowOnce:
		o, ok := ChooseOption(opts, acp.PermissionOptionKindAllowOnce)
		if !ok {
			errs = append(errs, errors.New("the agent offers no way to allow just once; refused"))
			return refusal(opts, false), DecidedByParley, errors.Join(errs...)
		}
		out = acp.SelectedOutcome(o.OptionID)
	case AllowWhileConfined:
		o, ok := ChooseOption(opts, acp.PermissionOptionKindAllowOnce)
		if !ok {
			errs = append(errs, errors.New("the agent offers no way to allow just once; refused"))
			return refusal(opts, false), DecidedByParley, errors.Join(errs...)
		}
		out = acp.SelectedOutcome(o.OptionID)
		p.allowWhileConfined(req.SessionID, s)
	case AllowAlways:
		o, ok := firstOf(opts, acp.PermissionOptionKindAllowAlways, acp.PermissionOptionKindAllowOnce)
		if !ok {
			errs = append(errs, errors.New("the agent offers no way to allow this; refused"))
			return refusal(opts, false), DecidedByParley, errors.Join(errs...)
		}
		out = acp.SelectedOutcome(o.OptionID)
		if err := p.remember(ctx, s, store.Allow); err != nil {
			errs = append(errs, err)
		}
	case RejectAlways:
		out = refusal(opts, true)
		if err := p.remember(ctx, s, store.Reject); err != nil {
			errs = append(errs, err)
		}
	case RejectOnce, Cancelled:
		out = refusal(opts, false)
	default:
		errs = append(errs, fmt.Errorf("asking for permission: unknown answer %v; refused", answer))
		return refusal(opts, false), DecidedByParley, errors.Join(errs...)
	}
	return out, DecidedByUser, errors.Join(errs...)
}

func containsAnswer(answers []Answer, a Answer) bool {
	for _, x := range answers {
		if x == a {
			return true
		}
	}
	return false
}
