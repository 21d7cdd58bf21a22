package conversation

import (
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolstate"
)

// Event is something a view may show. It is one of the types below; a view switches on
// them and ignores what it does not draw. Events are values the view owns: nothing in
// them changes after they were sent.
type Event interface{ event() }

// Starting: the agent (or its session) is being started.
type Starting struct {
	Agent   string // the agent's name, as the user chose it
	Command string // the command line that starts it
	Restart bool   // it ran before and died: this is a restart with a new session
	Reason  error  // why it is restarted: how the last one ended
}

// Ready: the session is open; the conversation takes prompts.
type Ready struct {
	Session Session
}

// StartFailed: the agent or its session could not be started. The conversation stays
// usable: the next prompt tries again.
type StartFailed struct {
	Err error
}

// SessionChanged: the session's settings changed (modes, models, config options,
// commands, title, usage), or it is another session now (NewSession, LoadSession).
type SessionChanged struct {
	Session Session
}

// Queued: a prompt waits behind the running turn.
type Queued struct {
	Prompt Prompt
}

// Unqueued: a queued prompt was taken back (Unqueue, or Cancel of the turn before it);
// the view may give its text back to the user.
type Unqueued struct {
	Prompt Prompt
}

// TurnStarted: a prompt was sent.
type TurnStarted struct {
	Prompt Prompt
	// Replay is set for the turn that shows a session being loaded: its updates are the
	// agent's replay of the conversation (the user's messages included), not a reply.
	Replay bool
}

// TurnUpdate is one thing that changed in the running turn. Update.Tool, Plan and Usage
// are copies the view may keep. A text delta may hold the text of several consecutive
// chunks of one agent message, joined while the agent sent faster than the conversation
// handled them (heldtext.go).
type TurnUpdate struct {
	Turn   int // the Prompt.ID of the turn
	Update toolstate.Event
}

// TurnEnded: the turn is over.
type TurnEnded struct {
	Turn       int
	StopReason acp.StopReason // empty when Err is set
	Err        error          // the turn failed (the agent died, the connection broke)
	Cancelled  bool           // Cancel was called (the agent may still report another reason)
	Usage      *acp.Usage     // the end-of-turn usage, when the agent reported it
	Replay     bool           // the end of the replay that TurnStarted with Replay began
	// Refused is the title of the last request parley refused during the turn without a
	// person answering it then (for want of someone to ask, by a rule, by an "always"),
	// if any: the reason, often, that an agent ended its turn by itself.
	Refused string
}

// AgentUpdate is one update exactly as the agent sent it, for a view that relays the
// agent's own ACP (the web chat's server, which is an ACP agent to its page). Only
// subscriptions made with SubscribeRelay receive it, in place of TurnUpdate: the
// terminal views, which draw toolui's model, do not pay for the copy. It is sent after
// the conversation applied the update (SessionChanged, if any, comes first).
type AgentUpdate struct {
	Turn   int // the Prompt.ID of the turn it belongs to (the last one between turns)
	Update acp.SessionUpdate
	// Replay is set while a loaded session's history is being replayed.
	Replay bool
}

// Decided: a permission request was decided, by a person or not (a rule, an "always",
// nobody to ask). Only relaying subscriptions receive it (the others have the
// PermissionDecided TurnUpdate): the agent's own updates say nothing of who refused a
// call, and its "failed" must not be what a page shows of a refusal.
type Decided struct {
	Request *acp.RequestPermissionRequest
	Outcome acp.RequestPermissionOutcome
	By      permission.Decider
}

// TerminalReleased: the agent released one of its terminals; Output is what it held last.
// Only relaying subscriptions receive it (a page cannot read parley's terminals itself).
type TerminalReleased struct {
	ID     acp.TerminalID
	Output *acp.TerminalOutputResponse
}

// QuestionAsked: a permission question for a person. Answer it with Conversation.Answer.
type QuestionAsked struct {
	ID       int
	Question *permission.Question
	// Tool is the tool call the question is about, as the agent reported it until now
	// with what the request says of it: its title, kind and input when the request
	// leaves them out (as codex does). Nil in a Snapshot when the turn it came in is over.
	Tool *toolstate.ToolCall
}

// QuestionClosed: the question is no longer on screen: answered (by this or another
// view), or withdrawn by the agent.
type QuestionClosed struct {
	ID        int
	Answer    permission.Answer
	Withdrawn bool
}

// Notice is something parley itself tells the user: a refusal for want of someone to
// ask, a problem deciding a permission, an agent restarted. Text is plain, one or more
// lines; what it quotes of the agent's is already made safe to print.
type Notice struct {
	Text string
}

// Closed: the conversation has ended; no more events follow.
type Closed struct {
	Err error
}

