package vscodelm

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/toolui"
)

var eliza = AgentKey{Kind: AgentEliza, Deterministic: true}

func user(parts ...ContentPart) Message      { return Message{Role: RoleUser, Content: parts} }
func assistant(parts ...ContentPart) Message { return Message{Role: RoleAssistant, Content: parts} }
func u(s string) Message                     { return user(TextPart(s)) }
func a(s string) Message                     { return assistant(TextPart(s)) }

func toolCall(id, name, params string) ContentPart {
	return ContentPart{Type: PartToolCall, ToolCallID: id, ToolName: name, Parameters: json.RawMessage(params)}
}

func toolResult(id, result string) ContentPart {
	return ContentPart{Type: PartToolResult, ToolCallID: id, Result: json.RawMessage(result)}
}

// turn runs one request through the matcher as the router and worker would, streaming
// reply (if any) and completing, and returns the match.
func turn(t testing.TB, m *Matcher, key AgentKey, history []Message, reply ...ContentPart) (Match, *Conversation) {
	t.Helper()
	mt := m.Match(key, history)
	c := mt.Conversation
	if c == nil {
		c = m.Start(key, mt)
	} else {
		c.Commit(mt)
	}
	record(c, reply...)
	return mt, c
}

// record adds an answer streamed to the client, as the router does when its worker
// reports the exchange.
func record(c *Conversation, parts ...ContentPart) {
	answer := make([]AnswerPart, len(parts))
	for i, p := range parts {
		answer[i] = AnswerPart{Part: p}
	}
	c.Record(answer)
}

// recordDisplay adds display text parley made up.
func recordDisplay(c *Conversation, text string) {
	c.Record([]AnswerPart{{Part: TextPart(text), Display: true}})
}

