// Package vscodelm is the core of `parley vscodelm`: a stdio JSON-RPC backend for a VS Code
// extension's LanguageModelChatProvider that lets any ACP agent serve as a VS Code
// language model.
//
// Data flows one way: the extension sends lm/provideLanguageModelChatResponse with the
// whole conversation (VS Code's API is stateless); the history Matcher finds the
// conversation it belongs to and the messages its agent has not seen; the conversation's
// worker, a view of the conversation core (internal/conversation), sends them as a
// prompt and streams what the core reports back as lm/responsePart notifications, then
// lm/responseComplete and the result {}. The wire protocol is the one
// of Symposium's vscodelm backend (the protocol reference), so an existing
// client keeps working.
//
// # Which conversation a request continues
//
// The router (router.go, Serve's goroutine) owns every conversation's history and asks the
// Matcher (history.go). A conversation's session can take a request only if the request
// repeats every user message that session was sent and adds something after them; the
// agent is prompted with only that. Of the conversations that can, the one that shares
// the longest history with the request wins (its committed history, then as much of its
// last exchange as the request repeats); a tie goes to one whose last answer the request
// repeats, then to the most recently used. When none can, the request gets a new
// session, given the shared earlier turns as context (a transcript before its first
// prompt). So:
//
//   - A retry or regenerate ([..., U2] again, without the answer) and a second chat opened
//     with the same first message never reach a session that has seen that message: the
//     agent would see it twice and answer as in a later turn. An edited message does not
//     either (that session saw the message it replaces). The other conversation is left
//     alone, even mid-answer: VS Code itself cancels a request it replaces.
//   - After a cancel, a declined tool call or a declined agent action, VS Code drops the
//     answer but keeps the user's message: the next request is [..., U1, U2]. The session
//     has seen U1, so it continues, and the agent receives only U2.
//
// # The conversation core, and what the worker keeps
//
// Each VS Code conversation is a conversation.Conversation on the conversation.Agent of
// its agent definition (pool.go: one per definition, shared by all its conversations).
// The core owns everything ACP: the session (opened when the conversation starts,
// opened again when the agent died), the turn folded into toolui's model, the
// permission policy (internal/permission: the user's rules and remembered decisions, as
// in `parley chat`), the agent's questions and settings, usage, and the record of what
// each turn changed (internal/changes). The worker is a view of it: it keeps only what
// VS Code's side needs (the request open, what waits for VS Code, the messages the
// agent has not seen) and turns the core's events into parts. The core gained what such
// a view needs: a prompt's other content for a session that has not been sent one yet
// (SendOptions.FirstInSession: the earlier turns, for a new conversation, a spare or a
// session opened after the agent restarted), the MCP servers given from the agent's
// capabilities (vscode_tools over HTTP or the stdio shim), a Predecide hook the policy
// comes after (VS Code's own tools, allowed), and AnswerAndCancel (below).
//
// # Tool calls and permission requests
//
// The worker (worker.go, waits.go) shows each agent call of a VS Code tool, and each
// permission question of the core, as a tool_call part, and ends the response 50 ms
// later so that calls made together go out together. (The core asks one question at a
// time.) A call that arrives after the response ended is
// held and shown in the next response (the one that carries the first results); only a
// call VS Code was shown and did not answer counts as declined. A declined tool call
// fails the MCP call; a declined agent action is answered with the agent's reject_once
// option, and session/cancel follows right behind that answer, in the same write (a
// session/cancel first would make the answer "cancelled", which some agents take as "stop
// everything"): the core's AnswerAndCancel.
// An agent action is allowed only by the approval itself: a tool_result whose result is
// [{"value":"Approved"}], exactly one part whose value is that string (other members such
// as "$mid" ignored), which the agent-action tool's invoke returns once the user allowed
// it. Any other result of that tool — VS Code's "The user chose to skip the tool call…"
// when the user skips the confirmation (it does not run the tool), an error, an empty or
// differently worded result — is answered with the agent's reject_once option, and the
// turn goes on in the request that carried it, as it does after an approval.
// lm/cancel cancels the turn, and ACP answers its pending permission requests "cancelled".
// A cancel is never lost, whatever its timing. One that comes before its request was
// routed (the client cancels at once, and the two handlers race) is answered at once, and
// the request is still recorded in its conversation. A request cancelled before its
// prompt went out (while its session opened, behind a cancelled turn, before the worker
// took it, or before the prompt was written) is never prompted: the agent gets its
// messages as earlier context of the next prompt, never as a prompt of their own (it would
// answer, in the next turn, a message the user cancelled). session/cancel never overtakes
// the prompt it cancels (acp.ClientConn.Prompt), and parley's own agents end a prompt on a
// session/cancel read after it even when their handler has not started yet (acp.AgentConn
// registers each prompt as it is read).
// A permission request for one of parley's own bridged tools is allowed in every agent's
// form (bridged.go, through the core's Predecide, with what the agent reported earlier of
// the call); nothing else is allowed by name. The rest goes to the policy, which allows
// or refuses what the user's rules and remembered decisions say and asks VS Code's user
// the rest.
//
// # Agents
//
// A session's first prompt waits (at most 10 seconds) while the agent, connected to
// vscode_tools, has not listed its tools yet: an agent that discovers MCP servers behind
// session/new (qwen-code) would start the turn without them, and on a busy machine give
// the discovery up. An agent that connects only once prompted (Claude) is not waited for;
// one whose process connected before a first prompt once is waited for in later sessions
// too.
//
// One agent process per agent definition serves all its conversations (pool.go). Starting
// it and opening sessions never block other conversations (the core starts them on each
// conversation's helper goroutines), and every call to an agent other than a turn
// (initialize, session/new, session/close) has a deadline (Options.AgentTimeout); when it
// passes the request is answered -32000 saying so. Agent stderr goes to a log file per
// agent (Options.AgentLog). The agent's commands in parley's terminals are confined
// (Options.Sandbox). On a signal open requests are answered -32800, the conversations
// closed, the agents stopped, and Serve returns.
//
// # One owner for each piece of state
//
// The router owns the histories and the table of conversations and open requests; each
// worker owns its open request and what waits for VS Code; the core owns the session.
// They talk with typed messages (a sealed interface per actor): the router posts to a
// worker's unbounded mailbox (mailbox.Box[workerMsg], so it never waits for one), a worker
// posts to the router's inbox (chan routerMsg) and commands its conversation, whose
// events it takes from a subscription (an unbounded mailbox too). A worker reports what
// it streamed when the exchange ends, before the request is answered, so the router has
// it before the client can send the next request.
//
// # Protocol additions
//
// parley accepts optional members in the chat request params that old clients never
// send, and behaves exactly as Symposium did when they are absent:
//
//   - "cwd": the absolute workspace folder the agent works in (ACP's session cwd).
//     Default: parley's own absolute working directory.
//   - "additionalDirectories": further absolute workspace folders of a multi-root
//     workspace, passed to agents that support them.
//   - "capabilities": what the client can render beyond text and tool_call parts, e.g.
//     {"parts":["thinking","tool_invocation"]}. Without it parley sends only the two part
//     types of the original protocol and renders agent activity as Markdown text.
//
// The extra parts, sent only to a client that declared it renders them (display only:
// the client does not send them back in the history):
//
//	{"type":"thinking","value":"…"}   a piece of the agent's reasoning
//	{"type":"tool_invocation","toolCallId":"…","state":"executing", …}
//
// A tool_invocation part is the whole current state of one agent tool call each time it
// changes (the client keeps the last per toolCallId), with the members of toolui's JSON
// tool-call event: state (streaming, waiting_for_confirmation, executing, completed,
// cancelled), isError, title, toolName, kind, invocationMessage, pastTenseMessage,
// errorMessage, terminalCommand, diffs, locations, content, parentId (sub-agent grouping),
// presentation ("hidden", "hiddenAfterComplete") and confirmation — VS Code's
// ChatToolInvocationPart model.
//
// lm/provideLanguageModelChatInformation takes optional "agentServers" (the client's own
// agents, in the agent_servers shape, merged over the configuration file's), "cwd" and
// "additionalDirectories" (where spare sessions open). It lists the built-in agents that
// can run here and every configured one (one whose command is missing says so in its
// detail). Each model carries "detail" (where the agent comes from) and "agent" (the flat
// definition to send back as params.agent); the result carries "agentActionRefusals":
// true, telling the client that this backend answers a result of the agent-action tool
// other than the approval with reject_once (an older one took any result as the
// approval). An agent definition may carry labels beside its variant
// ({"id":"x","name":"X","eliza":{…}}).
//
// The notification lm/prepareSession {"modelId","agent","cwd"?,"additionalDirectories"?}
// names the model the user chose last in the workspace (the client remembers it across
// restarts); invalid params are logged and ignored.
//
// Spare sessions: an agent gets one session opened ahead of time, so that the next new
// conversation with that agent and workspace takes it instead of waiting for the agent
// to start and for session/new. Which agents: the one lm/prepareSession names, at once;
// and, when the models are listed, every agent the user wants (chose with
// lm/prepareSession or in a conversation) and then every one configured. At most
// Options.Spares in all: a wanted agent's spare replaces one of an agent only configured.
// None is opened beside a live conversation of the same agent and workspace: opencode
// 1.18 keeps MCP servers per workspace, not per session, and a second session's
// vscode_tools would take the first conversation's away. An unused spare closes after the
// idle timeout.
//
// What @parley shows beyond the reply (wire_features.go). A client declares the
// notifications it handles in capabilities.notifications; each names its request
// (requestId) and comes before lm/responseComplete, and one that comes while no request is
// open waits for the next:
//
//	lm/conversation   {conversationId}: the conversation the request continues (first)
//	lm/usage          {usage?, turn?}: the agent's usage_update and the turn's usage, after a turn
//	lm/changes        {turn:{number,label,files:[{path,rel,kind,added,removed,runsCode?,mode?,…}]}}: a turn changed files
//	lm/elicitation    {elicitation:{id,message,mode,fields|url}}: the agent asks; the request stays open
//	lm/signInRequired {agent,methods:[{id,name,kind,command}]}: the agent needs a sign-in
//
// A client that does not declare lm/elicitation cannot answer: parley declines the
// question and the turn goes on. A sign-in is said in the reply itself, with the command
// that signs in with each method (`parley login --agent NAME --method ID`), and the
// request completes; the messages it carried reach the agent as context later.
//
// Requests about a conversation (its id from lm/conversation): lm/settings and
// lm/setConfig {id, value} (its config options, legacy modes and models; an unknown id or
// value is -32602 listing the valid ones); lm/changes (the turns that changed files, and
// undos), lm/diff {path, turn?, since?} (the unified diff and both texts), lm/undo {turn?,
// paths?, rewind?} (a file changed since the turn makes it -32001 with the conflicts as
// data, and nothing is undone). Their results, the changes notification's turn and the
// sign-in's methods are internal/parleyapi's types, the same as _parley/changes,
// _parley/diff, _parley/undo and _parley/sign_in_required send, and internal/changesrpc
// answers them for both servers; lm/answerElicitation {id, action, content?} (an answer the
// form refuses is -32602 naming the field). The notification lm/signedIn {agent} says the
// user signed in: the agent's next conversation starts a new process.
//
// Other additions: `parley vscodelm --idle-timeout D --max-conversations N --spares N
// --agent-timeout D` bound what is kept and waited for; `--sandbox`, `--sandbox-write` as
// for `parley chat`; `--trace-dir` may stand before or after the subcommand.
//
// # Files
//
// wire.go, wire_features.go: the wire types; agentdef.go: params.agent and the key that
// selects an agent process; history.go: the Matcher; server.go: Serve and the JSON-RPC
// handlers; router.go: the router; worker.go, waits.go, output.go, bridged.go,
// features.go: a conversation's worker; requests.go: the requests about a conversation;
// signin.go: the parley login command for an agent; pool.go: the agents.
// vscodetest/ is the fake VS Code client of the tests.
package vscodelm
