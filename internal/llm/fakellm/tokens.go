package fakellm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

// The server's own token count, as a real server reports it in prompt_eval_count and
// usage: the prompt rendered through a chat template (ChatML's role markers around each
// message, the tools as JSON in the system turn), then split by a tokenizer. The
// tokenizer here is a stand-in, not a vocabulary: it splits text the way byte-pair
// encoders roughly do (a template marker such as <|im_end|> as one, a word or a piece of
// a long one, a run of digits three at a time, punctuation two marks at a time, a run of
// spaces, each newline, each other character), so a client cannot reproduce its counts
// by counting bytes and has to calibrate against them, as it must against a real model.

// ImageTokens is what one image costs in a prompt here (real models: 256 to several
// thousand, by model and picture size).
const ImageTokens = 256

// Tokens is the stand-in tokenizer's count of s.
func Tokens(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if strings.HasPrefix(s[i:], "<|") {
			if end := strings.Index(s[i:], "|>"); end > 0 {
				n++
				i += end + 2
				continue
			}
		}
		switch {
		case isWordRune(r):
			j := i
			for j < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r2) {
					break
				}
				j += sz
			}
			n += (utf8.RuneCountInString(s[i:j]) + 5) / 6 // a long identifier is several pieces
			i = j
		case r >= '0' && r <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			n += (j - i + 2) / 3
			i = j
		case r == ' ' || r == '\t':
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			// A single space before a word belongs to the word's token.
			if j-i > 1 || j == len(s) || !isWordStart(s[j:]) {
				n++
			}
			i = j
		case r < utf8.RuneSelf && r > ' ':
			j := i
			for j < len(s) && s[j] > ' ' && s[j] < utf8.RuneSelf && !isWordRune(rune(s[j])) && (s[j] < '0' || s[j] > '9') {
				j++
			}
			n += (j - i + 1) / 2
			i = j
		default:
			n++
			i += size
		}
	}
	return n
}

func isWordRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') ||
		r >= utf8.RuneSelf && unicode.IsLetter(r) && !unicode.Is(unicode.Han, r)
}

func isWordStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordRune(r)
}

// PromptTokens is the server's count of a request's prompt: each message in ChatML
// markers, its tool calls as JSON, its images, and the tools offered.
func PromptTokens(messages []llm.Message, tools []Tool) int {
	var b strings.Builder
	if len(tools) > 0 {
		b.WriteString("<|im_start|>system\n# Tools\n<tools>\n")
		for _, t := range tools {
			data, _ := json.Marshal(map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters})
			b.Write(data)
			b.WriteString("\n")
		}
		b.WriteString("</tools><|im_end|>\n")
	}
	images := 0
	for _, m := range messages {
		b.WriteString("<|im_start|>" + m.Role + "\n" + m.Thinking + m.Content)
		for _, c := range m.ToolCalls {
			b.WriteString("\n<tool_call>{\"name\":\"" + c.Name + "\",\"arguments\":" + string(c.Arguments) + "}</tool_call>")
		}
		b.WriteString("<|im_end|>\n")
		images += len(m.Images)
	}
	b.WriteString("<|im_start|>assistant\n")
	return Tokens(b.String()) + images*ImageTokens
}

// replyTokens is the server's count of a reply it streams.
func replyTokens(reply *Reply) int {
	var b strings.Builder
	for _, t := range reply.Thinking {
		b.WriteString(t)
	}
	for _, c := range reply.Content {
		b.WriteString(c)
	}
	for _, c := range reply.ToolCalls {
		b.WriteString(c.Name + string(c.Arguments))
	}
	return max(Tokens(b.String()), 1)
}