func TestSingleTurn(t *testing.T) {
	m := NewMatcher()
	mt, c := turn(t, m, eliza, []Message{u("Hello")}, TextPart("How do"), TextPart(" you do."))
	if mt.Conversation != nil || mt.Cancelled || len(mt.Context) != 0 {
		t.Errorf("first request: got %+v, want a new conversation without prior history", mt)
	}
	if diff := cmp.Diff([]Message{u("Hello")}, mt.New); diff != "" {
		t.Errorf("New (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Message{u("Hello"), a("How do you do.")}, c.Provisional()); diff != "" {
		t.Errorf("provisional after Complete (-want +got):\n%s", diff)
	}
}

func TestMultiTurnCommits(t *testing.T) {
	m := NewMatcher()
	_, c := turn(t, m, eliza, []Message{u("Hello")}, TextPart("Hi."))
	mt, c2 := turn(t, m, eliza, []Message{u("Hello"), a("Hi."), u("Bye")}, TextPart("Bye."))
	if c2 != c || mt.Cancelled {
		t.Fatalf("second request: conversation %p cancelled %v, want %p continued", c2, mt.Cancelled, c)
	}
	if diff := cmp.Diff([]Message{u("Bye")}, mt.New); diff != "" {
		t.Errorf("New (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Message{u("Hello"), a("Hi.")}, c.Committed()); diff != "" {
		t.Errorf("committed (-want +got):\n%s", diff)
	}
	mt, _ = turn(t, m, eliza, []Message{u("Hello"), a("Hi."), u("Bye"), a("Bye."), u("Again")})
	if mt.Conversation != c || mt.Cancelled || len(c.Committed()) != 4 {
		t.Errorf("third request: %+v, committed %d, want continuation with 4 committed", mt, len(c.Committed()))
	}
}

// An edited last message: the session has seen the message it replaces, so the request
// starts a new conversation given the earlier turns; so does a regenerate, whose
// question the session has seen too.
func TestEditAndRegenerateStartNewConversations(t *testing.T) {
	m := NewMatcher()
	turn(t, m, eliza, []Message{u("Hello")}, TextPart("Hi."))
	_, c := turn(t, m, eliza, []Message{u("Hello"), a("Hi."), u("Question")}, TextPart("Partial ans"))
	for name, req := range map[string][]Message{
		"edited":      {u("Hello"), a("Hi."), u("Better question")},
		"regenerated": {u("Hello"), a("Hi."), u("Question")},
	} {
		mt := m.Match(eliza, req)
		if mt.Conversation != nil {
			t.Errorf("%s: matched %s, want a new conversation", name, mt.Conversation.ID)
		}
		if diff := cmp.Diff(req[:2], mt.Context); diff != "" {
			t.Errorf("%s: Context (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(req[2:], mt.New); diff != "" {
			t.Errorf("%s: New (-want +got):\n%s", name, diff)
		}
	}
	// The conversation itself goes on untouched.
	if mt := m.Match(eliza, []Message{u("Hello"), a("Hi."), u("Question"), a("Partial ans"), u("More")}); mt.Conversation != c || mt.Cancelled {
		t.Errorf("the original conversation: %+v, want it continued", mt)
	}
}

// After a cancel or a decline, VS Code drops the answer but keeps the user's message; the
// session has seen that message, so it takes the request and gets only what follows.
func TestDroppedAnswerContinuesTheSession(t *testing.T) {
	m := NewMatcher()
	turn(t, m, eliza, []Message{u("Hello")}, TextPart("Hi."))
	_, c := turn(t, m, eliza, []Message{u("Hello"), a("Hi."), u("Read a.go")}, TextPart("Reading."), toolCall("c1", "read_file", `{"path":"a.go"}`))
	mt := m.Match(eliza, []Message{u("Hello"), a("Hi."), u("Read a.go"), u("Never mind")})
	if mt.Conversation != c || !mt.Cancelled {
		t.Fatalf("got %+v, want %s with its answer dropped", mt, c.ID)
	}
	if diff := cmp.Diff([]Message{u("Never mind")}, mt.New); diff != "" {
		t.Errorf("New (-want +got):\n%s", diff)
	}
	c.Commit(mt)
	if diff := cmp.Diff([]Message{u("Hello"), a("Hi."), u("Read a.go")}, c.Committed()); diff != "" {
		t.Errorf("committed (-want +got):\n%s", diff)
	}
}

func TestInterleavedConversationsNeverCross(t *testing.T) {
	m := NewMatcher()
	// Two brand-new chats with different first messages, both still empty-committed.
	_, c1 := turn(t, m, eliza, []Message{u("About cats")}, TextPart("Cats?"))
	mt, c2 := turn(t, m, eliza, []Message{u("About dogs")}, TextPart("Dogs?"))
	if mt.Conversation != nil || c1 == c2 {
		t.Fatalf("a new chat matched the empty-committed conversation: %+v", mt)
	}
	// An auxiliary request (e.g. a title) must not land in either.
	if mt := m.Match(eliza, []Message{u("Summarise this chat in 5 words")}); mt.Conversation != nil {
		t.Errorf("auxiliary request matched %p", mt.Conversation)
	}
	// Interleaved follow-ups continue their own conversations.
	mt, got := turn(t, m, eliza, []Message{u("About cats"), a("Cats?"), u("Yes")}, TextPart("Why?"))
	if got != c1 || mt.Cancelled {
		t.Errorf("cats follow-up: conversation %p cancelled %v, want %p", got, mt.Cancelled, c1)
	}
	mt, got = turn(t, m, eliza, []Message{u("About dogs"), a("Dogs?"), u("No")})
	if got != c2 || mt.Cancelled {
		t.Errorf("dogs follow-up: conversation %p cancelled %v, want %p", got, mt.Cancelled, c2)
	}
	// A different agent never shares conversations.
	other := AgentKey{Kind: AgentEliza}
	if mt := m.Match(other, []Message{u("About cats"), a("Cats?"), u("Yes"), a("Why?"), u("x")}); mt.Conversation != nil {
		t.Errorf("request for another agent matched %p", mt.Conversation)
	}
}

func TestRestartYieldsPrior(t *testing.T) {
	m := NewMatcher() // a fresh backend: nothing known
	history := []Message{u("Hello"), a("Hi."), u("Read a.go"),
		assistant(toolCall("c1", "read_file", `{"path":"a.go"}`)),
		user(toolResult("c1", `[{"value":"package a"}]`)), a("It is package a."), u("Thanks")}
	mt, c := turn(t, m, eliza, history)
	if mt.Conversation != nil {
		t.Fatalf("matched %p in an empty matcher", mt.Conversation)
	}
	if diff := cmp.Diff(history[:6], mt.Context); diff != "" {
		t.Errorf("Context (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(history[6:], mt.New); diff != "" {
		t.Errorf("New (-want +got):\n%s", diff)
	}
	// The next request continues the conversation started with that context.
	next := append(append([]Message(nil), history...), a("You're welcome."), u("Bye"))
	record(c, TextPart("You're welcome."))
	if mt := m.Match(eliza, next); mt.Conversation != c || mt.Cancelled || len(mt.New) != 1 {
		t.Errorf("after restart: %+v, want a continuation with one new message", mt)
	}
}

func TestToolEchoMatches(t *testing.T) {
	m := NewMatcher()
	_, c := turn(t, m, eliza, []Message{u("list")}, TextPart("Let me look."), toolCall("c1", "ls", "null"))
	// VS Code echoes {} for null parameters and adds $mid to parts and results.
	var echo []Message
	if err := json.Unmarshal([]byte(`[
		{"role":"user","content":[{"type":"text","value":"list"}]},
		{"role":"assistant","content":[{"type":"text","value":"Let me look.","$mid":21},
			{"type":"tool_call","toolCallId":"c1","toolName":"ls","parameters":{},"$mid":20}]},
		{"role":"user","content":[{"type":"tool_result","toolCallId":"c1","result":[{"$mid":22,"value":"a.go"}],"$mid":23}]}
	]`), &echo); err != nil {
		t.Fatal(err)
	}
	mt, _ := turn(t, m, eliza, echo, TextPart("Found a.go."))
	if mt.Conversation != c || mt.Cancelled {
		t.Fatalf("tool echo: conversation %p cancelled %v, want %p continued", mt.Conversation, mt.Cancelled, c)
	}
	if diff := cmp.Diff(echo[2:], mt.New); diff != "" {
		t.Errorf("New (-want +got):\n%s", diff)
	}
	// Re-serialized parameters with reordered keys still match.
	_, c = turn(t, m, eliza, []Message{u("read")}, toolCall("c2", "read", `{"path":"a","line":1}`))
	mt = m.Match(eliza, []Message{u("read"), assistant(toolCall("c2", "read", `{"line":1, "path":"a"}`)), user(toolResult("c2", `"x"`))})
	if mt.Conversation != c || mt.Cancelled {
		t.Errorf("reordered parameters: %+v", mt)
	}
}

func TestDisplayTextIsNotInTheMatchKey(t *testing.T) {
	m := NewMatcher()
	mt := m.Match(eliza, []Message{u("fix it")})
	c := m.Start(eliza, mt)
	c.Record([]AnswerPart{
		{Part: TextPart("Looking at the code.\n\n")},
		{Part: TextPart("🔧 **Read file** `a.go`\n\n"), Display: true},
		{Part: TextPart("Done: fixed.\n")},
		{Part: TextPart("✅ **Edit** `a.go`\n"), Display: true},
	})

	for name, echo := range map[string]Message{
		"verbatim":        a("Looking at the code.\n\n🔧 **Read file** `a.go`\n\nDone: fixed.\n✅ **Edit** `a.go`\n"),
		"trimmed":         a("Looking at the code.\n\n🔧 **Read file** `a.go`\n\nDone: fixed.\n✅ **Edit** `a.go`"),
		"display dropped": a("Looking at the code.\nDone: fixed."),
		"display altered": assistant(TextPart("Looking at the code."), TextPart("\n\n🔧 **Read file** `a.go`   \nDone: fixed.")),
	} {
		mt := m.Match(eliza, []Message{u("fix it"), echo, u("thanks")})
		if mt.Conversation != c || mt.Cancelled {
			t.Errorf("%s: conversation %p cancelled %v, want %p continued", name, mt.Conversation, mt.Cancelled, c)
		}
	}
	// Changing the agent's own words is a real mismatch (the session still takes it).
	if mt := m.Match(eliza, []Message{u("fix it"), a("Something else."), u("thanks")}); mt.Conversation != c || !mt.Cancelled {
		t.Errorf("changed answer: %+v, want cancelled", mt)
	}
}

func TestDisplayOnlyMessageDropped(t *testing.T) {
	m := NewMatcher()
	_, c := turn(t, m, eliza, []Message{u("go")})
	recordDisplay(c, "⏳ **Running** `make`")
	mt := m.Match(eliza, []Message{u("go"), u("and?")})
	if mt.Conversation != c || mt.Cancelled {
		t.Errorf("echo without the display-only answer: %+v, want continued", mt)
	}
}

// The conversation sharing the longest history wins, whatever was used last: B starts
// like A and got the same first answer, yet A's next request is A's.
func TestLongestHistoryWins(t *testing.T) {
	m := NewMatcher()
	_, ca := turn(t, m, eliza, []Message{u("Hi")}, TextPart("Hello."))
	turn(t, m, eliza, []Message{u("Hi"), a("Hello."), u("One")}, TextPart("1"))
	_, cb := turn(t, m, eliza, []Message{u("Hi")}, TextPart("Hello."))
	if cb == ca {
		t.Fatal("a second chat with the same first message took the first chat's session")
	}
	mt := m.Match(eliza, []Message{u("Hi"), a("Hello."), u("One"), a("1"), u("Two")})
	if mt.Conversation != ca || mt.Cancelled || mt.Shared != 4 {
		t.Errorf("A's request: %+v, want A (4 shared)", mt)
	}
	// Equal shares: the continuing match wins, then the most recently used.
	mt = m.Match(eliza, []Message{u("Hi"), a("Hello."), u("Other")})
	if mt.Conversation != cb || mt.Cancelled {
		t.Errorf("B's request: %+v, want B, which shares as much and continues", mt)
	}
}

// Two chats with the same history so far (a deterministic agent, the same ids): a request
// that one of them has already answered (its retry) and the other can continue goes to
// the one that can take it, whose agent has not seen the message.
func TestATakerBeatsALongerRetry(t *testing.T) {
	m := NewMatcher()
	first := []Message{u("ask"), assistant(toolCall("call-1", "act", `{}`))}
	_, ca := turn(t, m, eliza, first[:1], toolCall("call-1", "act", `{}`))
	turn(t, m, eliza, append(slices.Clone(first), u("go on")), TextPart("went on"))
	_, cb := turn(t, m, eliza, first[:1], toolCall("call-1", "act", `{}`))
	if cb == ca {
		t.Fatal("the second chat took the first chat's session")
	}
	mt := m.Match(eliza, append(slices.Clone(first), u("go on")))
	if mt.Conversation != cb || len(mt.New) != 1 {
		t.Errorf("got %+v, want B (A has seen \"go on\"; B can take it)", mt)
	}
}

func BenchmarkMatch10k(b *testing.B) {
	m := NewMatcher()
	var history []Message
	for i := range 5000 {
		history = append(history, u(fmt.Sprintf("question %d: %s", i, strings.Repeat("words ", 10))),
			a(fmt.Sprintf("answer %d: %s", i, strings.Repeat("reply ", 20))))
	}
	c := m.Start(eliza, Match{Context: history[:len(history)-2], New: history[len(history)-2 : len(history)-1]})
	record(c, history[len(history)-1].Content[0])
	// The request as decoded from the wire: fresh strings, the whole history plus 2.
	req := make([]Message, 0, len(history)+2)
	for _, msg := range history {
		req = append(req, Message{Role: strings.Clone(msg.Role), Content: []ContentPart{TextPart(strings.Clone(msg.Content[0].Value))}})
	}
	req = append(req, a("extra"), u("next question"))
	for b.Loop() {
		mt := m.Match(eliza, req)
		if mt.Conversation != c || mt.Cancelled || len(mt.New) != 2 {
			b.Fatalf("unexpected match %+v", mt.Cancelled)
		}
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("hi", "hello", "more", true, byte(0))
	f.Add("a", "a b", "", false, byte(3))
	f.Fuzz(func(t *testing.T, first, reply, next string, tool bool, shape byte) {
		m := NewMatcher()
		_, c := turn(t, m, eliza, []Message{u(first)}, TextPart(reply))
		if tool {
			record(c, toolCall("id", "t", "null"))
		}
		if shape&1 != 0 {
			recordDisplay(c, next)
		}
		req := append(append([]Message(nil), c.Committed()...), c.Provisional()...)
		req = append(req, user(TextPart(next), TextPart(reply)))
		mt := m.Match(eliza, req)
		if mt.Conversation != c || mt.Cancelled {
			t.Fatalf("exact extension: conversation %p cancelled %v, want %p continued", mt.Conversation, mt.Cancelled, c)
		}
		// Arbitrary histories never panic.
		m.Match(eliza, []Message{assistant(TextPart(reply)), user(), {Role: next}})
		m.Match(eliza, nil)
	})
}

// Issue 26, class 6: parley streams the agent's reply made visible (toolui.SafeStream),
// and VS Code echoes that as history. The next request matches the conversation whether
// the echo is that text, that text trimmed, or (from a client that kept the agent's
// characters) the raw text; and a joiner the stream kept at the end of a chunk, which the
// whole text would show, does not break the lenient comparison either.
func TestHiddenCharactersInTheReplyStillMatch(t *testing.T) {
	raw := []string{"Tags \U000E0041\U000E0042, ", "an override \u202egnp.exe, a C1 \u009b2J, ", "\U0001F469\u200d", "x  "}
	var st toolui.SafeStream
	var streamed []ContentPart
	var sent string
	for _, piece := range raw {
		safe := st.String(piece)
		streamed = append(streamed, TextPart(safe))
		sent += safe
	}
	for _, shown := range []string{"<U+E0041><U+E0042>", "<U+202E>gnp.exe", "<U+009B>2J", "\U0001F469\u200dx"} {
		if !strings.Contains(sent, shown) {
			t.Fatalf("the streamed reply %+q does not hold %+q", sent, shown)
		}
	}
	echoes := map[string]string{
		"as sent":          sent,
		"trimmed":          strings.TrimSpace(sent),
		"raw":              strings.Join(raw, ""),
		"raw, trimmed":     strings.TrimSpace(strings.Join(raw, "")),
		"joiner made safe": strings.TrimSpace(toolui.SafeText(strings.Join(raw, ""))),
	}
	for name, echo := range echoes {
		t.Run(name, func(t *testing.T) {
			m := NewMatcher()
			_, c := turn(t, m, eliza, []Message{u("Hello")}, streamed...)
			mt, c2 := turn(t, m, eliza, []Message{u("Hello"), a(echo), u("More")}, TextPart("Yes."))
			if c2 != c || mt.Cancelled {
				t.Fatalf("echo %+q: conversation %p cancelled %v, want %p continued", echo, c2, mt.Cancelled, c)
			}
			if diff := cmp.Diff([]Message{u("More")}, mt.New); diff != "" {
				t.Errorf("New (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkMatchAmong1000 is a request while a thousand chats are open, each a candidate:
// a new chat among one-turn chats (none with committed history, so each is compared with
// the request's first user message), and a chat's next turn among two-turn ones (each
// walks the request's history). A user message's lenient key is worked out once for all
// of them.
func BenchmarkMatchAmong1000(b *testing.B) {
	words := strings.Repeat("words ", 10)
	b.Run("new-chat", func(b *testing.B) {
		m := NewMatcher()
		for i := range 1000 {
			turn(b, m, eliza, []Message{u(fmt.Sprintf("chat %d: %s", i, words))}, TextPart("reply"))
		}
		req := []Message{u("a new chat: " + words)}
		for b.Loop() {
			if mt := m.Match(eliza, req); mt.Conversation != nil {
				b.Fatal("a new chat matched an open one")
			}
		}
	})
	b.Run("next-turn", func(b *testing.B) {
		m := NewMatcher()
		var last *Conversation
		var history []Message
		for i := range 1000 {
			first := []Message{u(fmt.Sprintf("chat %d: %s", i, words))}
			turn(b, m, eliza, first, TextPart("reply"))
			history = append(first, a("reply"), u("more "+words))
			_, last = turn(b, m, eliza, history, TextPart("more reply"))
		}
		req := append(slices.Clone(history), a("more reply"), u("and more"))
		for b.Loop() {
			if mt := m.Match(eliza, req); mt.Conversation != last || len(mt.New) != 1 {
				b.Fatalf("the next turn matched %v, new %d", mt.Conversation, len(mt.New))
			}
		}
	})
}
