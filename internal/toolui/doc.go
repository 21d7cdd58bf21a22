// Package toolui shows a turn of an ACP agent, shared by every front-end (parley run and
// chat, the VS Code bridge, the terminal UI): three renderers of the events of a
// toolstate.Turn (text for a terminal, Markdown, JSON lines for scripts) and SafeText,
// the rule that makes an agent's text safe to show. The model the renderers draw, the
// state of each tool call folded from ACP session updates, is package toolstate.
//
// A front-end owns one Turn per prompt and one Renderer, and feeds every update through
// both, from the goroutine that receives the session's updates:
//
//	turn := toolstate.NewTurn(&toolstate.TurnOptions{Root: cwd})
//	r := toolui.NewTextRenderer(os.Stdout, &toolui.TextOptions{Color: tty, Live: tty, Width: cols})
//	// on session/update:
//	for _, ev := range turn.Apply(n.Update) { r.Render(ev) }
//	// on session/request_permission, before asking:
//	r.Render(turn.AwaitConfirmation(req)); r.Detach()
//	// once answered:
//	r.Render(turn.ResolveConfirmation(req.ToolCall.ToolCallID, resp.Outcome))
//	// on cancel: for _, ev := range turn.Cancel() { r.Render(ev) }
//	// when session/prompt returns:
//	r.EndTurn(resp.StopReason)
//
// # JSON events
//
// JSONEncoder writes one object per line. Members marked ? are left out when empty.
//
//	{"type":"text","text":"…","messageId"?:"…"}         a piece of the reply (Markdown)
//	{"type":"thought","text":"…","messageId"?:"…"}      a piece of the agent's reasoning
//	{"type":"plan","entries":[{"content","priority"?,"status"}]}   the whole plan
//	{"type":"tool_call", …the call…}                    a call started or changed
//	{"type":"permission", …the call…}                   a call waits for a decision, or (with
//	                                                    confirmation.outcome) one was decided
//	{"type":"usage","used":N,"size":N,"cost"?:{"amount","currency"}}
//	{"type":"other","kind":"current_mode_update","update":{…}}  as received
//	{"type":"unknown","kind":"…","update":{…}}          an update kind parley does not know
//	{"type":"stop","stopReason":"end_turn","usage"?:{"totalTokens","inputTokens","outputTokens",
//	  "thoughtTokens"?,"cachedReadTokens"?,"cachedWriteTokens"?}}   the end of the turn, with the
//	                                                    turn's usage when the agent reported it
//
// A call is its whole current state every time, so a script keeps the last object per
// id: "id", "state" (streaming, waiting_for_confirmation, executing, completed,
// cancelled), "isError"?, "outcome"? once it has ended (toolstate.Outcome: done, failed,
// refused_by_you, refused_by_rule, refused_by_always, no_one_to_ask, refused_by_parley,
// cancelled; a refused call never ran, whatever the agent reported of it),
// "outcomeText"? (the same in the words the other views show: "not run: refused (no one
// to ask)"), "title", "toolName"?, "kind", "rawKind"? (an unknown kind as
// sent), "status"? (the last wire status), "invocationMessage"?, "pastTenseMessage"?,
// "errorMessage"?, "terminalCommand"?, "terminals"?, "diffs"? ([{"path","added",
// "removed","new"?}], without the texts), "locations"? ([{"path","line"?}]), "content"?
// (the text content), "parentId"?, "presentation"?, and "confirmation"? ({"title",
// "message"?, "options":[{"optionId","name","kind"}], "outcome"?: the kind of the option
// chosen, "cancelled" or "unknown", "decidedBy"?}). Every permission request the agent
// sends is decided by one "permission" event with an outcome, whether a person was asked
// or not; its "decidedBy" says who decided: "user" (asked and answered), "rule" (a rule
// of the configuration), "always" (an "always" given earlier), "while_confined" (an
// "allow while confined" given earlier in the session), "yolo", "no_one_to_ask"
// (refused: it needed a question and there was no terminal to ask), "parley" (refused: it
// could not be decided safely), "client" (the front-end's own tools), "cancelled".
package toolui
