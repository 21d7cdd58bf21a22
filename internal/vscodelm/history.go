package vscodelm

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/toolui"
)

// Matcher finds the conversation (ACP session) a chat request belongs to. VS Code sends
// the whole history with every request; the matcher keeps, per conversation, what the
// agent has seen (committed) and the exchange in flight (provisional: the user messages
// sent to the agent, then the answer streamed), and works out what is new. It is not safe
// for concurrent use: one owner (the request router) calls it.
//
// The rules (the package comment explains why):
//   - A conversation is a candidate when its committed history is a prefix of the
//     request. One whose committed history is empty must also have the request's first
//     user message (affinity), never just because it is empty.
//   - A candidate's session can take the request only if the request repeats every user
//     message its agent was sent (VS Code drops a cancelled or declined answer, never the
//     user's message) and adds at least one message after them: those are New.
//   - Among the candidates that can take it, the one that shares the longest history
//     with the request wins: its committed history, then as much of its provisional
//     exchange as the request repeats. Among equals, one whose whole provisional
//     exchange is repeated wins, then the most recently used.
//   - When none can (a regenerate, a second chat opened with the same first message, an
//     edited message: the session has seen the message, or one it replaces), the request
//     starts a new conversation whose agent is given the earlier turns as context.
//   - Text that parley synthesised for display is not part of the match key, and
//     assistant text compares with whitespace collapsed, so a consumer that trims or drops
//     it still matches. The assistant text parley streams is made visible (an invisible
//     or control character is sent as <U+XXXX>, toolui.SafeText), and the client echoes
//     that; assistant text also compares made visible on both sides, so an echo that
//     holds such a character raw, or a joiner judged without the text after it when it
//     streamed, still matches. tool_call and tool_result parts compare by id and payload, with
//     "$mid" members ignored and null parameters equal to {}.
//
// Cost: a request is compared message by message against the stored history with plain
// string and byte equality (the stored copies are the client's own echo, so they are
// normally identical); the lenient comparison runs only for messages that differ.
type Matcher struct {
	conversations map[AgentKey][]*Conversation // least recently used first
	started       int
}

// NewMatcher returns an empty Matcher.
func NewMatcher() *Matcher {
	return &Matcher{conversations: map[AgentKey][]*Conversation{}}
}

// Conversation is the history state of one ACP session.
type Conversation struct {
	// ID names the conversation in logs ("c1", "c2", ...).
	ID string

	m           *Matcher
	key         AgentKey
	committed   []Message // acknowledged by the client; what the agent has seen
	keys        []string  // lenient match keys of committed, computed on demand
	provisional []Message // the exchange in flight: user message(s), then parts streamed
	first       Message   // the first user message, for affinity
	firstKey    string    // its lenient match key
	display     []string  // display text parley emitted, trimmed and made visible
}

// Match is the result of Matcher.Match.
type Match struct {
	// Conversation is the matched conversation; nil means start a new one (Matcher.Start).
	Conversation *Conversation
	// New is the part of the history the agent has not seen: what it is prompted with.
	New []Message
	// Context is the request before New. A session that has not seen it (a new
	// conversation, or one whose agent restarted) is given it as context.
	Context []Message
	// Cancelled reports that the request does not repeat the provisional exchange's
	// answer: it was cancelled, declined or replaced.
	Cancelled bool
	// Shared is how many messages of the request the conversation already had.
	Shared int

	echo []Message // the request's copy of what it shares with the provisional exchange
}

// Match finds the conversation that messages continue. It does not change any state.
func (m *Matcher) Match(key AgentKey, messages []Message) Match {
	messages = normalizeAll(messages)
	var best Match
	found := false
	req := &request{messages: messages, first: slices.IndexFunc(messages, func(m Message) bool { return m.Role == RoleUser })}
	convs := m.conversations[key]
	for i := len(convs) - 1; i >= 0; i-- { // most recently used first: it wins ties
		mt, takes := convs[i].match(req)
		if takes && (!found || mt.Shared > best.Shared || mt.Shared == best.Shared && best.Cancelled && !mt.Cancelled) {
			best, found = mt, true
		}
	}
	if found {
		return best
	}
	split := len(messages)
	for split > 0 && messages[split-1].Role != RoleAssistant {
		split--
	}
	return Match{Context: messages[:split], New: messages[split:]}
}

// Start creates the conversation for a Match without one: the agent is given Context
// and prompted with New. Context counts as committed.
func (m *Matcher) Start(key AgentKey, mt Match) *Conversation {
	m.started++
	c := &Conversation{ID: fmt.Sprintf("c%d", m.started), m: m, key: key}
	c.committed = append([]Message(nil), mt.Context...)
	c.provisional = append([]Message(nil), mt.New...)
	for _, msg := range append(mt.Context[:len(mt.Context):len(mt.Context)], mt.New...) {
		if msg.Role == RoleUser {
			c.first = msg
			break
		}
	}
	c.firstKey = c.matchKey(c.first)
	m.conversations[key] = append(m.conversations[key], c)
	return c
}

