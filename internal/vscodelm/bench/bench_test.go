// Package bench holds the benchmarks of `parley vscodelm`. Like the conformance suite,
// they build the real binary once (TestMain) and drive it over stdio with the fake VS Code
// client (internal/vscodelm/vscodetest), with parley's built-in Eliza as the agent;
// the baseline is a direct ACP client (acp.ClientConn through agentproc.Launch) reading the
// same `parley eliza --deterministic` in the same run.
//
//	go test -run '^$' -bench . ./internal/vscodelm/bench/
package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/testbin"
	"github.com/parley-acp/parley/internal/vscodelm"
	"github.com/parley-acp/parley/internal/vscodelm/vscodetest"
)

const (
	chatMethod   = "lm/provideLanguageModelChatResponse"
	floodChunks  = 20000 // throughput benchmarks
	gapChunks    = 2000  // inter-arrival benchmarks
	idleSessions = 100
	waitLimit    = 30 * time.Second // hang guard for any awaited answer
)

var (
	parleyBin  string
	tmpRoot    string
	skipReason string
	// failed is set by any benchmark that failed (a hang guard's b.Fatal among them).
	// With -count n the testing package reports only how the last run of a benchmark
	// went, so a run that failed before a later one passed would end "ok": run fails
	// the package itself.
	failed atomic.Bool
)

