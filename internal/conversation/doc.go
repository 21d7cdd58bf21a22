// Package conversation is parley's conversation core: it owns one conversation with one
// ACP agent, whatever shows it. The terminal chat, `parley run`, the web chat and
// `@parley` in VS Code are views of it: they draw what it reports and pass on what the
// user does; none of them speaks ACP, applies a permission policy or keeps conversation
// state of its own.
//
// # Pieces
//
// An Agent is one agent server process and its ACP connection. Several conversations may
// share one (ACP allows many sessions per connection): `parley chat` and `parley run` open
// one, the web chat and VS Code many. The Agent is the ACP client of its process: it
// answers fs/* and terminal/* for the sessions it knows, inside each session's workspace
// roots (internal/workspace), routes session/update and session/request_permission to the
// Conversation that owns the session, holds updates for a session id it has not been
// told of yet (agents send some before their session/new response; one parley never
// opened is never shown), and restarts the process when a conversation needs it and it
// has died.
//
// A Conversation is one ACP session on an Agent. It is an actor: one goroutine (run) owns
// all of its state and changes it only in answer to messages on its inbox, which come
// from the views (commands) and from the Agent (what the agent sent):
//
//   - the session: its id, and its settings as the agent last reported them (modes,
//     models, config options, available commands, title, usage);
//   - the turn that runs, folded through internal/toolui's Turn (text, thoughts, tool
//     calls with their states, plan), and the prompts queued behind it;
//   - the permission questions: the policy (internal/permission) decides first, exactly
//     as everywhere in parley; what it must ask a person becomes a Question, shown one at
//     a time in the order they came;
//   - the views subscribed to it.
//
// Calls to the agent (session/prompt, set_mode, load…) never run on the actor's
// goroutine: a helper goroutine makes the call and posts the result back, so the actor
// never waits and a view's command never blocks another view.
//
// # Commands and events
//
// Views command with methods: Send (a prompt; queued while a turn runs), Unqueue, Cancel
// (the turn; what was queued goes back to the views as Unqueued), Answer (a question),
// SetMode, SetModel, SetConfigOption, NewSession, LoadSession, ListSessions, Close.
// Methods that wait for the agent take a context and return its error.
//
// Views receive Events from a Subscription, in order: Starting, StartProgress (when the
// start takes more than a moment: what runs, what it downloads, its stderr), Ready and
// StartFailed while the agent and its session start; SessionChanged when the session's settings do;
// Queued and Unqueued; TurnStarted, TurnUpdate (a toolui.Event: text, thought, tool call,
// plan, usage…), TurnEnded; QuestionAsked and QuestionClosed; Notice (what parley itself
// has to say: a refusal for want of someone to ask, an agent restarted); Closed. A new
// Subscription starts with a Snapshot of the session and the question on screen, if any.
//
// A Subscription is an unbounded mailbox that the conversation never waits for: a slow
// view falls behind, nothing is dropped, and a view takes what has accumulated in one
// batch (Take), which is how a terminal draws a flood of text in frames.
//
// # A view that goes away
//
// A view that goes away (a closed browser tab, a dead VS Code) only unsubscribes: the
// conversation goes on, a turn runs to its end, and a question waits for the next view
// that subscribes (it receives it in its Snapshot) or for the agent to withdraw it. Who
// created the conversation decides when it ends: `parley chat` and `parley run` close it
// when they leave, the web chat keeps it while a tab may come back, VS Code when the chat
// is idle. Close cancels the turn, answers open questions "cancelled", closes the session
// when the agent can, and releases the Agent.
//
// # Permission questions
//
// A conversation's Options say whether a person can answer (Interactive). If not, the
// policy refuses what it would have asked (fail closed) and the view is told with a
// Notice, as `parley run` without a terminal does today. If so, the policy's Ask posts the
// question to the actor, which shows it to every view; the first Answer wins, and a
// question the agent withdraws (its request cancelled) is closed with Withdrawn.
package conversation