// Remove forgets c, when its session is closed.
func (m *Matcher) Remove(c *Conversation) {
	convs := m.conversations[c.key]
	for i, x := range convs {
		if x == c {
			convs = append(convs[:i], convs[i+1:]...)
			break
		}
	}
	if len(convs) == 0 {
		delete(m.conversations, c.key)
	} else {
		m.conversations[c.key] = convs
	}
}

// Commit adopts a request matched to c: what it repeats of the provisional exchange
// becomes committed (as the client echoed it; an answer it dropped is gone), and New
// becomes the new provisional exchange. It also makes c the most recently used
// conversation.
func (c *Conversation) Commit(mt Match) {
	c.committed = append(c.committed, mt.echo...)
	c.provisional = append([]Message(nil), mt.New...)
	convs := c.m.conversations[c.key]
	for i, x := range convs {
		if x == c {
			copy(convs[i:], convs[i+1:])
			convs[len(convs)-1] = c
			break
		}
	}
}

// AnswerPart is one part streamed in answer to a request. Display marks text parley
// made up for display (tool-call Markdown), which is not part of the match key.
type AnswerPart struct {
	Part    ContentPart
	Display bool
}

// Record adds the answer streamed in the current exchange to the provisional history,
// normalised as the client will echo it.
func (c *Conversation) Record(answer []AnswerPart) {
	for _, a := range answer {
		if a.Display && a.Part.Type == PartText {
			if t := strings.TrimSpace(toolui.SafeText(a.Part.Value)); t != "" {
				c.display = append(c.display, t)
			}
		}
		n := len(c.provisional)
		if n == 0 || c.provisional[n-1].Role != RoleAssistant {
			c.provisional = append(c.provisional, Message{Role: RoleAssistant})
			n++
		}
		c.provisional[n-1].Content = append(c.provisional[n-1].Content, a.Part)
	}
	if n := len(c.provisional); n > 0 {
		c.provisional[n-1] = normalize(c.provisional[n-1])
	}
}

// Committed and Provisional return the state, for tests.
func (c *Conversation) Committed() []Message   { return c.committed }
func (c *Conversation) Provisional() []Message { return c.provisional }

// match compares messages with c's committed history, then with as much of its
// provisional exchange as they repeat, and reports whether c's session can take the
// request (see Matcher).
func (c *Conversation) match(req *request) (mt Match, takes bool) {
	messages := req.messages
	if len(c.committed) == 0 && !c.hasFirst(req) {
		return Match{}, false
	}
	keys := func(i int) *string {
		for len(c.keys) < len(c.committed) {
			c.keys = append(c.keys, "\x00") // not yet computed
		}
		if c.keys[i] == "\x00" {
			c.keys[i] = c.matchKey(c.committed[i])
		}
		return &c.keys[i]
	}
	i, k := c.walk(req, 0, c.committed, keys)
	if k < len(c.committed) {
		return Match{}, false
	}
	j, k := c.walk(req, i, c.provisional, nil)
	mt = Match{
		Conversation: c, New: messages[j:], Context: messages[:j], Shared: j,
		Cancelled: k < len(c.provisional), echo: messages[i:j],
	}
	unseen := slices.ContainsFunc(c.provisional[k:], func(m Message) bool { return m.Role == RoleUser })
	fresh := slices.ContainsFunc(mt.New, func(m Message) bool { return m.Role == RoleUser })
	return mt, !unseen && fresh
}

// walk matches stored against messages[from:] for as long as they agree, skipping
// messages whose match key is empty (display-only assistant messages) on either side. It
// returns the index in messages after the match and how many stored messages matched.
func (c *Conversation) walk(req *request, from int, stored []Message, key func(int) *string) (int, int) {
	messages := req.messages
	i, j := from, 0
	for j < len(stored) {
		if i < len(messages) && equalExact(messages[i], stored[j]) {
			i, j = i+1, j+1
			continue
		}
		var sk string
		if key != nil {
			sk = *key(j)
		} else {
			sk = c.matchKey(stored[j])
		}
		if sk == "" {
			j++
			continue
		}
		if i >= len(messages) {
			return i, j
		}
		mk := c.requestKey(req, i)
		switch {
		case mk == sk:
			i, j = i+1, j+1
		case mk == "":
			i++
		default:
			return i, j
		}
	}
	// Trailing display-only messages of the echo belong to the matched part.
	for i < len(messages) && messages[i].Role == RoleAssistant && c.matchKey(messages[i]) == "" {
		i++
	}
	return i, j
}

