package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/vscodelm"
)

// Golden DOCTOR replies in deterministic mode (internal/eliza/doctor_script.go): the
// keyword "alike" cycles through these, starting at the first in every fresh session.
const alike = "Men are all alike."

var alikeReplies = []string{
	"In what way?",
	"What resemblance do you see?",
	"What does that similarity suggest to you?",
	"What other connections do you see?",
	"What do you suppose that resemblance means?",
	"What is the connection, do you suppose?",
	"Could there really be some connection?",
	"How?",
}

// isAlikeReply reports whether text holds one of the replies to alike, i.e. answers it.
func isAlikeReply(text string) bool {
	return slices.ContainsFunc(alikeReplies, func(r string) bool { return strings.Contains(text, r) })
}

// ticks is a `slowly` argument of n distinct words: n×20 ms of streaming, and words no
// other reply contains.
func ticks(prefix string, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("%s%02d", prefix, i+1)
	}
	return strings.Join(words, " ")
}

func wantCancelled(t *testing.T, err *rpcError) {
	t.Helper()
	if !strings.Contains(strings.ToLower(err.Message), "cancelled") {
		t.Errorf("cancel error message %q does not contain \"cancelled\" (the client maps only such errors to CancellationError)", err.Message)
	}
}

// S1: one user message → text parts, lm/responseComplete, {} (the frame checks), golden text.
func TestSingleTurn(t *testing.T) {
	forEachShape(t, func(t *testing.T, agent json.RawMessage) {
		c := start(t)
		parts := c.OK(c.conversation(agent).Send(user(alike)))
		if len(parts) == 0 {
			t.Fatal("no lm/responsePart before the result")
		}
		for _, p := range parts {
			if p.Type != vscodelm.PartText {
				t.Errorf("part of type %q, want only text", p.Type)
			}
		}
		if got := strings.TrimSpace(textOf(parts)); got != alikeReplies[0] {
			t.Errorf("reply %q, want %q", got, alikeReplies[0])
		}
	})
}

// S2: [U1, A1, U2] continues the ACP session: the DOCTOR's per-session cycle moves on,
// while a fresh conversation with the same input starts the cycle again.
func TestMultiTurnContinuesTheSession(t *testing.T) {
	forEachShape(t, func(t *testing.T, agent json.RawMessage) {
		c := start(t)
		cv := c.conversation(agent)
		if got := strings.TrimSpace(cv.Turn(alike)); got != alikeReplies[0] {
			t.Fatalf("turn 1: %q, want %q", got, alikeReplies[0])
		}
		if got := strings.TrimSpace(cv.Turn(alike)); got != alikeReplies[1] {
			t.Fatalf("turn 2 (the same input in the same session): %q, want %q", got, alikeReplies[1])
		}
		if got := strings.TrimSpace(cv.Turn(alike)); got != alikeReplies[2] {
			t.Fatalf("turn 3: %q, want %q", got, alikeReplies[2])
		}
		fresh := c.conversation(agent)
		if got := strings.TrimSpace(fresh.Turn(alike)); got != alikeReplies[0] {
			t.Errorf("a fresh conversation: %q, want %q (it must get a session of its own)", got, alikeReplies[0])
		}
	})
}

// M1: the last user message edited after its reply → the provisional exchange is cancelled
// and the edited message answered.
func TestEditedLastMessageIsAnswered(t *testing.T) {
	c := start(t)
	cv := c.conversation(elizaTagged())
	cv.Turn(alike)
	first := cv.Turn("slowly " + ticks("orig", 3))
	if !strings.Contains(first, "orig03") {
		t.Fatalf("turn 2: %q, want the slowly words", first)
	}
	cv.DropLast(2) // the edited user message and the reply to it
	got := cv.Turn(alike)
	if !isAlikeReply(got) || strings.Contains(got, "orig") {
		t.Errorf("reply to the edited message: %q, want an answer to %q and nothing of the replaced exchange", got, alike)
	}
	// The conversation goes on from the edit.
	if got := cv.Turn("slowly " + ticks("next", 3)); strings.TrimSpace(got) != ticks("next", 3) {
		t.Errorf("turn after the edit: %q, want %q", got, ticks("next", 3))
	}
}

