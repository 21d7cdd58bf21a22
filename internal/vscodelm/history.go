package vscodelm

import (
	"bytes"
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// Matcher finds the conversation (ACP session) a chat request belongs to. VS Code sends
// the whole history with every request; the matcher keeps, per conversation, what the
// agent has seen (committed) and the exchange in flight (provisional), and works out what
// is new. It is not safe for concurrent use: one owner (the request router) calls it.
//
// Rules beyond the reference (§6–§8 of the protocol reference):
//   - Affinity: a conversation with empty committed history matches only a request
//     whose first user message is its own, never just because it is empty.
//   - Text that parley synthesised for display (Conversation.Emitted) is not part of the
//     match key, and assistant text compares with whitespace collapsed, so a consumer
//     that trims or drops it still matches. tool_call and tool_result parts compare by id
//     and payload, with "$mid" members ignored and null parameters equal to {}.
//   - Candidates are tried most recently used first; a continuing match beats one that
//     cancels the provisional exchange, and among cancelling matches the longest shared
//     history wins.
//
// Cost: a request is compared message by message against the stored history with plain
// string and byte equality (the stored copies are the client's own echo, so they are
// normally identical); the lenient comparison runs only for messages that differ.
type Matcher struct {
	conversations map[AgentKey][]*Conversation // least recently used first
}

// NewMatcher returns an empty Matcher.
func NewMatcher() *Matcher {
	return &Matcher{conversations: map[AgentKey][]*Conversation{}}
}

// Conversation is the history state of one ACP session.
type Conversation struct {
	m           *Matcher
	key         AgentKey
	committed   []Message // acknowledged by the client; what the agent has seen
	keys        []string  // lenient match keys of committed, computed on demand
	provisional []Message // the exchange in flight: user message(s), then parts streamed
	first       Message   // the first user message, for affinity
	display     []string  // display text parley emitted, trimmed
}

// Match is the result of Matcher.Match.
type Match struct {
	// Conversation is the matched conversation; nil means start a new one (Matcher.Start).
	Conversation *Conversation
	// New is the part of the history the agent has not seen.
	New []Message
	// Cancelled reports that the request supersedes the provisional exchange.
	Cancelled bool
	// Prior is, for a new conversation, the earlier turns to give the agent as context.
	Prior []Message

	echo    []Message // the request's copy of the provisional exchange, to commit
	matched int       // messages of the request that matched stored history
}

// Match finds the conversation that messages continue. It does not change any state.
func (m *Matcher) Match(key AgentKey, messages []Message) Match {
	messages = normalizeAll(messages)
	var best Match
	found := false
	convs := m.conversations[key]
	for i := len(convs) - 1; i >= 0; i-- {
		mt, ok := convs[i].match(messages)
		if !ok {
			continue
		}
		if !mt.Cancelled {
			return mt
		}
		if !found || mt.matched > best.matched {
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
	return Match{Prior: messages[:split], New: messages[split:]}
}

// Start creates the conversation for a Match without one: the agent is given Prior as
// context and New as its prompt. Prior counts as committed.
func (m *Matcher) Start(key AgentKey, mt Match) *Conversation {
	c := &Conversation{m: m, key: key}
	c.committed = append([]Message(nil), mt.Prior...)
	c.provisional = append([]Message(nil), mt.New...)
	for _, msg := range append(mt.Prior[:len(mt.Prior):len(mt.Prior)], mt.New...) {
		if msg.Role == RoleUser {
			c.first = msg
			break
		}
	}
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

// Commit adopts a request matched to c: a cancelled provisional exchange is discarded,
// a continued one becomes committed (as the client echoed it), and New becomes the new
// provisional exchange. It also makes c the most recently used conversation.
func (c *Conversation) Commit(mt Match) {
	if !mt.Cancelled {
		c.committed = append(c.committed, mt.echo...)
	}
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

// AppendProvisional records a part streamed to the client in the current exchange.
func (c *Conversation) AppendProvisional(p ContentPart) {
	n := len(c.provisional)
	if n == 0 || c.provisional[n-1].Role != RoleAssistant {
		c.provisional = append(c.provisional, Message{Role: RoleAssistant})
		n++
	}
	c.provisional[n-1].Content = append(c.provisional[n-1].Content, p)
}

// Emitted records and appends a text part that parley synthesised for display (such as
// tool-call Markdown), so that it is not part of the match key.
func (c *Conversation) Emitted(p ContentPart) {
	if p.Type == PartText {
		if t := strings.TrimSpace(p.Value); t != "" {
			c.display = append(c.display, t)
		}
	}
	c.AppendProvisional(p)
}

// Complete ends the streamed exchange: its parts are normalised as the client will echo
// them.
func (c *Conversation) Complete() {
	for i := range c.provisional {
		c.provisional[i] = normalize(c.provisional[i])
	}
}

// Committed and Provisional return the state, for the worker and for tests.
func (c *Conversation) Committed() []Message   { return c.committed }
func (c *Conversation) Provisional() []Message { return c.provisional }

// match compares messages with c's committed history, then with its provisional
// exchange.
func (c *Conversation) match(messages []Message) (Match, bool) {
	if len(c.committed) == 0 {
		// Affinity: the first user message must be ours.
		first := -1
		for i, msg := range messages {
			if msg.Role == RoleUser {
				first = i
				break
			}
		}
		if first < 0 || !c.same(messages[first], c.first) {
			return Match{}, false
		}
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
	i, ok := c.walk(messages, 0, c.committed, keys)
	if !ok {
		return Match{}, false
	}
	prov := normalizeAll(c.provisional)
	if j, ok := c.walk(messages, i, prov, nil); ok {
		return Match{Conversation: c, New: messages[j:], echo: messages[i:j], matched: j}, true
	}
	return Match{Conversation: c, New: messages[i:], Cancelled: true, matched: i}, true
}

// walk matches stored against messages[from:], skipping messages whose match key is
// empty (display-only assistant messages) on either side, and returns the index in
// messages after the match.
func (c *Conversation) walk(messages []Message, from int, stored []Message, key func(int) *string) (int, bool) {
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
			return 0, false
		}
		mk := c.matchKey(messages[i])
		switch {
		case mk == sk:
			i, j = i+1, j+1
		case mk == "":
			i++
		default:
			return 0, false
		}
	}
	// Trailing display-only messages of the echo belong to the matched part.
	for i < len(messages) && messages[i].Role == RoleAssistant && c.matchKey(messages[i]) == "" {
		i++
	}
	return i, true
}

func (c *Conversation) same(a, b Message) bool {
	return equalExact(a, b) || c.matchKey(a) == c.matchKey(b)
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
			text := p.Value
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

// normalize joins consecutive text parts of msg by plain concatenation.
func normalize(msg Message) Message {
	if !needsJoin(msg) {
		return msg
	}
	parts := make([]ContentPart, 0, len(msg.Content))
	for _, p := range msg.Content {
		if n := len(parts); n > 0 && p.Type == PartText && parts[n-1].Type == PartText {
			parts[n-1].Value += p.Value
			continue
		}
		parts = append(parts, p)
	}
	return Message{Role: msg.Role, Content: parts}
}
