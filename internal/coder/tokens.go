package coder

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

// Counting tokens without the model's tokenizer. The servers count every prompt they
// receive (Ollama's prompt_eval_count, OpenAI's usage.prompt_tokens), but only after
// the fact, and only for the whole prompt; the agent must know the size of a request
// before it sends it. So each message carries the server's count once one is known
// (llm.Message.Tokens, derived from the difference between two consecutive prompts),
// and a message not yet counted is estimated: a heuristic that follows how byte-pair
// encoders split code and prose, scaled by a ratio learned from the server's counts.

// rawTokens is the heuristic count of s: words split where camelCase or snake_case
// joins them, a long word in pieces of six letters, digits in pairs, punctuation in
// pairs, a run of blanks as one token (a single space before a word as none), each line
// break as one, and other characters (ideographs, emoji) one each.
func rawTokens(s string) float64 {
	n := 0.0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isLetter(r):
			j, parts, part := i, 0, 0
			prevLower := false
			for j < len(s) {
				r1, sz := utf8.DecodeRuneInString(s[j:])
				if !isLetter(r1) {
					break
				}
				if prevLower && unicode.IsUpper(r1) { // camelCase: a new part
					parts += (part + 9) / 10
					part = 0
				}
				part++
				prevLower = unicode.IsLower(r1)
				j += sz
			}
			n += float64(parts + (part+9)/10)
			i = j
		case r >= '0' && r <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			n += float64(j-i+1) / 2
			i = j
		case r == ' ' || r == '\t':
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j-i > 1 || r == '\t' || j == len(s) || !startsWord(s[j:]) {
				n++
			}
			i = j
		case r == '\n' || r == '\r':
			n++
			i += size
		case r < utf8.RuneSelf:
			j := i
			for j < len(s) && isPunct(s[j]) {
				j++
			}
			if j == i {
				j = i + 1
			}
			n += float64((j - i + 2) / 3)
			i = j
		default:
			n++
			i += size
		}
	}
	return n
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return unicode.IsLetter(r) && !unicode.Is(unicode.Han, r) && !unicode.Is(unicode.Hiragana, r) &&
		!unicode.Is(unicode.Katakana, r) && !unicode.Is(unicode.Hangul, r)
}

func startsWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isLetter(r)
}

func isPunct(b byte) bool {
	return b < utf8.RuneSelf && b > ' ' && !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9')
}

// Fixed costs, in raw tokens: the chat template's markers around each message, and an
// image (models take from about 256 to a few thousand; the server's count of the message
// replaces this once known).
const (
	messageOverhead = 4
	imageRaw        = 768
)

// messageRaw is the heuristic size of a message as a chat template renders it.
func messageRaw(m llm.Message) float64 {
	n := messageOverhead + rawTokens(m.Content) + rawTokens(m.Thinking) + float64(len(m.Images)*imageRaw)
	for _, c := range m.ToolCalls {
		n += 4 + rawTokens(c.Name) + rawTokens(string(c.Arguments))
	}
	return n
}

// toolsRaw is the heuristic size of the tool definitions as the request carries them.
func toolsRaw(tools []llm.Tool) float64 {
	if len(tools) == 0 {
		return 0
	}
	n := 0.0
	for _, t := range tools {
		data, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
		n += rawTokens(string(data))
	}
	return n + 40 // the template's words around them
}

// calibration turns heuristic counts into the server's: the ratio of the server's
// counts to the heuristic's over what was observed, recent observations weighing more.
// It is the agent's (one model), shared by its sessions.
type calibration struct {
	mu       sync.Mutex
	server   float64 // the server's tokens observed, decayed
	raw      float64 // the heuristic's count of the same text, decayed
	observed int
}

// calibrationMemory is how much an old observation still weighs after each new one.
const calibrationMemory = 0.8

// ratio is the server's tokens per heuristic token: 1 until something was observed.
func (c *calibration) ratio() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.raw == 0 {
		return 1
	}
	return c.server / c.raw
}

// margin is the share added to an estimate for safety: larger before the server's
// counts have been seen, when a chat template's own text (which differs by model; Llama
// 3.1's adds a quarter to the tools) is unknown too.
func (c *calibration) margin() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.observed == 0 {
		return 0.35
	}
	return 0.05
}

// observe records that text the heuristic counted as raw took server tokens.
func (c *calibration) observe(raw, server float64) {
	if raw <= 0 || server <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.server = c.server*calibrationMemory + server
	c.raw = c.raw*calibrationMemory + raw
	c.observed++
}

// estimate is the server's likely count for raw heuristic tokens.
func (c *calibration) estimate(raw float64) int {
	return int(raw*c.ratio() + 0.5)
}