// K1, M3: two conversations with different first messages, both brand new and sent
// together, then interleaved; replies never cross and cancelling one leaves the other.
func TestInterleavedConversationsNeverCross(t *testing.T) {
	c := start(t)
	x, y := c.conversation(elizaTagged()), c.conversation(elizaTagged())

	xid, yid := x.Send(user("slowly "+ticks("x", 6))), y.Send(user("slowly "+ticks("y", 6)))
	xp, yp := c.OK(xid), c.OK(yid)
	if got := strings.TrimSpace(textOf(xp)); got != ticks("x", 6) {
		t.Errorf("new conversation x: %q, want %q", got, ticks("x", 6))
	}
	if got := strings.TrimSpace(textOf(yp)); got != ticks("y", 6) {
		t.Errorf("new conversation y: %q, want %q", got, ticks("y", 6))
	}
	x.Record(xp)
	y.Record(yp)

	// Each conversation has its own DOCTOR: both start the alike cycle, both move it on.
	for round, want := range alikeReplies[:2] {
		xid, yid := x.Send(user(alike)), y.Send(user(alike))
		xp, yp := c.OK(xid), c.OK(yid)
		x.Record(xp)
		y.Record(yp)
		if got := strings.TrimSpace(textOf(xp)); got != want {
			t.Errorf("round %d, conversation x: %q, want %q", round+1, got, want)
		}
		if got := strings.TrimSpace(textOf(yp)); got != want {
			t.Errorf("round %d, conversation y: %q, want %q", round+1, got, want)
		}
	}

	xid, yid = x.Send(user("slowly "+ticks("xx", 100))), y.Send(user("slowly "+ticks("yy", 10)))
	c.WaitParts(xid, 1)
	c.Cancel(xid)
	wantCancelled(t, c.Fails(xid, -32800))
	if got := strings.TrimSpace(textOf(c.OK(yid))); got != ticks("yy", 10) {
		t.Errorf("y while x was cancelled: %q, want %q", got, ticks("yy", 10))
	}
}

// C2, C5, C6: lm/cancel while streaming → -32800 "cancelled"; the next turn of the
// conversation gets its own answer and nothing of the cancelled one; a cancel of an
// unknown or answered id is ignored.
func TestCancelWhileStreaming(t *testing.T) {
	forEachShape(t, func(t *testing.T, agent json.RawMessage) {
		c := start(t)
		cv := c.conversation(agent)
		id := cv.Send(user("slowly " + ticks("tick", 100)))
		c.WaitParts(id, 1)
		c.Cancel(id)
		wantCancelled(t, c.Fails(id, -32800))
		parts, _, _ := c.Await(id)
		cv.Record(parts) // VS Code keeps what it showed

		got := cv.Turn(alike)
		if !isAlikeReply(got) || strings.Contains(got, "tick") {
			t.Errorf("turn after the cancel: %q, want an answer to %q without late words of the cancelled turn", got, alike)
		}

		c.Cancel(id)   // already answered
		c.Cancel(9999) // never sent
		if _, result, err := c.Await(c.Request("lm/provideTokenCount", vscodelm.TokenCountParams{ModelID: "eliza", Text: "abcd"})); err != nil {
			t.Errorf("token count after stray cancels: %v", err)
		} else if string(result) != "1" {
			t.Errorf("token count after stray cancels: %s, want 1", result)
		}
	})
}