// Snapshot is the first event of every Subscription: where the conversation stands,
// everything a view that comes late needs to show it as the views that were there all
// along do. The events that follow it are those after it: nothing twice, nothing missed.
type Snapshot struct {
	Ready    bool  // the session is open
	Starting bool  // the agent or its session is starting
	Failed   error // the last start failed (and no start is under way): see StartFailed
	// Start is the start under way (with Starting), and Progress its last report when it
	// takes more than a moment: what runs, as its first report said, and the stderr lines
	// of the last one.
	Start    *Starting
	Progress *StartProgress
	Session  Session
	Running  *Prompt  // the turn that runs, if any
	Queue    []Prompt // what waits behind it
	// The question on screen, if any: a permission question or an elicitation (the
	// others follow it, each with its QuestionAsked or ElicitationAsked, as it closes).
	Question    *QuestionAsked
	Elicitation *ElicitationAsked
	// SignIn is what the agent asked for when it wanted a sign-in (the methods), until the
	// session opens or a sign-in succeeds; SigningIn says a sign-in is under way
	// (SignInEnded will follow), with SignInMethod.
	SignIn       *SignInRequired
	SigningIn    bool
	SignInMethod *AuthMethod
	// Transcript is what the conversation showed so far, as session updates to replay in
	// order: the user's prompts as user_message_chunk, the agent's updates folded (see
	// transcript.go: text chunks of one message joined, a tool call in its last state, a
	// turn's last plan, the last of each settings update; the oldest dropped past a
	// bound). Only a Subscribe or SubscribeRelay gets it.
	Transcript []acp.SessionUpdate
	// Terminals is the last output of the terminals the agent released (a view reads the
	// others with TerminalOutput), for a relaying subscription: see TerminalReleased.
	Terminals map[acp.TerminalID]*acp.TerminalOutputResponse
	// Refusals are the last permission requests refused (see Decided), for a relaying
	// subscription: the transcript holds the agent's updates, which do not say a call was
	// refused, and by whom.
	Refusals []Decided
}

func (Starting) event()         {}
func (Ready) event()            {}
func (StartFailed) event()      {}
func (SessionChanged) event()   {}
func (Queued) event()           {}
func (Unqueued) event()         {}
func (TurnStarted) event()      {}
func (TurnUpdate) event()       {}
func (AgentUpdate) event()      {}
func (TerminalReleased) event() {}
func (Decided) event()          {}
func (TurnEnded) event()        {}
func (QuestionAsked) event()    {}
func (QuestionClosed) event()   {}
func (Notice) event()           {}
func (Closed) event()           {}
func (Snapshot) event()         {}

// Prompt is something the user sent: its id within the conversation (1, 2, …) and the
// content the agent receives.
type Prompt struct {
	ID      int
	Content []acp.ContentBlock
	// First: the content is the prompt's SendOptions.FirstInSession, sent because the
	// session had not been sent a prompt yet.
	First bool
	// Origin is SendOptions.Origin: the sender's own mark, so that a view tells the
	// prompts it sent from the others'.
	Origin any
	// Seeded is how many of the first blocks of Content are the seed of a session that
	// carries a conversation on (carry.go): the earlier transcript, not the user's words.
	Seeded int

	firstInSession []acp.ContentBlock // until the prompt is sent
	ended          chan<- PromptEnd   // SendOptions.Ended
}

// PromptEnd is how a prompt ended, as SendOptions.Ended is told it: one of its fields is
// set.
type PromptEnd struct {
	Ended    *TurnEnded // its turn ended (or it failed with the agent's start)
	Unqueued bool       // it was taken back before it ran (Unqueue, Cancel, Close)
	Closed   bool       // the conversation had ended: it was never queued
}

// tell tells whoever sent p how it ended (never waiting: Ended has room for it).
func (p Prompt) tell(e PromptEnd) {
	if p.ended == nil {
		return
	}
	select {
	case p.ended <- e:
	default:
	}
}

// Text is the prompt's text blocks joined, for showing (without the seed).
func (p Prompt) Text() string {
	var s string
	for _, b := range p.Content[min(p.Seeded, len(p.Content)):] {
		if t, ok := b.AsText(); ok {
			s += t
		}
	}
	return s
}

// Session is what the agent said about the session and its settings.
type Session struct {
	ID        acp.SessionID
	Agent     AgentInfo
	Title     string
	Modes     *acp.SessionModeState
	Models    *acp.SessionModelState
	Config    []acp.SessionConfigOption
	Commands  []acp.AvailableCommand
	Usage     *acp.UsageUpdate // the context window's use and the cost so far (usage_update)
	TurnUsage *acp.Usage       // the last turn's usage, as the agent reported it at its end
	Cwd       string
	ExtraDirs []string // the other workspace roots
	// Carried says how the session carries an earlier conversation on (Options.Carry,
	// Conversation.Carry): CarriedResume, CarriedLoad, CarriedFork, CarriedSeeded or
	// CarriedSummarised; "" for a session that carries nothing on. CarryErr is why the
	// agent's own way failed, when the session was seeded instead.
	Carried  string
	CarryErr error

	seed []acp.ContentBlock // the seed the session was opened with, until attached
}

// AgentInfo is the agent as initialize described it.
type AgentInfo struct {
	Name         string // as the user chose it (--agent, or the command line)
	Title        string // the agent's own name for itself, or Name
	Version      string
	Capabilities acp.AgentCapabilities
	AuthMethods  []acp.AuthMethod // as the agent sent them
	Methods      []AuthMethod     // those parley can carry out (SignIn)
}
