package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// BenchmarkChatChunks measures the client's cost per streamed chunk against the fake
// server with zero delay (server, loopback and client together: an upper bound).
func BenchmarkChatChunks(b *testing.B) {
	const n = 1000
	content := make([]string, n)
	for i := range content {
		content[i] = strings.Repeat("x", 16)
	}
	for _, d := range dialects {
		b.Run(d, func(b *testing.B) {
			s := fakellm.New(b, fakellm.Reply{Content: content, Reuse: true})
			p := provider(b, d, s)
			req := &llm.Request{Model: "m:7b", Messages: []llm.Message{{Role: "user", Content: "go"}}}
			chunks := 0
			for b.Loop() {
				if err := p.Chat(context.Background(), req, func(llm.Chunk) error { chunks++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}
