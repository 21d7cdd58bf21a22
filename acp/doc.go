// Package acp implements the Agent Client Protocol (ACP) version 1, in both roles.
//
// ACP connects a client (an editor, a terminal front-end, a bridge) with a coding agent:
// JSON-RPC 2.0, one message per line, usually over the agent process's stdin and stdout.
// The client starts the agent, initializes it, opens sessions (a working directory and
// the MCP servers the agent may use) and sends prompts; the agent answers each prompt
// with a stream of session updates (message chunks, thoughts, tool calls, plans) and a
// stop reason, and calls back into the client to ask permission, read and write files,
// run commands in terminals and ask the user for input. The specification is at
// https://agentclientprotocol.com.
//
// The package gives each role a small interface to implement and a connection to call
// the other side through:
//
//   - An agent implements Agent (Initialize, NewSession, Prompt), plus the optional
//     interfaces for what it offers (SessionLoader, SessionCloser, ModeSetter, ...). It
//     is served by ServeStdio, Serve or NewAgentConn, and reaches its client through the
//     *AgentConn it is bound to: session updates, permission requests, fs/*, terminal/*,
//     elicitations, extension methods.
//   - A client implements Client (SessionUpdate, RequestPermission), plus FileSystem,
//     Terminals and Elicitor for what it offers. StartAgent runs an agent command and
//     returns the *ClientConn to drive it; NewClientConn does the same over any stream.
//
// The types follow the $defs of the v1 JSON Schema and keep their names
// (InitializeRequest, SessionNotification, ToolCallUpdate...), with Go initialisms
// (SessionID, MCPServerHTTP); the JSON member names are in the tags. Requests and their
// results are pointers to these types; a nil result is sent as {}.
//
// # Quick start
//
// An agent program, whose client runs it:
//
//	type echo struct{ conn *acp.AgentConn }
//
//	func (a *echo) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
//		return &acp.InitializeResponse{}, nil // ProtocolVersion 0 is filled in
//	}
//	func (a *echo) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
//		return &acp.NewSessionResponse{SessionID: "s1"}, nil
//	}
//	func (a *echo) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
//		a.conn.Update(ctx, req.SessionID, acp.AgentMessageChunk(acp.TextBlock(acp.PromptText(req.Prompt))))
//		return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
//	}
//
//	func main() {
//		a := &echo{}
//		err := acp.ServeStdio(context.Background(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
//		if err != nil {
//			log.Fatal(err)
//		}
//	}
//
// A client that runs it (client implements Client):
//
//	conn, err := acp.StartAgent(exec.Command("echo-agent"), func(*acp.ClientConn) acp.Client { return client }, nil)
//	if err != nil { ... }
//	defer conn.Close() // also ends the agent process
//	_, err = conn.Initialize(ctx, &acp.InitializeRequest{})
//	session, err := conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: dir})
//	resp, err := conn.Prompt(ctx, &acp.PromptRequest{SessionID: session.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("hello")}})
//
// The bind function a connection takes runs before the connection reads anything: the
// value it returns already holds its connection when the first message arrives. For
// tests, net.Pipe gives two ends to serve an agent and a client on in one process.
//
// # Concurrency
//
// Each incoming request runs on its own goroutine. Notifications are handled one at a
// time, in the order they arrived, on the connection's dispatcher: a slow notification
// handler (a Client's SessionUpdate) slows the peer down instead of queueing without
// bound, and may itself make calls through its connection. A call returns only after
// the notifications that arrived before its answer were handled, so when a client's
// Prompt returns, every update of the turn has been delivered. Updates for a session the
// client does not know yet (some agents send them before the session/new answer) are
// kept and delivered once it does.
//
// The methods of AgentConn and ClientConn may be called from any goroutine. What one
// goroutine sends goes out in that order: an agent's updates are written before its
// Prompt's answer. AfterResponse sends notifications right behind a response (a
// session's first updates behind session/new). Close is orderly and may be called more
// than once; every call still waiting when the connection ends gets an error for which
// IsClosed is true.
//
// # Cancellation
//
// Every context a handler gets ends when the peer withdraws the request
// ($/cancel_request) or the connection closes; a call whose context ends sends
// $/cancel_request and returns. On the agent side, session/cancel (and session/close)
// also ends the context of the session's running Prompt, with the cause ErrTurnCancelled:
// an agent that stops when its context ends needs no cancel tracking of its own, and
// an error (or nil) its Prompt then returns is answered StopReasonCancelled, as the
// protocol requires. Updates sent with
// that ended context still go out (a context bounds only the wait for room to send);
// calls made with it fail at once, so a cancelled turn that must still hear the client
// uses context.WithoutCancel. On the client side, a Prompt whose context ends sends
// session/cancel and waits (ConnOptions.CancelGrace) for the agent's answer, and the
// session's pending RequestPermission calls are withdrawn and answered "cancelled".
//
// # Unknown members are kept
//
// A program that passes messages on must not lose what a newer peer sent, so decoding
// and re-encoding a message keeps everything:
//   - Every object type keeps the members it has no field for in Extra and writes them
//     back on encode, and keeps _meta in Meta.
//   - A union (SessionUpdate, ContentBlock, ToolCallContent, MCPServer, AuthMethod,
//     RequestPermissionOutcome, SessionConfigOption, ...) has one pointer per known
//     variant and keeps an unknown variant's raw JSON in Unknown, re-encoded as it came.
//     Its Kind method names the variant, also an unknown one. An unknown kind is never
//     read as a known one.
//   - Enumerations (ToolKind, StopReason, ...) are strings: unknown values decode and
//     are kept.
//
// Decoding is lenient where the schema says so (x-deserialize-default-on-error): a
// malformed _meta, a null optional member and an optional member of the wrong type
// decode as absent (the wrong value stays in Extra). Member names match exactly.
// Encoding is strict: required arrays are written as [] when nil, optional members are
// omitted when zero, and null is written only where it means something
// (SessionInfoUpdate).
//
// # Errors
//
// A peer's error answer is an *Error (Code, Message, Data); the Code constants are the
// codes ACP uses. A handler chooses what the peer sees by returning an *Error (Errorf,
// ErrSessionNotFound, ErrInvalidParams); any other error is answered CodeInternalError
// with its text, an error after the request's context ended CodeRequestCancelled, and a
// panic in a handler CodeInternalError without ending the connection. A line that is not
// a valid message is answered (CodeParseError, CodeInvalidRequest) and skipped;
// ConnOptions.OnBadInput hears of it.
//
// # Extensions
//
// Methods whose names start with "_" are extensions. Send them with CallExtension and
// NotifyExtension from either side; serve them by implementing ExtensionHandler on the
// Agent or the Client (it also receives methods outside the protocol that real agents
// use, such as codex-acp's authentication/status). Unknown requests are answered
// CodeMethodNotFound, unknown notifications ignored. Custom data on protocol types goes
// in their Meta.
//
// The package speaks ProtocolVersion 1 and follows the stable v1 schema that
// testdata/schema holds; what is still open in its API is listed in
// docs/acp-rough-edges.md of its repository.
//
// The MarshalJSON and UnmarshalJSON methods of plain object types are generated into
// lossless_gen.go by ./internal/genlossless; unions write their own.
package acp

//go:generate go run ./internal/genlossless