// request is a request being matched, with what is worked out once for every
// conversation it is compared with: where its first user message is (-1: none), and the
// lenient keys of its user messages (a user message's key is the same in every
// conversation; an assistant message's depends on the display text each one made).
type request struct {
	messages []Message
	first    int
	keys     []string // "\x00": not yet computed (as Conversation.keys)
}

// requestKey is the lenient key of the request's message i.
func (c *Conversation) requestKey(req *request, i int) string {
	msg := req.messages[i]
	if msg.Role != RoleUser {
		return c.matchKey(msg)
	}
	if req.keys == nil {
		req.keys = make([]string, len(req.messages))
		for k := range req.keys {
			req.keys[k] = "\x00"
		}
	}
	if req.keys[i] == "\x00" {
		req.keys[i] = c.matchKey(msg)
	}
	return req.keys[i]
}

// hasFirst reports whether the request's first user message is c's (affinity).
func (c *Conversation) hasFirst(req *request) bool {
	if req.first < 0 {
		return false
	}
	return equalExact(req.messages[req.first], c.first) || c.requestKey(req, req.first) == c.firstKey
}

func equalExact(a, b Message) bool {
	if a.Role != b.Role || len(a.Content) != len(b.Content) {
		return false
	}
	for k := range a.Content {
		p, q := &a.Content[k], &b.Content[k]
		if p.Type != q.Type || p.Value != q.Value || p.ToolCallID != q.ToolCallID || p.ToolName != q.ToolName ||
			!bytes.Equal(p.Parameters, q.Parameters) || !bytes.Equal(p.Result, q.Result) {
			return false
		}
	}
	return true
}

// matchKey is the lenient identity of a message; "" for an assistant message that holds
// nothing but display text.
func (c *Conversation) matchKey(msg Message) string {
	var b strings.Builder
	for _, p := range normalize(msg).Content {
		switch p.Type {
		case PartText:
			if msg.Role != RoleAssistant {
				b.WriteString("t\x00" + p.Value + "\x01")
				continue
			}
			text := toolui.SafeText(p.Value)
			for _, d := range c.display {
				if strings.Contains(text, d) {
					text = strings.ReplaceAll(text, d, " ")
				}
			}
			if t := strings.Join(strings.Fields(text), " "); t != "" {
				b.WriteString("t\x00" + t + "\x01")
			}
		case PartToolCall:
			b.WriteString("c\x00" + p.ToolCallID + "\x00" + p.ToolName + "\x00" + canonicalJSON(p.Parameters, true) + "\x01")
		case PartToolResult:
			b.WriteString("r\x00" + p.ToolCallID + "\x00" + canonicalJSON(p.Result, false) + "\x01")
		}
	}
	if b.Len() == 0 && msg.Role == RoleAssistant {
		return ""
	}
	return msg.Role + "\x02" + b.String()
}

// canonicalJSON re-encodes v with sorted keys and without VS Code's "$mid" members;
// null and absent parameters are {}.
func canonicalJSON(raw json.RawMessage, params bool) string {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		if params {
			return "{}"
		}
		return "null"
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	out, err := json.Marshal(json.WithoutMember(v, "$mid"))
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// normalizeAll joins consecutive text parts in every message, copying only messages that
// change.
func normalizeAll(messages []Message) []Message {
	var out []Message
	for i, msg := range messages {
		if !needsJoin(msg) {
			if out != nil {
				out = append(out, msg)
			}
			continue
		}
		if out == nil {
			out = append(make([]Message, 0, len(messages)), messages[:i]...)
		}
		out = append(out, normalize(msg))
	}
	if out == nil {
		return messages
	}
	return out
}

func needsJoin(msg Message) bool {
	for k := 1; k < len(msg.Content); k++ {
		if msg.Content[k].Type == PartText && msg.Content[k-1].Type == PartText {
			return true
		}
	}
	return false
}

// normalize joins consecutive text parts of msg by plain concatenation. A run of parts
// is joined in one buffer: a streamed answer has thousands.
func normalize(msg Message) Message {
	if !needsJoin(msg) {
		return msg
	}
	parts := make([]ContentPart, 0, len(msg.Content))
	for i := 0; i < len(msg.Content); {
		p, j := msg.Content[i], i+1
		if p.Type == PartText {
			var joined strings.Builder
			joined.WriteString(p.Value)
			for ; j < len(msg.Content) && msg.Content[j].Type == PartText; j++ {
				joined.WriteString(msg.Content[j].Value)
			}
			p.Value = joined.String()
		}
		parts = append(parts, p)
		i = j
	}
	return Message{Role: msg.Role, Content: parts}
}
