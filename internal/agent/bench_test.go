package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/store"

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

// BenchmarkCheckpoint10MiB is what a checkpoint adds to the first edit of a 10 MiB file
// in a turn: the original stored in SQLite, the hashes of before and after, the record
// of what was written, and the bound on storage at the turn's end. The write itself is
// left out (it costs the same with or without a checkpoint).
//
//	go test -run '^$' -bench 'Checkpoint' -count 6 ./internal/agent/
func BenchmarkCheckpoint10MiB(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "parley.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.SaveSession(ctx, store.AgentSession{ID: "s", Cwd: "/w"}); err != nil {
		b.Fatal(err)
	}
	c := &checkpoints{store: st, session: "s", budget: checkpointBudget}
	old := strings.Repeat("0123456789abcdef", 10<<20/16)
	change := tools.Change{Path: "/w/big.txt", Old: &old, New: old + "one more line\n"}
	noWrite := func(context.Context) error { return nil }
	b.SetBytes(int64(len(old)))
	b.ReportAllocs()
	for b.Loop() {
		turn := c.begin("edit big.txt")
		if err := turn.write(ctx, change, noWrite); err != nil {
			b.Fatal(err)
		}
		turn.end(ctx)
	}
}
