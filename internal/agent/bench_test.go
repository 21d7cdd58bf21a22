package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// BenchmarkAgentChunk is the cost of one model chunk through the whole agent (client,
// stream processor, tool-call parser, ACP updates to a client over a pipe), against
// BenchmarkClientChunk, the model client alone on the same fake server: the difference
// is the agent's own overhead per chunk.
//
//	go test -run '^$' -bench 'Chunk' -count 6 ./internal/agent/
const benchChunks = 2000

func benchReply() fakellm.Reply {
	chunks := make([]string, benchChunks)
	for i := range chunks {
		chunks[i] = "word "
	}
	return fakellm.Reply{Content: chunks, Reuse: true}
}

func BenchmarkAgentChunk(b *testing.B) {
	h := startModel(b, "ollama", fakellm.DefaultModel, Options{}, benchReply())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h.prompt(ctx, "say words")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
}

func BenchmarkClientChunk(b *testing.B) {
	fake := fakellm.New(b, benchReply())
	provider, model, _ := llm.New("ollama:test-model", fake.URL(), "")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var n int
		err := provider.Chat(ctx, &llm.Request{Model: model, Messages: []llm.Message{{Role: "user", Content: "x"}}}, func(c llm.Chunk) error {
			n += strings.Count(c.Content, "word")
			return nil
		})
		if err != nil || n != benchChunks {
			b.Fatalf("%d chunks, %v", n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
}
