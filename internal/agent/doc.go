// Package agent is parley's own coding agent, served over ACP (`parley agent`): it runs a
// model on Ollama or an OpenAI-compatible server, gives it tools that act inside the
// session's workspace (through the client's fs/* and terminal/* when the client offers
// them), and reports every step as ACP session updates.
//
// The work is split so that each part stays small and the loop stays thin:
//
//	agent.go     the ACP side: sessions, MCP servers, prompt → executor, cancel
//	executor.go  the loop only: stream a reply, decide, run tools, feed results back, stop
//	stream.go    one model reply: thoughts and text to the client (throttled, gated,
//	             markup and the completion marker held back), tool calls collected
//	runner.go    one batch of tool calls: tool_call / tool_call_update reports, results
//	             in the history format of the path in use
//	env.go       where tools act: the client's fs/* and terminal/*, or this machine
//	             (commands confined by a Sandbox where the kernel offers Landlock)
//	prompt.go    the system prompt, with tool descriptions for the text fallback
//	window.go    the model's context window: its size, Ollama's num_ctx and num_predict
//	tokens.go, context.go  each message's size: the server's counts, calibrated estimates
//	compact.go   the conversation kept inside the window: a summary the model writes
//	             replaces its older part (before a request that would not fit, or /compact)
//	cut.go       large tool output cut to a head and tail, with how to read the rest
//	loop.go      loop detection
//	guard.go     each call's tools.Guard: commands and edits judged, asked about, and
//	             every write kept in the turn's checkpoint
//	approval.go  the approver: what needs the user's word, the question through
//	             session/request_permission, the "always" answers it remembers
//	judge*.go    the approvals' view of internal/safety (command tiers, sensitive files)
//	checkpoint.go, undo.go  what each turn's writes replaced; undo, keep, the listing
//	commands.go  the slash commands /compact, /checkpoints, /undo, /keep
//	sessions.go, transcript.go  sessions kept in the store: session/list, load, resume
//
// Who decides: a critical command always asks; a remembered "reject" refuses; then a
// remembered "allow" or the auto-approve settings let a call through; everything else
// asks. A refusal is the tool's result, so the model reads why and takes another way;
// only a cancelled question ends the turn.
package agent
