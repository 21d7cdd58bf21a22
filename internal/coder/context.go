package coder

import (
	"hash/fnv"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

// conversation is a session's history as the model receives it, with what is needed to
// keep each request inside the window: the size of every message (the server's count,
// or an estimate) and that of the fixed part of every request, the system prompt and the
// tool definitions. The session's turn lock guards it.
type conversation struct {
	messages []llm.Message
	saved    int  // messages[:saved] are in the store
	rewrote  bool // compaction replaced messages the store holds: the next save starts afresh

	fixed    int    // the server's count of the system prompt and tools; 0: not counted
	fixedKey uint64 // which system prompt and tools fixed counts
}

// fixedPart is a request's system prompt and tools, as the counting sees them.
type fixedPart struct {
	key uint64
	raw float64
}

func newFixedPart(system string, tools []llm.Tool) fixedPart {
	h := fnv.New64a()
	h.Write([]byte(system))
	data, _ := json.Marshal(tools)
	h.Write(data)
	return fixedPart{key: h.Sum64(), raw: messageRaw(llm.Message{Role: "system", Content: system}) + toolsRaw(tools)}
}

// size is what a request of the fixed part and messages would take: the server's
// counts where known, calibrated estimates elsewhere. It is what usage_update reports.
func (c *conversation) size(fp fixedPart, messages []llm.Message, cal *calibration) int {
	known, unknown := c.parts(fp, messages, cal)
	return known + int(unknown+0.5)
}

// bound is size with a margin for the error of the estimates (and of counts shared out
// among several messages): what is checked against the budget, so that a request never
// exceeds it.
func (c *conversation) bound(fp fixedPart, messages []llm.Message, cal *calibration) int {
	known, unknown := c.parts(fp, messages, cal)
	return int(float64(known)*(1+knownMargin) + unknown*(1+cal.margin()) + 0.5)
}

// knownMargin covers the counts the agent derived: exact for a prompt as a whole, but
// shared among the messages it added in proportion to their estimates, and a chat
// template renders a message a little differently by its place.
const knownMargin = 0.02

// parts are the known tokens of a request and the estimate of the rest.
func (c *conversation) parts(fp fixedPart, messages []llm.Message, cal *calibration) (int, float64) {
	known, unknown := 0, 0.0
	if c.fixed > 0 && c.fixedKey == fp.key {
		known += c.fixed
	} else {
		unknown += fp.raw
	}
	for _, m := range messages {
		if m.Tokens > 0 {
			known += m.Tokens
		} else {
			unknown += messageRaw(m)
		}
	}
	return known, unknown * cal.ratio()
}

// messageSize is one message's size: its count, or its estimate.
func messageSize(m llm.Message, cal *calibration) int {
	if m.Tokens > 0 {
		return m.Tokens
	}
	return cal.estimate(messageRaw(m))
}

// observe learns from the server's count of a prompt made of the fixed part and
// c.messages[:sent]: what the messages already counted do not explain is shared among
// the others in proportion to their estimates, and calibrates the estimates. A count
// that cannot be right (a server that reports only what its cache did not hold, or a
// prompt it cut) is not learned from.
func (c *conversation) observe(fp fixedPart, sent, prompt int, cal *calibration) {
	if prompt <= 0 {
		return
	}
	known, unknownRaw := 0, 0.0
	fixedKnown := c.fixed > 0 && c.fixedKey == fp.key
	if fixedKnown {
		known += c.fixed
	} else {
		unknownRaw += fp.raw
	}
	for _, m := range c.messages[:sent] {
		if m.Tokens > 0 {
			known += m.Tokens
		} else {
			unknownRaw += messageRaw(m)
		}
	}
	rest := float64(prompt - known)
	if unknownRaw == 0 {
		return
	}
	ratio := rest / unknownRaw
	if ratio < 0.25 || ratio > 4 {
		return
	}
	// The system prompt and tools are mostly JSON and template text, whose ratio is not
	// that of the conversation (code, prose): a count that includes them teaches the
	// calibration nothing about the messages to come.
	if fixedKnown {
		cal.observe(unknownRaw, rest)
	}
	assigned := 0
	share := func(raw float64) int {
		n := max(int(raw*ratio+0.5), 1)
		assigned += n
		return n
	}
	if !fixedKnown {
		c.fixed, c.fixedKey = share(fp.raw), fp.key
	}
	last := -1
	for i := range c.messages[:sent] {
		if c.messages[i].Tokens == 0 {
			c.messages[i].Tokens = share(messageRaw(c.messages[i]))
			last = i
		}
	}
	// Rounding: the counts of a prompt add up to the server's.
	if d := int(rest) - assigned; last >= 0 && c.messages[last].Tokens+d > 0 {
		c.messages[last].Tokens += d
	}
}
