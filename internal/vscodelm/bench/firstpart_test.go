package bench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/vscodelm"
)

// BenchmarkFirstPart is the time to the first byte of an answer: from the moment the
// client writes a chat request to the arrival of its first lm/responsePart, with the agent
// process already running. "new" is a new conversation (a new ACP session, as a new chat
// in VS Code), "next" a second turn of one conversation (its history resent, as VS Code
// does). The direct sub-benchmarks are the baseline: the same `parley eliza
// --deterministic` over ACP, from session/new (new) or session/prompt (next) to the first
// agent_message_chunk. Each reports ns/first-part-p50 and p99 over its ops; bridge/direct
// of the same kind is what the bridge adds before the first byte.
func BenchmarkFirstPart(b *testing.B) {
	b.Run("bridge-new", func(b *testing.B) {
		br := startBridge(b)
		br.turn("hello")
		var firsts []time.Duration
		for i := range b.N {
			r := br.turn(fmt.Sprintf("I am visitor %d and I feel tired.", i))
			firsts = append(firsts, r.first())
		}
		reportFirst(b, firsts)
	})
	b.Run("bridge-next", func(b *testing.B) { firstPartNext(b, startBridge(b)) })
	b.Run("bridge-next-git", func(b *testing.B) { firstPartNext(b, startBridgeInGit(b)) })
	b.Run("bridge-next-unrecorded", func(b *testing.B) { firstPartNext(b, startUnrecorded(b)) })
	b.Run("bridge-next-unconfined", func(b *testing.B) { firstPartNext(b, startUnconfined(b)) })
	b.Run("direct-new", func(b *testing.B) {
		d := startDirect(b)
		d.prompt("hello", false)
		var firsts []time.Duration
		for i := range b.N {
			start := time.Now()
			_, arrivals := d.prompt(fmt.Sprintf("I am visitor %d and I feel tired.", i), true)
			if len(arrivals) == 0 {
				b.Fatal("no chunk")
			}
			firsts = append(firsts, arrivals[0].Sub(start))
		}
		reportFirst(b, firsts)
	})
	b.Run("direct-next", func(b *testing.B) {
		d := startDirect(b)
		var firsts []time.Duration
		for i := range b.N {
			firsts = append(firsts, d.nextFirst(i))
		}
		reportFirst(b, firsts)
	})
}

// BenchmarkNextTurnVsDirect is bridge-next-git and direct-next of BenchmarkFirstPart
// taken in turns, one op of each at a time, so that both see the same load (on a shared
// machine the load moves within seconds, and the two sub-benchmarks run one after the
// other): x-direct is the ratio of their medians. The same bridge with the record of
// changes off (unrecorded-p50) says what the record costs.
func BenchmarkNextTurnVsDirect(b *testing.B) {
	br, off, d := startBridgeInGit(b), startUnrecorded(b), startDirect(b)
	b.ResetTimer()
	var bridged, unrecorded, direct []time.Duration
	for i := range b.N {
		bridged = append(bridged, br.nextFirst(i))
		unrecorded = append(unrecorded, off.nextFirst(i))
		direct = append(direct, d.nextFirst(i))
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return quantile(d, 0.5) }
	bp, up, dp := median(bridged), median(unrecorded), median(direct)
	b.ReportMetric(float64(bp), "ns/bridge-p50")
	b.ReportMetric(float64(up), "ns/unrecorded-p50")
	b.ReportMetric(float64(dp), "ns/direct-p50")
	b.ReportMetric(float64(bp)/float64(dp), "x-direct")
	b.Logf("%d turns each: the next turn's first part after %v through the bridge in a git work tree (%v with the record of changes off), %v direct: %.2fx (target ≤ 3x)",
		b.N, bp, up, dp, float64(bp)/float64(dp))
}

// nextFirst is the first part of the second turn of a new session, after its prompt.
func (d *direct) nextFirst(i int) time.Duration {
	d.b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	sess, err := d.agent.Conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: d.cwd, MCPServers: []acp.MCPServer{}})
	if err != nil {
		d.b.Fatal(err)
	}
	var first time.Duration
	for turn, text := range []string{fmt.Sprintf("Hello, I am visitor %d.", i), "I feel tired today."} {
		d.cnt.mu.Lock()
		d.cnt.chunks, d.cnt.arrivals, d.cnt.record = 0, nil, true
		d.cnt.mu.Unlock()
		start := time.Now()
		if _, err := d.agent.Conn.Prompt(ctx, &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}); err != nil {
			d.b.Fatal(err)
		}
		d.cnt.mu.Lock()
		if turn == 1 {
			if len(d.cnt.arrivals) == 0 {
				d.b.Fatal("no chunk")
			}
			first = d.cnt.arrivals[0].Sub(start)
		}
		d.cnt.mu.Unlock()
	}
	return first
}

// first is how long the first part took to arrive after the request was written.
func (r *reply) first() time.Duration {
	if len(r.arrivals) == 0 {
		return 0
	}
	return r.arrivals[0].Sub(r.sent)
}

func reportFirst(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	p := func(q float64) time.Duration { return quantile(d, q) }
	b.ReportMetric(float64(p(0.50)), "ns/first-part-p50")
	b.ReportMetric(float64(p(0.99)), "ns/first-part-p99")
	b.Logf("%d answers: first part after p50 %v, p99 %v", len(d), p(0.50), p(0.99))
}

// firstPartNext measures the second turn of new conversations.
func firstPartNext(b *testing.B, br *bridge) {
	// Starting the bridge is not an op (in a git tree it includes a second's ageing):
	// timed, it made ns/op over a second, and every run stopped at N=1, one sample.
	b.ResetTimer()
	var firsts []time.Duration
	for i := range b.N {
		firsts = append(firsts, br.nextFirst(i))
	}
	reportFirst(b, firsts)
}

// nextFirst is the first part of the second turn of a new conversation, after its
// request (with the first turn's history, as VS Code sends it).
func (br *bridge) nextFirst(i int) time.Duration {
	u1 := vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{vscodelm.TextPart(fmt.Sprintf("Hello, I am visitor %d.", i))}}
	r1 := br.await(br.chat([]vscodelm.Message{u1}))
	a1 := vscodelm.Message{Role: vscodelm.RoleAssistant, Content: []vscodelm.ContentPart{vscodelm.TextPart(r1.text())}}
	u2 := vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{vscodelm.TextPart("I feel tired today.")}}
	return br.await(br.chat([]vscodelm.Message{u1, a1, u2})).first()
}
