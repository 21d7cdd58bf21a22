package toolcall

import (
	"fmt"
	"strings"
	"testing"
)

// largeReply is about size bytes of prose (markdown, code, JSON documents) with tool
// calls of several forms mixed in.
func largeReply(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "Step %d. I looked at `main.go` and [the docs](https://example.com); if a < b { return } "+
			"is fine, but the config {\"debug\": true} needs a change.\n\n", i)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/f%d.go\"}}</tool_call>\n", i)
		case 1:
			fmt.Fprintf(&b, "```go\nfunc f%d() { fmt.Println(\"{}\") }\n```\n", i)
		case 2:
			fmt.Fprintf(&b, "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"out%d.txt\", "+
				"\"content\": \"%s\"}}</tool_call>\n", i, strings.Repeat(`line \"quoted\" {x}\n`, 40))
		case 3:
			fmt.Fprintf(&b, "[TOOL_CALLS]list_files[ARGS]{\"path\": \"dir%d\"}\n", i)
		}
	}
	return b.String()
}

// BenchmarkParse measures Parse on a 1 MiB reply (b.SetBytes: read the MB/s column).
func BenchmarkParse(b *testing.B) {
	text := largeReply(1 << 20)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Parse(text, known)
	}
}

// BenchmarkParseProse measures Parse on 1 MiB of prose without calls.
func BenchmarkParseProse(b *testing.B) {
	text := strings.Repeat("Plain prose with `code`, a [link](x), a < b and {braces}.\n", 1<<20/58)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Parse(text, known)
	}
}

// BenchmarkStreamFeed measures StreamParser.Feed per chunk, for the 1 MiB reply cut into
// 16-byte chunks (about what a model server sends per token).
func BenchmarkStreamFeed(b *testing.B) {
	text := largeReply(1 << 20)
	const chunk = 16
	var chunks []string
	for i := 0; i < len(text); i += chunk {
		chunks = append(chunks, text[i:min(i+chunk, len(text))])
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		p := NewStreamParser(known)
		for _, c := range chunks {
			p.Feed(c)
		}
		p.Finish()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(chunks)), "ns/chunk")
}

// BenchmarkDegenerateReplies parses every degenerate reply at two sizes; the parsers are
// linear when the 256 KiB figure is about four times the 64 KiB one.
func BenchmarkDegenerateReplies(b *testing.B) {
	for _, n := range []int{64 << 10, 256 << 10} {
		texts := degenerateReplies(n)
		b.Run(fmt.Sprintf("%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n * len(texts)))
			for b.Loop() {
				for _, text := range texts {
					parseDegenerate(text)
				}
			}
		})
	}
}