// One open request per session: a request that continues a conversation whose
// answer is still streaming answers that one with -32800 and is served itself. A request
// the streaming session cannot take (an edit of, or the same as, the message being
// answered) gets a session of its own and leaves the streaming one alone.
func TestSecondRequestSupersedesTheStreamingOne(t *testing.T) {
	t.Run("continued", func(t *testing.T) {
		c := start(t)
		cv := c.conversation(elizaTagged())
		cv.Turn(alike)
		first := cv.Send(user("slowly " + ticks("tick", 100)))
		c.WaitParts(first, 1)
		second := cv.Send(user(alike)) // [..., U1, U2]: the client dropped the unfinished answer
		wantCancelled(t, c.Fails(first, -32800))
		if got := strings.TrimSpace(textOf(c.OK(second))); got != alikeReplies[1] {
			t.Errorf("superseding request: %q, want exactly %q (the same session, nothing of the superseded turn)", got, alikeReplies[1])
		}
	})
	t.Run("edited", func(t *testing.T) {
		c := start(t)
		cv := c.conversation(elizaTagged())
		cv.Turn(alike)
		first := cv.Send(user("slowly " + ticks("tick", 30)))
		c.WaitParts(first, 1)
		cv.DropLast(1)
		second := cv.Send(user(alike))
		got := textOf(c.OK(second))
		if !isAlikeReply(got) || strings.Contains(got, "tick") {
			t.Errorf("edited request: %q, want an answer to %q only", got, alike)
		}
		if got := strings.TrimSpace(textOf(c.OK(first))); got != ticks("tick", 30) {
			t.Errorf("the streaming request: %q, want it undisturbed: %q", got, ticks("tick", 30))
		}
	})
	t.Run("resent", func(t *testing.T) {
		c := start(t)
		cv := c.conversation(elizaTagged())
		cv.Turn(alike)
		first := cv.Send(user("slowly " + ticks("tick", 30)))
		c.WaitParts(first, 1)
		second := c.Chat(cv.Agent, cv.History, nil) // the same history again
		if got := textOf(c.OK(second)); strings.Count(got, ticks("tick", 30)) != 1 {
			t.Errorf("resent request: %q, want the words once, from a session of its own", got)
		}
		if got := strings.TrimSpace(textOf(c.OK(first))); got != ticks("tick", 30) {
			t.Errorf("the streaming request: %q, want it undisturbed: %q", got, ticks("tick", 30))
		}
	})
}

var agentActionSchema = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"kind":{"type":"string"},"raw_input":{"type":"object"}}}`)

func agentActionTool(name string) vscodelm.ToolDefinition {
	return vscodelm.ToolDefinition{Name: name, Description: "Request permission for an agent to execute an internal tool", InputSchema: agentActionSchema}
}

// Three tools with the schemas VS Code sends: a full one, {} without "type", none.
var threeTools = []vscodelm.ToolDefinition{
	{Name: "a", Description: "Tool A", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number"}}}`)},
	{Name: "b", Description: "Tool B", InputSchema: json.RawMessage(`{}`)},
	{Name: "c"},
}

// T1, T2: the tools of options.tools reach the agent as the MCP server vscode_tools; a
// call becomes a tool_call part, its tool_result resumes the turn; parallel calls come in
// one response and their results are routed by id.
func TestToolRoundTrip(t *testing.T) {
	tools := append(slices.Clone(threeTools), agentActionTool("parley-agent-action"))
	forEachShape(t, func(t *testing.T, agent json.RawMessage) {
		t.Run("list", func(t *testing.T) {
			c := start(t)
			got := c.conversation(agent, tools...).Turn("list tools from vscode_tools")
			// The listing succeeding at all means the schemas were acceptable MCP (object) schemas.
			var names []string
			for _, line := range strings.Split(got, "\n") {
				if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
					name, _, _ = strings.Cut(name, ":")
					names = append(names, name)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"a", "b", "c"}) {
				t.Errorf("vscode_tools lists %q, want a, b, c (the agent-action tool is not bridged):\n%s", names, got)
			}
			for _, want := range []string{"- a: Tool A", "- b: Tool B"} {
				if !strings.Contains(got, want) {
					t.Errorf("listing lacks %q:\n%s", want, got)
				}
			}
		})
		t.Run("one call", func(t *testing.T) {
			c := start(t)
			cv := c.conversation(agent, tools...)
			parts := c.OK(cv.Send(user(`use tool vscode_tools::a with {"x":1}`)))
			calls := toolCalls(parts)
			if len(calls) != 1 {
				t.Fatalf("got %d tool_call parts, want 1: %+v", len(calls), parts)
			}
			call := calls[0]
			if call.ToolName != "a" || call.ToolCallID == "" || !jsonEqual(call.Parameters, []byte(`{"x":1}`)) {
				t.Errorf("tool_call %+v (parameters %s), want tool a with {\"x\":1} and an id", call, call.Parameters)
			}
			cv.Record(parts)
			got := textOf(c.OK(cv.Send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{toolResult(call.ToolCallID, "42")}})))
			if !strings.Contains(got, "OK: 42") {
				t.Errorf("reply after the tool result: %q, want it to contain \"OK: 42\"", got)
			}
		})
		t.Run("parallel calls", func(t *testing.T) {
			c := start(t)
			cv := c.conversation(agent, tools...)
			parts := c.OK(cv.Send(user("use tool vscode_tools::a with {\"x\":2}\nuse tool vscode_tools::b with {\"y\":\"z\"}")))
			calls := toolCalls(parts)
			if len(calls) != 2 {
				t.Fatalf("got %d tool_call parts in one response, want 2: %+v", len(calls), parts)
			}
			byName := map[string]vscodelm.ContentPart{}
			for _, call := range calls {
				byName[call.ToolName] = call
			}
			a, b := byName["a"], byName["b"]
			if a.ToolCallID == "" || b.ToolCallID == "" || a.ToolCallID == b.ToolCallID {
				t.Fatalf("tool calls %+v, want one for a and one for b with distinct ids", calls)
			}
			if !jsonEqual(a.Parameters, []byte(`{"x":2}`)) || !jsonEqual(b.Parameters, []byte(`{"y":"z"}`)) {
				t.Errorf("parameters a=%s b=%s, want {\"x\":2} and {\"y\":\"z\"}", a.Parameters, b.Parameters)
			}
			cv.Record(parts)
			results := vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{
				toolResult(b.ToolCallID, "beta"), toolResult(a.ToolCallID, "alpha"), // reverse order
			}}
			got := textOf(c.OK(cv.Send(results)))
			if !strings.Contains(got, "OK: alpha\nOK: beta") {
				t.Errorf("reply after both results: %q, want \"OK: alpha\\nOK: beta\" (results routed by id, reported in call order)", got)
			}
		})
	})
}

