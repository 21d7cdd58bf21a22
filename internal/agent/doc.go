// Package agent is parley's own coding agent, served over ACP (`parley agent`): it runs a
// model on Ollama or an OpenAI-compatible server, gives it tools that act inside the
// session's workspace (through the client's fs/* and terminal/* when the client offers
// them), and reports every step as ACP session updates.
//
// The work is split the way the seed's executor was, so that each part stays small:
//
//	agent.go     the ACP side: sessions, MCP servers, prompt → executor, cancel
//	executor.go  the loop only: stream a reply, decide, run tools, feed results back, stop
//	stream.go    one model reply: thoughts and text to the client (throttled, gated,
//	             markup and the completion marker held back), tool calls collected
//	runner.go    one batch of tool calls: tool_call / tool_call_update reports, results
//	             in the history format of the path in use
//	env.go       where tools act: the client's fs/* and terminal/*, or this machine
//	prompt.go    the system prompt, with tool descriptions for the text fallback
//	loop.go      loop detection
//
// Approvals, command safety and checkpoints (the next issue) slot in as a Gate the tool
// runner consults before each call; today's Gate allows everything.
package agent