func TestMain(m *testing.M) {
	if os.Getenv("PARLEY_BENCH_ROLE") == "stamp-agent" {
		os.Exit(runStampAgent())
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "parley-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	tmpRoot = dir
	// Only build when a benchmark will run: `go test` without -bench stays fast.
	if f := flagValue("test.bench"); f != "" {
		skipReason = build(dir)
	} else {
		skipReason = "parley not built (no -bench)"
	}
	code := m.Run()
	if code == 0 && failed.Load() {
		fmt.Fprintln(os.Stderr, "FAIL: a benchmark failed in one of its -count runs (see --- FAIL above)")
		code = 1
	}
	return code
}

// flagValue reads a test flag before m.Run parses them.
func flagValue(name string) string {
	for i, a := range os.Args[1:] {
		a = strings.TrimLeft(a, "-")
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+2 < len(os.Args) {
			return os.Args[i+2]
		}
	}
	return ""
}

// noteFailure makes b's failure fail the package (see failed). Every benchmark calls it,
// itself or through requireBinary.
func noteFailure(b *testing.B) {
	b.Cleanup(func() {
		if b.Failed() {
			failed.Store(true)
		}
	})
}

// requireBinary skips a benchmark that has no binary to run; startBridge,
// startUnrecorded and startDirect call it.
func requireBinary(b *testing.B) {
	b.Helper()
	noteFailure(b)
	if skipReason != "" {
		b.Skip("benchmark skipped: " + skipReason)
	}
}

// ---- the bridge: parley vscodelm driven by the fake VS Code client ----

// bridge is `parley vscodelm` and the fake VS Code client (internal/vscodelm/vscodetest)
// that drives it, keeping no transcript (floods would fill it).
type bridge struct{ *vscodetest.Client }

func startBridge(b *testing.B) *bridge {
	b.Helper()
	requireBinary(b)
	return &bridge{vscodetest.Start(b, vscodetest.Options{Binary: parleyBin, Quiet: true, HangGuard: waitLimit})}
}

// startUnrecorded is startBridge with the record of changes off (config.json's
// changes.off): what the record costs each turn is the difference.
func startUnrecorded(b *testing.B) *bridge {
	b.Helper()
	requireBinary(b)
	home := b.TempDir()
	dir := filepath.Join(home, "config", "parley")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"changes":{"off":true}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	return &bridge{vscodetest.Start(b, vscodetest.Options{Binary: parleyBin, Home: home, Quiet: true, HangGuard: waitLimit})}
}

// startUnconfined is startBridge with the agent not confined (--sandbox off): what the
// confinement costs each turn is the difference (the direct baseline's agent is not
// confined).
func startUnconfined(b *testing.B) *bridge {
	b.Helper()
	requireBinary(b)
	return &bridge{vscodetest.Start(b, vscodetest.Options{Binary: parleyBin, Args: []string{"vscodelm", "--sandbox", "off"}, Quiet: true, HangGuard: waitLimit})}
}

// reply is what parley streamed for one chat request. await does no more than count the
// words: it runs inside the bridge's timed turn, while the direct client's counter only
// counts chunks, so what the latency and history benchmarks need is worked out on demand.
type reply struct {
	words    int         // words of the text parts
	arrivals []time.Time // arrival of each lm/responsePart line
	texts    []textPart  // the text parts, in order
	sent     time.Time   // when the request was written
}

// textPart is a text part and when it arrived.
type textPart struct {
	value string
	at    time.Time
}

// latencies is, for each stamped chunk, its arrival minus the agent's send time.
func (r *reply) latencies() []time.Duration {
	var lat []time.Duration
	for _, t := range r.texts {
		lat = appendLatencies(lat, t.value, t.at)
	}
	return lat
}

// text is the text parts, joined.
func (r *reply) text() string {
	var b strings.Builder
	for _, t := range r.texts {
		b.WriteString(t.value)
	}
	return b.String()
}

// countWords is len(strings.Fields(s)) for ASCII text, without building the fields.
func countWords(s string) int {
	n, inWord := 0, false
	for i := 0; i < len(s); i++ {
		space := s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// chat sends a chat request with messages to Eliza and returns its id, to be awaited.
func (br *bridge) chat(messages []vscodelm.Message) int64 {
	return br.chatWith(json.RawMessage(`{"eliza":{"deterministic":true}}`), messages)
}

// chatWith sends a chat request for agent.
func (br *bridge) chatWith(agent json.RawMessage, messages []vscodelm.Message) int64 {
	br.T.Helper()
	return br.Request(vscodetest.ChatMethod, vscodelm.ChatRequestParams{ModelID: "eliza", Messages: messages, Agent: agent})
}

// await waits for request id's answer, which must succeed, and reads it.
func (br *bridge) await(id int64) *reply {
	br.T.Helper()
	parts := br.OK(id)
	r := &reply{}
	r.sent, r.arrivals = br.Timing(id)
	for i, p := range parts {
		if p.Type == vscodelm.PartText {
			r.words += countWords(p.Value)
			r.texts = append(r.texts, textPart{p.Value, r.arrivals[i]})
		}
	}
	return r
}

// turn sends a one-message conversation and awaits its reply.
func (br *bridge) turn(text string) *reply {
	br.T.Helper()
	return br.await(br.chat([]vscodelm.Message{{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{vscodelm.TextPart(text)}}}))
}

// floodPrompt is `flood n`, made unique per conversation by trailing empty lines (which
// Eliza ignores), so that every request opens a new conversation and a new ACP session.
func floodPrompt(n, seq int) string {
	return fmt.Sprintf("flood %d", n) + strings.Repeat("\n", seq)
}

// ---- the direct ACP client ----

type counter struct {
	mu        sync.Mutex
	chunks    int
	arrivals  []time.Time
	latencies []time.Duration
	record    bool
}

func (c *counter) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	if n.Update.AgentMessageChunk == nil {
		return nil
	}
	now := time.Now()
	c.mu.Lock()
	c.chunks++
	if c.record {
		c.arrivals = append(c.arrivals, now)
		if text, ok := n.Update.AgentMessageChunk.Content.AsText(); ok {
			c.latencies = appendLatencies(c.latencies, text, now)
		}
	}
	c.mu.Unlock()
	return nil
}

func (c *counter) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
}

type direct struct {
	b     *testing.B
	agent *agentproc.Server
	cnt   *counter
	cwd   string
}

func startDirect(b *testing.B) *direct {
	b.Helper()
	requireBinary(b)
	d := &direct{b: b, cnt: &counter{}, cwd: b.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	agent, err := agentproc.Launch(ctx, agentproc.Spec{
		Command: parleyBin,
		Args:    []string{"eliza", "--deterministic"},
		Env:     testbin.HomeEnv(b.TempDir()),
		Dir:     d.cwd,
	}, agentproc.LaunchOptions{Client: d.cnt})
	if err != nil {
		b.Fatalf("launching parley eliza: %v", err)
	}
	d.agent = agent
	b.Cleanup(func() { agent.Close() })
	return d
}

// prompt opens a session, sends text and returns the agent_message_chunk count (and
// arrival times when record is set).
func (d *direct) prompt(text string, record bool) (int, []time.Time) {
	d.b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	sess, err := d.agent.Conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: d.cwd, MCPServers: []acp.MCPServer{}})
	if err != nil {
		d.b.Fatalf("session/new: %v", d.agent.Explain(err))
	}
	d.cnt.mu.Lock()
	d.cnt.chunks, d.cnt.arrivals, d.cnt.record = 0, nil, record
	d.cnt.mu.Unlock()
	if _, err := d.agent.Conn.Prompt(ctx, &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}); err != nil {
		d.b.Fatalf("session/prompt: %v", d.agent.Explain(err))
	}
	d.cnt.mu.Lock()
	defer d.cnt.mu.Unlock()
	return d.cnt.chunks, d.cnt.arrivals
}