// P1–P4: session/request_permission as a tool_call of the agent-action tool.
func TestPermission(t *testing.T) {
	// ask sends "request permission deploy" offering tools and returns the agent-action call.
	ask := func(t *testing.T, cv *conversation, toolName string) vscodelm.ContentPart {
		t.Helper()
		parts := cv.C.OK(cv.Send(user("request permission deploy")))
		calls := toolCalls(parts)
		if len(calls) != 1 || calls[0].ToolName != toolName {
			t.Fatalf("tool calls %+v, want one of %s", calls, toolName)
		}
		var params map[string]json.RawMessage // raw_input may be null, but must be there
		err := json.Unmarshal(calls[0].Parameters, &params)
		_, hasRaw := params["raw_input"]
		if err != nil || !hasRaw || !jsonEqual(params["title"], []byte(`"deploy"`)) || !jsonEqual(params["kind"], []byte(`"execute"`)) {
			t.Errorf("parameters %s, want an object with kind \"execute\", title \"deploy\" and raw_input (%v)", calls[0].Parameters, err)
		}
		cv.Record(parts)
		return calls[0]
	}
	approve := func(t *testing.T, cv *conversation, call vscodelm.ContentPart) string {
		t.Helper()
		return textOf(cv.C.OK(cv.Send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{toolResult(call.ToolCallID, "Approved")}})))
	}

	forEachShape(t, func(t *testing.T, agent json.RawMessage) {
		t.Run("approve", func(t *testing.T) {
			c := start(t)
			cv := c.conversation(agent, agentActionTool("parley-agent-action"))
			if got := approve(t, cv, ask(t, cv, "parley-agent-action")); !strings.Contains(got, "permission: allow_once") {
				t.Errorf("after approval: %q, want \"permission: allow_once\"", got)
			}
		})
		t.Run("reject", func(t *testing.T) {
			c := start(t)
			cv := c.conversation(agent, agentActionTool("parley-agent-action"))
			ask(t, cv, "parley-agent-action")
			// A new message instead of the result: the agent gets reject_once, then
			// session/cancel (issue 3, item 6), so the rejected turn's own words are
			// dropped and the new message is answered.
			got := textOf(c.OK(cv.Send(user(alike))))
			if strings.Contains(got, "allow_once") || strings.Contains(got, "permission: cancelled") {
				t.Errorf("after rejection: %q; the request must be refused, never allowed", got)
			}
			if !isAlikeReply(got) {
				t.Errorf("after rejection: %q, want the new message %q answered", got, alike)
			}
		})
		t.Run("no agent-action tool", func(t *testing.T) {
			c := start(t)
			parts := c.OK(c.conversation(agent, threeTools...).Send(user("request permission deploy")))
			if calls := toolCalls(parts); len(calls) > 0 {
				t.Errorf("tool calls %+v, want none when the client offers no agent-action tool", calls)
			}
			if got := textOf(parts); !strings.Contains(got, "permission: reject_once") {
				t.Errorf("reply %q, want \"permission: reject_once\" (denied, never cancelled)", got)
			}
		})
		t.Run("symposium name", func(t *testing.T) {
			c := start(t)
			cv := c.conversation(agent, agentActionTool("symposium-agent-action"))
			if got := approve(t, cv, ask(t, cv, "symposium-agent-action")); !strings.Contains(got, "permission: allow_once") {
				t.Errorf("after approval: %q, want \"permission: allow_once\"", got)
			}
		})
		t.Run("both names offered", func(t *testing.T) {
			c := start(t)
			cv := c.conversation(agent, agentActionTool("symposium-agent-action"), agentActionTool("parley-agent-action"))
			if got := approve(t, cv, ask(t, cv, "parley-agent-action")); !strings.Contains(got, "permission: allow_once") {
				t.Errorf("after approval: %q, want \"permission: allow_once\"", got)
			}
		})
	})
}

