// Package acpserver is parley as an ACP agent in front of the conversation core: a page
// (the web chat, the VS Code webview) or any other ACP client talks to parley as to an
// agent, and parley runs the real agent behind it.
//
// # Design
//
// A Server holds what outlives one connection: the agent processes (one
// conversation.Agent per agent name and workspace, shared by its sessions) and the
// sessions, each a conversation.Conversation under an id parley gives it. A connection
// (a WebSocket, or stdio for the VS Code webview) is served by Serve: acp.AgentConn with
// a connection-scoped handler (conn.go) that maps the client's requests onto the core:
//
//   - session/new starts a Conversation in a working directory inside the server's
//     workspace (the agent named in _meta.parley.agent, else the server's default) and
//     answers once its session is open; session/prompt is Conversation.Send, answered when
//     that prompt's turn ends (a prompt sent while a turn runs is queued by the core);
//     session/cancel is Cancel; $/cancel_request of a queued prompt takes it back;
//     set_mode, set_model, set_config_option go to the Conversation; session/close
//     closes it; session/load of a session parley holds attaches the connection to it
//     and replays what it showed so far (a reloaded page gets its conversation back),
//     and of an agent's own session (from session/list) opens it with session/load.
//   - fs/* and terminal/* are answered by the core (parley is the agent's client): the
//     page is never asked. Permission requests are decided by the core's policy; only
//     what a person must answer reaches the page, as session/request_permission with one
//     option per answer the policy accepts and the risk in _meta.parley.
//
// # One session, many views
//
// A session (session.go) keeps nothing of the conversation's: where it stands and what
// it showed are the conversation's own, and each view (view.go), one per connection
// attached to it, subscribes to it and is told (a relaying subscription: the agent's
// updates exactly as it sent them). The subscription's first event is a Snapshot: the
// transcript (what the conversation showed, folded: text chunks joined, each tool call
// in its last state), the prompt running and those queued, the question on screen, the
// sign-in the agent wants or the one under way, the start and its progress, the last
// output of released terminals; the events that follow it are the ones after it, so a
// view's replay and its live events never overlap or miss one. session/load sends the
// transcript before its answer; session/new's view shows it after. A view's goroutine
// writes to its connection; the subscription is an unbounded mailbox the conversation
// never waits for, so a slow page slows nobody else. A view also folds what it shows
// into what only it needs: the queue for _parley/queue, the terminals it polls for
// _parley/terminal_output.
//
// session/prompt sends the prompt with its origin (the connection, and whether it wants
// the prompt shown back) and waits for the end the conversation tells it
// (SendOptions.Ended); its answer then waits until the connection's view has shown what
// it had been sent (flushed), so the answer follows the turn's updates on the wire. A
// connection that ends detaches its views; its sessions go on (a reloaded page loads
// them again) until session/close, the server closes, or, with Options.IdleTimeout, they
// have had no view and no turn running or queued for that long: a session that loses its
// last view watches its conversation for that (watchIdle) until a view comes back.
//
// A question is put to every view attached: a permission question to each (view.ask),
// an elicitation to each that answers its mode (view.elicit; one is declined at once
// only when no view attached takes its mode, or, with none attached, none that was did).
// The first answer wins (Conversation.AnswerFirst says which); the conversation closes
// the question, and each other view's request is withdrawn ($/cancel_request). A view
// that goes away mid-question neither answers nor withdraws it: it waits for the views
// that stay, and a view that attaches while it is open is asked it from its Snapshot. A
// prompt from any view queues in the one conversation.
//
// # Who is on the other end
//
// Serve reads the Peer its context carries (WithPeer: parley web's /acp names the token
// and says Remote). The server's log names the peer ("token") at every attach
// (session/new, session/load), every question a view answered first (with the answer),
// and every view that detached. A remote client's cwd names a directory on its own
// machine: session/new (and session/load of an agent's own session) with a cwd that is
// not a directory in the workspace opens in the workspace, and _meta.parley says so
// (requestedCwd); session/list takes such a cwd as the workspace. A local client's is
// refused, as before. additionalDirectories are dropped (a session has one root, its
// cwd), and said (_meta.parley.droppedDirectories). session/list titles a conversation
// whose agent gives no title with its first prompt's first line.
//
// What only parley offers is an extension method (internal/parleyapi defines them all,
// their types and error codes): _parley/agents (the agents parley
// knows), _parley/files (fuzzy file search for @ mentions), _parley/unqueue; parley tells
// the page with notifications: _parley/queue (the prompts waiting behind the turn),
// _parley/terminal_output (a terminal's output while its command runs), _parley/notice
// (what parley itself has to say) and _parley/status (the agent starting, restarting).
// _parley/signed_in says the user signed in to an agent outside its sessions (`parley
// login` in a terminal): the sessions opened after it get a new process of that agent
// (the running one may not know), those open keep theirs.
//
// # Other ACP clients
//
// Any ACP client may use `parley acp` (acpx, an editor, the TypeScript SDK's
// ClientSideConnection): it then talks to the default agent through parley's policy and
// confinement. parley's _parley/* notifications go only to a client that asks for them
// in initialize (clientCapabilities._meta.parley, an object: the page sends {}); another
// would print them or refuse them. Such a client signing in is not possible through
// parley (_parley/sign_in): its session/new gets the agent's auth_required. Elicitations
// go only to a client that advertised their mode, and a session none of whose views
// takes that mode declines them at once (the turn goes on).
//
// initialize tells what is true of the agent the client will get. loadSession,
// session/list and session/close are parley's own, whatever the agent; no mcpCapabilities
// (parley passes no client MCP servers on). promptCapabilities are the agent's: for a
// client that did not ask for parley's extensions, the default agent's, which initialize
// starts to learn (bounded by probeTimeout; the process stays for the session/new that
// follows, while the connection lasts); for one that did, which may choose each session's
// agent (_meta.parley.agent), only what every agent takes (text and resource links), each
// session's own being in session/new's _meta.parley.promptCapabilities.
package acpserver
