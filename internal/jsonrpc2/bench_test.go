package jsonrpc2

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// The benchmarks compare the connection with the cost of the codec alone. Run:
//
//	go test -run XXX -bench . -count 6 ./internal/jsonrpc2/ | benchstat -
//
// BenchmarkCodecBaseline is the bound for any dispatcher: each op decodes one line into a
// message and encodes it back. BenchmarkNotify sends one small notification per op from
// one connection to another across an OS pipe (as between two processes' stdio) and waits
// until the last one was handled; BenchmarkCall does one round trip per op.

// chunkLine is a typical ACP agent_message_chunk notification.
const chunkLine = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_0123456789","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk 12345 "}}}}`

var chunkParams = json.RawMessage(`{"sessionId":"sess_0123456789","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk 12345 "}}}`)

func BenchmarkCodecBaseline(b *testing.B) {
	line := []byte(chunkLine)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		m, err := decodeMessage(line)
		if err != nil {
			b.Fatal(err)
		}
		buf = appendRequest(buf[:0], m.id, m.method, m.params)
	}
	reportRate(b)
}

// pipeStream joins two OS pipes into the stream of one end.
type pipeStream struct {
	io.Reader
	io.Writer
	r, w *os.File
}

func (p pipeStream) Close() error { p.w.Close(); return p.r.Close() }

func osPipePair(b *testing.B, a, c Options) (*Conn, *Conn) {
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ca := NewConn(pipeStream{r1, w2, r1, w2}, a)
	cb := NewConn(pipeStream{r2, w1, r2, w1}, c)
	b.Cleanup(func() { ca.Close(); cb.Close() })
	return ca, cb
}

func BenchmarkNotify(b *testing.B) {
	var handled int
	done := make(chan struct{}, 1)
	target := 0
	sender, _ := osPipePair(b, Options{}, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		handled++
		if handled == target {
			done <- struct{}{}
		}
		return nil, nil
	})})
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(chunkLine) + 1))
	target = b.N // set before the first send; the handler reads it after
	b.ResetTimer()
	for range b.N {
		if err := sender.Notify(ctx, "session/update", chunkParams); err != nil {
			b.Fatal(err)
		}
	}
	<-done
	b.StopTimer()
	reportRate(b)
}

func BenchmarkCall(b *testing.B) {
	caller, _ := osPipePair(b, Options{}, Options{Handler: echo})
	ctx := context.Background()
	p := echoParams{Text: "ping"}
	b.ReportAllocs()
	for b.Loop() {
		var got echoParams
		if err := caller.Call(ctx, "echo", p, &got); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b)
}

func reportRate(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "msgs/s")
	}
}