// Q1: the token count is a bare integer.
func TestTokenCount(t *testing.T) {
	c := start(t)
	_, result, err := c.Await(c.Request("lm/provideTokenCount", vscodelm.TokenCountParams{ModelID: "eliza", Text: "Hello, world!"}))
	if err != nil {
		t.Fatal(err)
	}
	if idKey(result) != "3" {
		t.Errorf("token count result %s, want the bare integer 3", result)
	}
}

// The model list: one entry per agent, with the fields VS Code reads.
func TestModelInformation(t *testing.T) {
	c := start(t)
	for _, params := range []any{map[string]any{}, map[string]any{"silent": true}} {
		_, result, err := c.Await(c.Request("lm/provideLanguageModelChatInformation", params))
		if err != nil {
			t.Fatal(err)
		}
		var info struct {
			Models *[]struct {
				ID, Name, Family, Version       *string
				MaxInputTokens, MaxOutputTokens *int
				Capabilities                    *struct{ ToolCalling *bool }
			}
		}
		if err := json.Unmarshal(result, &info); err != nil || info.Models == nil || len(*info.Models) == 0 {
			t.Fatalf("result %s, want {models:[...]} with at least one model (%v)", result, err)
		}
		for i, m := range *info.Models {
			ok := m.ID != nil && *m.ID != "" && m.Name != nil && *m.Name != "" && m.Family != nil && m.Version != nil &&
				m.MaxInputTokens != nil && *m.MaxInputTokens > 0 && m.MaxOutputTokens != nil && *m.MaxOutputTokens > 0 &&
				m.Capabilities != nil && m.Capabilities.ToolCalling != nil
			if !ok {
				t.Errorf("model %d of %s lacks one of id, name, family, version, maxInputTokens, maxOutputTokens, capabilities.toolCalling", i, result)
			}
		}
	}
}

