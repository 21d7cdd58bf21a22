package acp

import (
	"bufio"
	"bytes"
	"context"
	stdjson "encoding/json"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// floodLines is how many session/update notifications one flood sends: the figure of
// bench/flood.sh and of issue 32.
const floodLines = 100_000

// BenchmarkFlood sends floodLines agent_message_chunk notifications from an AgentConn to
// a ClientConn across two OS pipes (as between two processes' stdio) per op, and in the
// same op decodes the same lines with a bare decoder (bufio.Scanner and encoding/json
// into a small struct). x-bare is the bare decoder's time over the flood's: the share of
// what the machine allows that the flood reaches (the target of issue 32 is 0.6).
func BenchmarkFlood(b *testing.B) {
	lines := floodInput(b)
	var flood, bare time.Duration
	b.ReportAllocs()
	b.SetBytes(int64(len(lines)))
	for b.Loop() {
		start := time.Now()
		runFlood(b)
		flood += time.Since(start)
		start = time.Now()
		bareDecode(b, lines)
		bare += time.Since(start)
	}
	b.ReportMetric(float64(flood.Nanoseconds())/float64(b.N), "flood-ns/op")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bare-ns/op")
	b.ReportMetric(float64(bare)/float64(flood), "x-bare")
}

func floodChunk(i int) SessionUpdate {
	return AgentMessageChunk(TextBlock(strconv.Itoa(i) + " "))
}

// floodInput is the lines of one flood as the agent writes them.
func floodInput(b *testing.B) []byte {
	var buf bytes.Buffer
	for i := range floodLines {
		params, err := json.Marshal(&SessionNotification{SessionID: "sess_flood", Update: floodChunk(i)})
		if err != nil {
			b.Fatal(err)
		}
		buf.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":`)
		buf.Write(params)
		buf.WriteString("}\n")
	}
	return buf.Bytes()
}

// bareDecode is the bound: each line into a struct with just what a client reads.
func bareDecode(b *testing.B, lines []byte) {
	type chunk struct {
		Params struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	sc := bufio.NewScanner(bytes.NewReader(lines))
	n := 0
	for sc.Scan() {
		var c chunk
		if err := stdjson.Unmarshal(sc.Bytes(), &c); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if n != floodLines {
		b.Fatalf("bare decoder read %d lines, want %d", n, floodLines)
	}
}

// floodClient counts the chunks and says when the last one arrived.
type floodClient struct {
	got  int
	done chan struct{}
}

func (c *floodClient) SessionUpdate(ctx context.Context, n *SessionNotification) error {
	if n.Update.AgentMessageChunk == nil {
		return nil
	}
	if c.got++; c.got == floodLines {
		close(c.done)
	}
	return nil
}

func (c *floodClient) RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error) {
	return nil, io.ErrUnexpectedEOF
}

type floodPipe struct {
	*os.File // read end
	w        *os.File
}

func (p floodPipe) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p floodPipe) Close() error                { p.w.Close(); return p.File.Close() }

func runFlood(b *testing.B) {
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	a := &testAgent{}
	agent := NewAgentConn(floodPipe{r1, w2}, func(conn *AgentConn) Agent { a.conn = conn; return a }, nil)
	c := &floodClient{done: make(chan struct{})}
	client := NewClientConn(floodPipe{r2, w1}, func(*ClientConn) Client { return c }, nil)
	defer client.Close()
	defer agent.Close()
	ctx := context.Background()
	for i := range floodLines {
		if err := agent.Update(ctx, "sess_flood", floodChunk(i)); err != nil {
			b.Fatal(err)
		}
	}
	<-c.done
}
