package acp

import (
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// chunkParams is the params of a typical session/update: one streamed piece of a reply.
// A flood of these (100k per turn) is the hot path of a client.
var chunkParams = []byte(`{"sessionId":"019a4f2e-7c1b-7d3e-9f10-2b3c4d5e6f70","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Here is the next piece of the answer, with some ` + "`code`" + ` in it."}}}`)

func BenchmarkDecodeAgentMessageChunk(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(chunkParams)))
	for b.Loop() {
		var n SessionNotification
		if err := json.Unmarshal(chunkParams, &n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeAgentMessageChunk(b *testing.B) {
	n := SessionNotification{
		SessionID: "019a4f2e-7c1b-7d3e-9f10-2b3c4d5e6f70",
		Update:    AgentMessageChunk(TextBlock("Here is the next piece of the answer, with some `code` in it.")),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(&n); err != nil {
			b.Fatal(err)
		}
	}
}