// U1, U2, X1–X3, X5: bad input is answered for that request only; the connection stays up.
func TestErrorsKeepTheConnection(t *testing.T) {
	c := start(t)
	tokenCountWorks := func(t *testing.T) {
		t.Helper()
		if _, result, err := c.Await(c.Request("lm/provideTokenCount", vscodelm.TokenCountParams{Text: "abcdefgh"})); err != nil || idKey(result) != "2" {
			t.Fatalf("the next request: result %s, error %v; want 2", result, err)
		}
	}
	t.Run("unknown method", func(t *testing.T) {
		c.Fails(c.Request("lm/noSuchMethod", map[string]any{}), -32601)
		tokenCountWorks(t)
	})
	t.Run("unknown notification", func(t *testing.T) {
		c.Write(`{"jsonrpc":"2.0","method":"lm/noSuchNotification","params":{}}`)
		tokenCountWorks(t) // and no answer to it: finish checks for stray responses
	})
	t.Run("malformed line", func(t *testing.T) {
		c.Write(`{"jsonrpc":"2.0","id":`)
		if err := c.AwaitNullID(); err.Code != -32700 {
			t.Errorf("malformed line: %v, want -32700 with id null", err)
		}
		tokenCountWorks(t)
	})
	t.Run("not a request", func(t *testing.T) {
		c.Write(`42`)
		if err := c.AwaitNullID(); err.Code != -32600 {
			t.Errorf("a bare number: %v, want -32600 with id null", err)
		}
		tokenCountWorks(t)
	})
	t.Run("empty lines and CRLF", func(t *testing.T) {
		c.Write("")
		c.Write("   ")
		id := c.NewID()
		c.Expect(id, "lm/provideTokenCount")
		c.Write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"lm/provideTokenCount","params":{"modelId":"eliza","text":"abcd"}}`+"\r", id))
		if _, result, err := c.Await(id); err != nil || idKey(result) != "1" {
			t.Errorf("CRLF-terminated request: result %s, error %v; want 1", result, err)
		}
	})
	t.Run("wrong param types", func(t *testing.T) {
		c.Fails(c.Request("lm/provideTokenCount", map[string]any{"modelId": "eliza", "text": 5}), -32602)
		tokenCountWorks(t)
	})
	t.Run("unknown part type", func(t *testing.T) {
		c.Fails(c.Request(chatMethod, map[string]any{
			"modelId":  "eliza",
			"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "image", "value": "x"}}}},
			"agent":    elizaTagged(),
			"options":  map[string]any{},
		}), -32602)
	})
	t.Run("bad agent shape", func(t *testing.T) {
		err := c.Fails(c.Chat(json.RawMessage(`{"foo":1}`), []vscodelm.Message{user(alike)}, nil), -32602)
		for _, shape := range []string{"eliza", "mcp_server", "command"} {
			if !strings.Contains(err.Message, shape) {
				t.Errorf("bad agent error %q does not name the accepted shape %q", err.Message, shape)
			}
		}
	})
	t.Run("a chat still works", func(t *testing.T) {
		if got := strings.TrimSpace(c.conversation(elizaTagged()).Turn(alike)); got != alikeReplies[0] {
			t.Errorf("chat after the errors: %q, want %q", got, alikeReplies[0])
		}
	})
}

// R1, R2: an agent that dies answers the open request with a readable -32000; the next
// request works.
func TestAgentCrash(t *testing.T) {
	readable := func(t *testing.T, err *rpcError) {
		t.Helper()
		t.Logf("agent failure reported as: %q", err.Message)
		if msg := strings.TrimSpace(err.Message); msg == "" || strings.HasPrefix(msg, "{") {
			t.Errorf("error message %q is not a readable sentence", err.Message)
		}
	}
	t.Run("exits at once", func(t *testing.T) {
		c := start(t)
		readable(t, c.Fails(c.Chat(flatAgent("crash", "Crash", "sh", "-c", "exit 3"), []vscodelm.Message{user(alike)}, nil), -32000))
		if got := strings.TrimSpace(c.conversation(elizaTagged()).Turn(alike)); got != alikeReplies[0] {
			t.Errorf("Eliza after the crash: %q, want %q", got, alikeReplies[0])
		}
	})
	t.Run("command missing", func(t *testing.T) {
		c := start(t)
		readable(t, c.Fails(c.Chat(flatAgent("none", "None", "/nonexistent/parley-test-agent"), []vscodelm.Message{user(alike)}, nil), -32000))
		if got := strings.TrimSpace(c.conversation(elizaTagged()).Turn(alike)); got != alikeReplies[0] {
			t.Errorf("Eliza after the failed spawn: %q, want %q", got, alikeReplies[0])
		}
	})
	t.Run("killed mid-turn", func(t *testing.T) {
		c := start(t)
		if len(parleyProcesses("")) == 0 {
			t.Skip("cannot see processes in /proc on this system")
		}
		cv := c.conversation(elizaFlat())
		cv.Turn(alike)
		id := cv.Send(user("slowly " + ticks("tick", 200)))
		c.WaitParts(id, 1)
		killed := 0
		for pid, ppid := range parleyProcesses("eliza") {
			if ppid == c.Cmd.Process.Pid {
				killProcess(pid) // the agent process our parley started
				killed++
			}
		}
		if killed == 0 {
			t.Fatalf("no `parley eliza` child of parley vscodelm (pid %d) found", c.Cmd.Process.Pid)
		}
		readable(t, c.Fails(id, -32000))
		cv.DropLast(1) // the failed message; the user asks something else
		if got := cv.Turn(alike); strings.TrimSpace(got) == "" {
			t.Error("the request after the crash got an empty reply; want the agent respawned")
		}
	})
}

// Invocation compatible with Symposium's client, which puts global flags before the subcommand.
func TestGlobalFlagsBeforeSubcommand(t *testing.T) {
	c := start(t, "--log", "debug", "vscodelm")
	if got := strings.TrimSpace(c.conversation(elizaTagged()).Turn(alike)); got != alikeReplies[0] {
		t.Errorf("reply %q, want %q", got, alikeReplies[0])
	}
}

// X6: closing stdin ends parley with status 0 and leaves no agent process behind.
func TestStdinCloseExits(t *testing.T) {
	c := start(t)
	c.conversation(elizaTagged()).Turn(alike)
	c.conversation(elizaFlat()).Turn(alike)
	if code := c.Close(); code != 0 {
		t.Errorf("parley vscodelm exited with status %d after stdin was closed; want 0", code)
	}
	if left := waitNoAgents(); len(left) > 0 {
		t.Errorf("processes outlive parley vscodelm: %v", left)
	}
}

// An idle conversation's session is closed and the agent process, left without
// sessions, ends; the conversation still goes on afterwards, in a new session that is
// given the earlier turns.
func TestIdleConversationsAreClosed(t *testing.T) {
	c := start(t, "vscodelm", "--idle-timeout", "100ms")
	cv := c.conversation(elizaTagged())
	first := cv.Turn("I am worried about my tests")
	if first == "" {
		t.Fatal("no reply")
	}
	if left := waitNoElizaChild(); len(left) > 0 {
		t.Fatalf("the idle agent is still running: %v", left)
	}
	if again := cv.Turn("I am worried about my tests"); again == "" {
		t.Error("the conversation did not go on after its session was closed")
	}
}

// waitNoElizaChild waits, under the hang guard, until no `parley eliza` process is left.
// Process exit has no event to wait on, so this polls /proc.
func waitNoElizaChild() map[int]int {
	deadline := time.Now().Add(*hangGuard)
	for {
		left := parleyProcesses("eliza")
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond) // polling the process table, not synchronising with parley
	}
}

// The agent's own activity: as Markdown shown once, then only status changes, for a
// client that renders only text; as structured parts for one that declared it renders
// them (capabilities.parts).
func TestAgentActivity(t *testing.T) {
	t.Run("markdown", func(t *testing.T) {
		c := start(t)
		parts := c.OK(c.conversation(elizaTagged()).Send(user("tool call Build the project")))
		text := textOf(parts)
		if n := strings.Count(text, "Build the project"); n < 1 || n > 3 {
			t.Errorf("the tool call shows %d times in %q; want it once, then short status lines", n, text)
		}
		if !strings.Contains(text, "completed") {
			t.Errorf("reply %q lacks the agent's own words", text)
		}
		for _, p := range parts {
			if p.Type != vscodelm.PartText {
				t.Errorf("a %s part for a client that renders only text", p.Type)
			}
		}
	})
	t.Run("structured", func(t *testing.T) {
		c := start(t)
		id := c.Request("lm/provideLanguageModelChatResponse", map[string]any{
			"modelId": "eliza", "agent": elizaTagged(),
			"messages":     []vscodelm.Message{user("think about it\ntool call Build the project")},
			"capabilities": map[string]any{"parts": []string{"thinking", "tool_invocation"}},
		})
		parts := c.OK(id)
		var thinking, invocations int
		var last map[string]any
		for _, p := range parts {
			switch p.Type {
			case "thinking":
				thinking++
			case "tool_invocation":
				invocations++
				json.Unmarshal(p.Raw, &last)
			}
		}
		if thinking == 0 || invocations < 2 {
			t.Fatalf("%d thinking and %d tool_invocation parts; want the thought and the call's states", thinking, invocations)
		}
		if last["toolCallId"] == nil || last["state"] != "completed" || last["pastTenseMessage"] == nil {
			t.Errorf("the last tool_invocation part is %v; want the completed call with its past-tense message", last)
		}
	})
}

// An agent that speaks only stdio MCP gets vscode_tools through `parley mcp-shim`.
func TestToolRoundTripThroughTheStdioShim(t *testing.T) {
	agent := flatAgent("eliza-stdio", "Eliza (stdio MCP)", parleyBin, "eliza", "--deterministic", "--stdio-mcp-only")
	c := start(t)
	cv := c.conversation(agent, threeTools...)
	parts := c.OK(cv.Send(user(`use tool vscode_tools::b with {"y":2}`)))
	calls := toolCalls(parts)
	if len(calls) != 1 || calls[0].ToolName != "b" {
		t.Fatalf("tool calls %+v, want one call of b", calls)
	}
	cv.Record(parts)
	got := textOf(c.OK(cv.Send(vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{toolResult(calls[0].ToolCallID, "via the shim")}})))
	if !strings.Contains(got, "OK: via the shim") {
		t.Errorf("reply %q, want the tool's result", got)
	}
}
