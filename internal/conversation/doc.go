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
// has died. An Agent given AgentOptions.Dial starts no process: its connection is the
// stream Dial opens (a parley server's WebSocket, `parley chat --connect`), and when that
// drops, the conversation dials again and loads the same session, which the server kept.
//
// A Conversation is one ACP session on an Agent. It is an actor: one goroutine (run) owns
// all of its state and changes it only in answer to messages on its inbox, which come
// from the views (commands) and from the Agent (what the agent sent):
//
//   - the session: its id, and its settings as the agent last reported them (modes,
//     models, config options, available commands, title, usage, the last turn's usage);
//   - the turn that runs, folded through internal/toolui's Turn (text, thoughts, tool
//     calls with their states, plan), and the prompts queued behind it;
//   - the questions: the policy (internal/permission) decides permission requests first,
//     exactly as everywhere in parley, and what it must ask a person becomes a question;
//     the agent's elicitations (a form, or a page to open) are questions too, in the same
//     queue, shown one at a time in the order they came;
//   - the sign-in under way, if any;
//   - the views subscribed to it.
//
// Calls to the agent (session/prompt, set_mode, load…) never run on the actor's
// goroutine: a helper goroutine makes the call and posts the result back, so the actor
// never waits and a view's command never blocks another view.
//
// # Commands and events
//
// Views command with methods:
//
//   - the turn: Send (a prompt; queued while a turn runs; Session.Attach makes the
//     content blocks of a file the user attaches, as the agent's prompt capabilities
//     allow), SendWith (with another content for a session that has not been sent a
//     prompt yet: a view that keeps the history, VS Code, gives such a session the
//     earlier turns), Unqueue, Cancel (the turn; what was queued goes back to the views
//     as Unqueued); Start (the session opened again after its start failed, without a
//     prompt);
//   - the questions: Answer (a permission question), AnswerAndCancel (a refusal that
//     also ends the turn: session/cancel right behind the answer, in the same write),
//     AnswerElicitation (an elicitation: accept with the form's values, which it checks
//     first and refuses with an error naming the field, decline or cancel);
//   - signing in: SignIn (a method the agent offers, given how the view runs a terminal
//     program and the values of variables; it returns at once) and CancelSignIn;
//   - the settings: Session.Settings lists them (config options of every known type,
//     the legacy modes and models after them; the values each takes, for completion),
//     SetConfig checks and sets one (an *InvalidSettingError lists what would do), and
//     SetMode, SetModel, SetConfigOption as before;
//   - the sessions: NewSession, LoadSession, ListSessions, CloseSession, DeleteSession;
//     Close ends the conversation.
//
// Methods that wait for the agent take a context and return its error. A method that
// waits for the conversation's answer and reaches it as it ends (racing Close) returns
// ErrClosed (Unqueue false, a Subscription a Closed event) rather than wait: the actor ends
// with what is still in its inbox unhandled, so every such wait goes through one helper,
// roundTrip, which also watches the end and the context. The Agent itself
// offers Start (initialize, for what the agent says before any session), Methods and
// Logout.
//
// Views receive Events from a Subscription, in order: Starting, StartProgress (when the
// start takes more than a moment: what runs, what it downloads, its stderr), Ready and
// StartFailed while the agent and its session start; SignInRequired when the agent answers
// auth_required (with the methods; StartFailed's or TurnEnded's error is then an
// *AuthRequiredError), SigningIn and SignInEnded around a sign-in; SessionChanged when
// the session's settings do (its title among them); Queued and Unqueued; TurnStarted,
// TurnUpdate (a toolstate.Event: text with its message id, thought, tool call with its
// name, plan, usage…), TurnEnded (with the end-of-turn usage the agent reported);
// QuestionAsked and QuestionClosed, ElicitationAsked and ElicitationClosed (one question
// on screen at a time, permission or elicitation), ElicitationCompleted (the agent is
// done with a page the user agreed to open), ElicitationDeclined (nobody could answer);
// AgentNotice and Compaction (what the agent says outside the turn); Notice (what parley
// itself has to say: a refusal for want of someone to ask, a page it would not open, an
// agent restarted); Closed.
// A new Subscription starts with a Snapshot: everything a view that comes late needs to
// show the conversation as the views that were there all along do, and the events that
// follow it are exactly those after it. It holds the session, the start under way and
// its progress or how the last one failed, the prompt running and those queued, the
// question on screen, the sign-in the agent wants (with its methods) and the one under
// way, and the transcript: what the conversation showed, as session updates to replay in
// order (transcript.go: the user's prompts, text chunks of one message joined, each tool
// call once in its last state, a turn's last plan, the last of each settings update;
// bounded, the oldest dropped). SubscribeRelay is for a view that passes the agent's own
// updates on (AgentUpdate, TerminalReleased; its Snapshot also has the last output of
// the terminals the agent released); SubscribeStatus for one that follows only where the
// conversation stands (no updates, no transcript). A sender that waits for its prompt's
// end is told it (SendOptions.Ended), and tells its own prompts by their Origin.
//
// What a view needs for each feature: for sign-in, show SignInRequired's methods (each
// with AuthMethod.Effect: the agent's own flow, a terminal program with its whole command
// line, the variables to set, never their values, or why parley refuses it) and call
// SignIn with the one the user picks, a RunTerminal where it has a terminal (a web view
// runs none: ErrNoTerminal) with Approved, the method's Run once its Lines were shown and
// the user said yes (else ErrNotApproved), and Vars where it can ask for values; for elicitations, draw ElicitationAsked's Form field by
// field (Field.Parse checks a typed answer, Field.Check a given value; a Secret field is
// never echoed) or its URL with its host and Punycode warning, open only on consent, and
// call AnswerElicitation; for settings, list Session.Settings and call SetConfig; for
// usage, show Session.Usage and TurnEnded.Usage as given (never added up).
//
// When Options.Changes is set, every turn is recorded (internal/changes; the hooks are in
// changes.go): each TurnEnded is followed by TurnChanges, the files it created, changed and
// deleted; views read the record with Changes and Diff, and act with Undo and Keep
// (refused while a turn runs), which every view hears of (ChangesUndone, ChangesKept).
// A permission question about an edit carries its diff (permission.Question.Diffs).
//
// Conversations outlive a run (carry.go, keeper.go, seed.go): a Keeper, one subscriber
// every front-end starts, writes each turn to the store as it ends (per workspace: the
// prompt, the reply, the tool calls with their outcome, the turn's number in the record
// of changes). Options.Carry and Carry open a session that carries a kept conversation
// on: the agent's session/resume, load or fork where it offers them, else a new session
// whose first prompt starts with the transcript (MakeSeed: quoted, summarised past a
// budget of characters); Session.Carried says which.
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
// A view that knows better than the policy about some requests (VS Code's own tools,
// which VS Code confirms itself) decides them first (Options.Predecide, which sees the
// tool call as the agent reported it); the others go to the policy. A view that serves
// tools to the agent gives them as MCP servers in the form the agent takes
// (Options.MCPServersFor). A conversation's Options say whether a person can answer
// (Interactive). If not, the
// policy refuses what it would have asked (fail closed) and the view is told with a
// Notice, as `parley run` without a terminal does today. If so, the policy's Ask posts the
// question to the actor, which shows it to every view; the first Answer wins (AnswerFirst
// and AnswerElicitationFirst say whether it was this one: a server logs who answered), and
// a question the agent withdraws (its request cancelled) is closed with Withdrawn.
//
// # Elicitations and sign-in
//
// Options.Elicit says the person answers elicitations too; without one they are declined
// at once (ElicitationDeclined) and the turn goes on. Options.ElicitFor decides it at each
// elicitation instead, by its mode (a server whose views come and go). The Agent advertises the modes its
// owner asks for (AgentOptions.ElicitForms, ElicitURLs) and refuses another (-32602). An
// elicitation about a session goes to the conversation that owns it; one about a request
// (a sign-in's authenticate) to the conversation signing in. Answers are checked against
// the form before they are sent, and never logged. A URL elicitation whose address is not
// an http or https page (CheckPageURL) is declined before any view sees it, with a Notice
// saying why: a view only ever has such a page to open.
//
// A sign-in runs on a helper goroutine like every call to the agent: authenticate for the
// agent's own methods; for a terminal method, the agent's command again with the
// method's arguments appended and its variables added (or the command an older agent
// names in _meta["terminal-auth"]), run by the view in the user's terminal, after which
// the agent is started again; for the older environment variable form, the agent started
// again with the variables. Then the session is opened again. A restart ends the agent
// process for every conversation on it: they open new sessions on the next prompt.
package conversation