// ---- throughput ----

// BenchmarkDirectChunks is the baseline: a direct ACP client (acp.ClientConn over the
// stdio of `parley eliza --deterministic`, started with agentproc.Launch) counts the
// agent_message_chunk updates of `flood 20000`, one new session per op.
func BenchmarkDirectChunks(b *testing.B) {
	d := startDirect(b)
	d.prompt("flood 10", false)
	b.ResetTimer()
	total := 0
	for range b.N {
		got, _ := d.prompt(fmt.Sprintf("flood %d", floodChunks), false)
		if got != floodChunks {
			b.Fatalf("direct client got %d chunks, want %d", got, floodChunks)
		}
		total += got
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkBridgeChunks measures chunk throughput through `parley vscodelm`: a new
// conversation per op whose user message is `flood 20000`; the op ends with the {}
// response, and a chunk is a word of the lm/responsePart text parts (the bridge may merge
// chunks into fewer parts). Each op also runs the same flood through a direct ACP client
// (untimed), the two in turn (bridge first in even ops, direct first in odd ones), so
// that both see the same load: on a shared machine the load changes from one second to
// the next, and a ratio of figures taken one after the other (all the bridge's, then all
// the direct client's) spread from 33% to 210% over 50 runs. It reports bridge/direct as
// %-of-direct (target ≥ 95%), and on Linux the CPU time per chunk of each path (its
// processes' user and system time during its floods): cpu-bridged (the bridge, its agent
// and this process as the fake VS Code) against cpu-direct (this process as the client,
// and its agent), and cpu-bridge against cpu-client. Three processes share the cores the
// direct path's two have, so where the cores are few, throughput follows CPU per chunk.
func BenchmarkBridgeChunks(b *testing.B) {
	br := startBridge(b)
	br.turn("hello") // starts the agent process
	d := startDirect(b)
	d.prompt("flood 10", false)
	bridgePid := br.Cmd.Process.Pid
	var bridgeCPU, directCPU pathCPU
	bridgeCPU.relays, bridgeCPU.agents = []int{bridgePid}, childrenOf(bridgePid)
	directCPU.agents = slices.DeleteFunc(childrenOf(os.Getpid()), func(pid int) bool { return pid == bridgePid })
	var bridgeTime, directTime time.Duration
	// Each flood starts with this process's heap collected: it is both the direct client
	// and the fake VS Code, so neither path pays for garbage the other left.
	bridgeFlood := func(i int) {
		runtime.GC()
		before := bridgeCPU.read()
		start := time.Now()
		r := br.turn(floodPrompt(floodChunks, i+1))
		bridgeTime += time.Since(start)
		bridgeCPU.add(before)
		if r.words != floodChunks {
			b.Fatalf("bridge delivered %d words, want %d", r.words, floodChunks)
		}
	}
	directFlood := func() {
		b.StopTimer()
		defer b.StartTimer()
		runtime.GC()
		before := directCPU.read()
		start := time.Now()
		got, _ := d.prompt(fmt.Sprintf("flood %d", floodChunks), false)
		directTime += time.Since(start)
		directCPU.add(before)
		if got != floodChunks {
			b.Fatalf("direct client got %d chunks, want %d", got, floodChunks)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			bridgeFlood(i)
			directFlood()
		} else {
			directFlood()
			bridgeFlood(i)
		}
	}
	b.StopTimer()
	total := float64(b.N * floodChunks)
	bridgeRate, directRate := total/bridgeTime.Seconds(), total/directTime.Seconds()
	ratio := 100 * bridgeRate / directRate
	b.ReportMetric(bridgeRate, "chunks/s")
	b.ReportMetric(ratio, "%-of-direct")
	b.Logf("N=%d bridge %.0f chunks/s, direct %.0f chunks/s: bridge/direct = %.1f%% (target ≥ 95%%)",
		b.N, bridgeRate, directRate, ratio)
	if bridgeCPU.ok && directCPU.ok {
		bridged, direct := bridgeCPU.used, directCPU.used
		perChunk := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / total }
		b.ReportMetric(perChunk(bridged.relay), "cpu-bridge-ns/chunk")
		b.ReportMetric(perChunk(direct.self), "cpu-client-ns/chunk")
		b.ReportMetric(perChunk(bridged.total()), "cpu-bridged-ns/chunk")
		b.ReportMetric(perChunk(direct.total()), "cpu-direct-ns/chunk")
		b.Logf("CPU per chunk: bridged %.0f ns (bridge %.0f, its agent %.0f, the fake VS Code %.0f), direct %.0f ns (client %.0f, its agent %.0f): %.2fx",
			perChunk(bridged.total()), perChunk(bridged.relay), perChunk(bridged.agent), perChunk(bridged.self),
			perChunk(direct.total()), perChunk(direct.self), perChunk(direct.agent),
			float64(bridged.total())/float64(direct.total()))
	}
}

// pathCPU adds up the CPU time the processes of one path (this process, which is the
// direct client or the fake VS Code client; the bridge; the agent) use during its floods,
// where the system says (Linux: ok).
type pathCPU struct {
	relays, agents []int     // the bridge (none on the direct path), the agent
	used           cpuSample // over the floods measured
	ok             bool
}

// cpuSample is CPU time of a path's processes: used so far, or over some floods.
type cpuSample struct{ relay, agent, self time.Duration }

func (s cpuSample) total() time.Duration { return s.relay + s.agent + s.self }

func (p *pathCPU) read() cpuSample {
	self, okSelf := selfCPU()
	relay, okRelay := sumCPU(p.relays)
	agent, okAgent := sumCPU(p.agents)
	p.ok = okSelf && okRelay && okAgent && len(p.agents) > 0
	return cpuSample{relay, agent, self}
}

// add adds what the path used since before was read.
func (p *pathCPU) add(before cpuSample) {
	after := p.read()
	p.used.relay += after.relay - before.relay
	p.used.agent += after.agent - before.agent
	p.used.self += after.self - before.self
}

// sumCPU is the CPU time the processes pids have used.
func sumCPU(pids []int) (time.Duration, bool) {
	var sum time.Duration
	for _, pid := range pids {
		t, ok := cpuTime(pid)
		if !ok {
			return 0, false
		}
		sum += t
	}
	return sum, true
}

// ---- inter-arrival gaps ----

// BenchmarkChunkGaps estimates the per-chunk overhead of the bridge. `slowly` paces its
// chunks at 20 ms, which would measure the pacing, so instead each op floods 2000 chunks
// and timestamps every arrival at the client: each lm/responsePart line as the fake VS
// Code client reads it (bridge), each agent_message_chunk as acp.ClientConn delivers it
// (direct). The gaps between consecutive arrivals (the first arrival of each op is not a
// gap) are pooled over all ops and their p50 and p99 reported as ns/gap-p50 and
// ns/gap-p99 for each path; the bridge minus the direct gap is what the bridge adds per
// chunk in steady state. If the bridge merged chunks into fewer parts its gaps would grow
// while per-chunk cost falls; parts/op reports how many parts it sent.
func BenchmarkChunkGaps(b *testing.B) {
	b.Run("bridge", func(b *testing.B) {
		br := startBridge(b)
		br.turn("hello")
		b.ResetTimer()
		var gaps []time.Duration
		parts := 0
		for i := range b.N {
			r := br.turn(floodPrompt(gapChunks, i+1))
			if r.words != gapChunks {
				b.Fatalf("bridge delivered %d words, want %d", r.words, gapChunks)
			}
			parts += len(r.arrivals)
			gaps = appendGaps(gaps, r.arrivals)
		}
		b.StopTimer()
		reportGaps(b, gaps)
		b.ReportMetric(float64(parts)/float64(b.N), "parts/op")
	})
	b.Run("direct", func(b *testing.B) {
		d := startDirect(b)
		d.prompt("flood 10", false)
		b.ResetTimer()
		var gaps []time.Duration
		for range b.N {
			n, arrivals := d.prompt(fmt.Sprintf("flood %d", gapChunks), true)
			if n != gapChunks {
				b.Fatalf("direct client got %d chunks, want %d", n, gapChunks)
			}
			gaps = appendGaps(gaps, arrivals)
		}
		b.StopTimer()
		reportGaps(b, gaps)
	})
}

func appendGaps(gaps []time.Duration, arrivals []time.Time) []time.Duration {
	for i := 1; i < len(arrivals); i++ {
		gaps = append(gaps, arrivals[i].Sub(arrivals[i-1]))
	}
	return gaps
}

func reportGaps(b *testing.B, gaps []time.Duration) {
	if len(gaps) == 0 {
		return
	}
	slices.Sort(gaps)
	p := func(q float64) time.Duration { return quantile(gaps, q) }
	b.ReportMetric(float64(p(0.50)), "ns/gap-p50")
	b.ReportMetric(float64(p(0.99)), "ns/gap-p99")
	b.Logf("%d gaps: p50 %v, p99 %v", len(gaps), p(0.50), p(0.99))
}

// ---- memory ----

// BenchmarkIdleSessionsMemory opens 100 conversations with `parley vscodelm` (100
// different first user messages, one short Eliza turn each, all completed), then reads
// VmRSS from /proc of the backend (MiB-rss, target < 50 MiB) and of its agent child
// (agent-MiB-rss). It checks that the backend has exactly one `parley eliza` child: one
// process serves every session. Each op is a fresh backend.
func BenchmarkIdleSessionsMemory(b *testing.B) {
	requireBinary(b)
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	var rss, agentRSS float64
	for range b.N {
		b.StopTimer()
		br := startBridge(b)
		b.StartTimer()
		for i := range idleSessions {
			r := br.turn(fmt.Sprintf("Hello, I am visitor number %d and I feel tired today.", i))
			if r.words == 0 {
				b.Fatalf("conversation %d: empty reply", i)
			}
		}
		b.StopTimer()
		pid := br.Cmd.Process.Pid
		kids := elizaChildren(b, pid)
		if len(kids) != 1 {
			b.Fatalf("backend %d has %d `parley eliza` children %v, want exactly 1", pid, len(kids), kids)
		}
		rss = vmRSS(b, pid)
		agentRSS = vmRSS(b, kids[0])
		br.Close()
		b.StartTimer()
	}
	b.ReportMetric(rss, "MiB-rss")
	b.ReportMetric(agentRSS, "agent-MiB-rss")
	b.Logf("%d idle sessions: backend VmRSS %.1f MiB (target < 50 MiB), its one eliza child %.1f MiB", idleSessions, rss, agentRSS)
}

// elizaChildren lists the children of pid (all its threads) running `parley eliza`.
func elizaChildren(b *testing.B, pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var kids []int
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			kid, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", kid))
			if err != nil {
				continue
			}
			args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
			if slices.Contains(args, "eliza") && !slices.Contains(kids, kid) {
				kids = append(kids, kid)
			}
		}
	}
	if len(tasks) == 0 {
		b.Fatalf("cannot read /proc/%d/task/*/children", pid)
	}
	return kids
}

// vmRSS returns the VmRSS of pid in MiB.
func vmRSS(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v) // "12345 kB"
			kb, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// build builds the binary into dir; it returns why the benchmarks cannot run, or "".
func build(dir string) string {
	bin, err := testbin.Build(dir)
	if err != nil {
		return err.Error()
	}
	parleyBin = bin
	return ""
}
