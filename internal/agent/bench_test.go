package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"

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
// in a turn: what the file held read and stored in SQLite, the hashes of before and
// after, the record of what was written, and the end of the turn's record. The write
// itself is left out (it costs the same with or without a checkpoint).
//
//	go test -run '^$' -bench 'Checkpoint' -count 6 ./internal/agent/
func BenchmarkCheckpoint10MiB(b *testing.B) {
	dir := b.TempDir()
	st, err := store.Open(filepath.Join(dir, "parley.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	ws := filepath.Join(dir, "ws")
	old := strings.Repeat("0123456789abcdef", 10<<20/16)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(old), 0o644); err != nil {
		b.Fatal(err)
	}
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		b.Fatal(err)
	}
	a := &agent{changes: changes.NewLog(st, changes.Limits{})}
	c := a.newCheckpoints(ctx, "s", roots, tools.LocalEnv(roots))
	change := tools.Change{Path: filepath.Join(ws, "big.txt"), Old: &old, New: old + "one more line\n"}
	noWrite := func(context.Context) error { return nil }
	b.SetBytes(int64(len(old)))
	b.ReportAllocs()
	for b.Loop() {
		turn := c.begin(ctx, "edit big.txt")
		if err := turn.write(ctx, change, noWrite); err != nil {
			b.Fatal(err)
		}
		turn.end(ctx)
	}
}
