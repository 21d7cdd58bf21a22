package bench

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/vscodelm"
)

// BenchmarkChunkLatency is the overhead the bridge adds per streamed chunk: a stamping
// agent (this test binary) sends each chunk as the wall-clock time it was sent, a little
// apart so that no two are queued together, and the client measures arrival minus stamp
// (same machine, same clock). The sub-benchmarks read the same agent through `parley
// vscodelm` and directly over ACP; the difference of their percentiles is the bridge's
// overhead per chunk (p50 and p99).
const (
	stampChunks = 500
	stampGap    = 300 * time.Microsecond
)

func BenchmarkChunkLatency(b *testing.B) {
	noteFailure(b)
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("bridge", func(b *testing.B) {
		br := startBridge(b)
		agent, _ := json.Marshal(map[string]any{
			"id": "stamp", "name": "stamp", "command": self, "args": []string{},
			"env": []map[string]string{{"name": "PARLEY_BENCH_ROLE", "value": "stamp-agent"}},
		})
		var lat []time.Duration
		for i := range b.N {
			text := "stamp" + strings.Repeat("\n", i+1) // a new conversation each time
			r := br.await(br.chatWith(agent, []vscodelm.Message{{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{vscodelm.TextPart(text)}}}))
			stamped := r.latencies()
			if len(stamped) != stampChunks {
				b.Fatalf("%d stamped chunks arrived, want %d", len(stamped), stampChunks)
			}
			lat = append(lat, stamped...)
		}
		reportLatency(b, lat)
	})
	b.Run("direct", func(b *testing.B) {
		noteFailure(b)
		cnt := &counter{}
		dir := b.TempDir()
		agent, err := agentproc.Launch(context.Background(), agentproc.Spec{
			Command: self, Env: []string{"PARLEY_BENCH_ROLE=stamp-agent"}, Dir: dir,
		}, agentproc.LaunchOptions{Client: cnt})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { agent.Close() })
		var lat []time.Duration
		for range b.N {
			sess, err := agent.Conn.NewSession(context.Background(), &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}})
			if err != nil {
				b.Fatal(err)
			}
			cnt.mu.Lock()
			cnt.record, cnt.latencies = true, nil
			cnt.mu.Unlock()
			if _, err := agent.Conn.Prompt(context.Background(), &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("stamp")}}); err != nil {
				b.Fatal(err)
			}
			cnt.mu.Lock()
			lat = append(lat, cnt.latencies...)
			cnt.mu.Unlock()
		}
		reportLatency(b, lat)
	})
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	p := func(q float64) time.Duration { return quantile(lat, q) }
	b.ReportMetric(float64(p(0.50)), "ns/chunk-p50")
	b.ReportMetric(float64(p(0.99)), "ns/chunk-p99")
	b.Logf("%d chunks: latency p50 %v, p99 %v", len(lat), p(0.50), p(0.99))
}

// quantile is the q-quantile of sorted, which is not empty.
func quantile(sorted []time.Duration, q float64) time.Duration {
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// appendLatencies reads the stamps in a text part (several when the bridge joined
// chunks) and records how long ago each was sent.
func appendLatencies(lat []time.Duration, text string, now time.Time) []time.Duration {
	for _, f := range strings.Fields(text) {
		if ns, err := strconv.ParseInt(f, 10, 64); err == nil && ns > 1e18 {
			lat = append(lat, now.Sub(time.Unix(0, ns)))
		}
	}
	return lat
}

// runStampAgent is the stamping ACP agent, on this process's stdio.
func runStampAgent() int {
	a := &stampAgent{}
	acp.NewAgentConn(acp.Stdio(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
	<-a.conn.Done()
	return 0
}

type stampAgent struct{ conn *acp.AgentConn }

func (a *stampAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersion, AgentCapabilities: acp.AgentCapabilities{MCPCapabilities: acp.MCPCapabilities{HTTP: true}}}, nil
}

func (a *stampAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: acp.SessionID("s" + strconv.FormatInt(time.Now().UnixNano(), 10))}, nil
}

func (a *stampAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	for range stampChunks {
		time.Sleep(stampGap) // spinning instead would steal a core the measurement needs
		a.conn.Update(ctx, req.SessionID, acp.AgentMessageChunk(acp.TextBlock(strconv.FormatInt(time.Now().UnixNano(), 10)+" ")))
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}
