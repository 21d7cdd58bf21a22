// Package jsonrpc2 is the JSON-RPC 2.0 connection every role of parley speaks through: the
// ACP client and agent, the vscodelm backend and the MCP shim.
//
// A Conn is symmetric: either side may call, notify and answer. Its shape:
//
//	reader goroutine ──► ordered queue ──► dispatcher goroutine ──► notification handlers (in order)
//	      │                                        └──────────────► request handlers (one goroutine each)
//	      └─► $/cancel_request (pre-empted: cancels the handler's context at once)
//	callers / handlers ──► write buffer ──► writer goroutine (takes the buffer whole: a batch per write)
//
// Guarantees, and which channel gives them:
//   - Notifications are handled one at a time in arrival order. Requests are started in
//     arrival order, after the notifications that preceded them, and run concurrently.
//   - Response barrier: a response reaches its caller only after every notification that
//     arrived before it was handled. A call made from inside a notification handler is
//     exempt (it would otherwise wait for itself).
//   - Backpressure, not loss: the ordered queue is bounded; when it is full the reader stops
//     reading, so a fast peer is slowed by the pipe. Nothing is dropped. The bound is lifted
//     while a notification handler waits on a call of its own, so that call's response can
//     still be read.
//   - Every request is answered: by its handler's result or error, by -32800 when its
//     context was cancelled, and with -32700/-32600/-32601/-32602 for bad input. Every call
//     returns: with the response, with ErrClosed when the peer goes away, or with the
//     caller's context error.
//   - Bad input never ends the connection: a malformed or oversized line is answered and
//     reading goes on.
//
// Lines are newline-delimited JSON (see NewLineFramer); all JSON goes through internal/json.
package jsonrpc2
