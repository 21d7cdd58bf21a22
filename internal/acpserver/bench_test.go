package acpserver

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/eliza"
)

// Benchmarks of one server with many views, on in-process connections (net.Pipe) to the
// real server and the real Eliza (its own process, as in the tests). Run them with
//
//	go test ./internal/acpserver -run '^$' -bench 'Views|Replay' -benchtime 5x
//
// Each reports its figures with b.ReportMetric, against a baseline measured in the same
// run where there is one.

// stampClient is a client that records when each of Eliza's flood chunks in the session
// measured reached it (the chunks are the numbers 0, 1, …; a view that fell behind gets
// several in one update). index is which of the conversation's views it is (1…5).
type stampClient struct {
	index   int
	current *atomic.Pointer[round] // the flood being measured, if any
}

// round is one flood measured: when each chunk reached each view (index 0 is the
// conversation itself, handing the agent's update to its views: a subscription read
// in the process, which may read it after a view has).
type round struct {
	session acp.SessionID
	n       int
	stamps  [][]time.Time // by view, by chunk
	seen    []int         // chunks seen, by view
	done    chan struct{} // closed once every view has seen every chunk
	left    int
	mu      sync.Mutex
}

func newRound(session acp.SessionID, views, n int) *round {
	r := &round{session: session, n: n, stamps: make([][]time.Time, views), seen: make([]int, views), done: make(chan struct{}), left: views}
	for i := range r.stamps {
		r.stamps[i] = make([]time.Time, n)
	}
	return r
}

// stamp records the chunks in text as reaching view at now.
func (r *round) stamp(view int, text string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range strings.Fields(text) {
		i, err := strconv.Atoi(f)
		if err != nil || i >= r.n || !r.stamps[view][i].IsZero() {
			continue
		}
		r.stamps[view][i] = now
		r.seen[view]++
		if r.seen[view] == r.n {
			r.left--
			if r.left == 0 {
				close(r.done)
			}
		}
	}
}

// latency is the mean time from the moment each chunk was first seen in the process (by
// the conversation's own relaying subscription, or a view that read it sooner) to view.
func (r *round) latency(view int) time.Duration {
	var sum time.Duration
	for i := range r.n {
		first := r.stamps[0][i]
		for _, s := range r.stamps[1:] {
			if s[i].Before(first) {
				first = s[i]
			}
		}
		sum += r.stamps[view][i].Sub(first)
	}
	return sum / time.Duration(r.n)
}

func (c *stampClient) SessionUpdate(_ context.Context, n *acp.SessionNotification) error {
	now := time.Now()
	if r := c.current.Load(); r != nil && n.SessionID == r.session && n.Update.AgentMessageChunk != nil {
		text, _ := n.Update.AgentMessageChunk.Content.AsText()
		r.stamp(c.index, text, now)
	}
	return nil
}

func (*stampClient) RequestPermission(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
}

// dial connects a client to srv over net.Pipe; close ends it and waits for the server.
func dial(b *testing.B, srv *Server, client acp.Client) (conn *acp.ClientConn, close func()) {
	b.Helper()
	a, c := net.Pipe()
	served := make(chan struct{})
	go func() {
		defer func() { served <- struct{}{} }()
		srv.Serve(context.Background(), a)
	}()
	conn = acp.NewClientConn(c, func(*acp.ClientConn) acp.Client { return client }, nil)
	close = sync.OnceFunc(func() { conn.Close(); <-served })
	b.Cleanup(close)
	if _, err := conn.Initialize(b.Context(), &acp.InitializeRequest{ClientCapabilities: pageCapabilities}); err != nil {
		b.Fatal(err)
	}
	return conn, close
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkViews: 100 conversations on one server (one Eliza process), five views
// each: each view on a connection of its own (500 connections: a tab or device per
// view), or five connections each viewing all 100 (five devices). It reports the heap
// of an idle conversation with its five views (each had one turn; both ends of the
// connections are in this process), what a conversation with one view takes and what
// each further view adds; and, while ten conversations flood at once, the mean time
// from the moment each of Eliza's updates was first seen in the process to the first
// view and to the fifth, and their ratio.
func BenchmarkViews(b *testing.B) {
	b.Run("connection-per-view", func(b *testing.B) { benchViews(b, false) })
	b.Run("five-connections", func(b *testing.B) { benchViews(b, true) })
}

func benchViews(b *testing.B, shared bool) {
	const convs, views, flooding, chunks = 100, 5, 10, 1000
	srv := newTestServer(b)
	var current atomic.Pointer[round]
	type conv struct {
		id    acp.SessionID
		conns []*acp.ClientConn // by view
	}
	all := make([]*conv, convs)
	var sharedConns []*acp.ClientConn
	connFor := func(k int) *acp.ClientConn {
		if shared {
			return sharedConns[k-1]
		}
		conn, _ := dial(b, srv, &stampClient{index: k, current: &current})
		return conn
	}
	if shared {
		for k := 1; k <= views; k++ {
			conn, _ := dial(b, srv, &stampClient{index: k, current: &current})
			sharedConns = append(sharedConns, conn)
		}
	}
	base := heap()
	for i := range all {
		conn := connFor(1)
		resp, err := conn.NewSession(b.Context(), &acp.NewSessionRequest{MCPServers: []acp.MCPServer{}})
		if err != nil {
			b.Fatal(err)
		}
		cv := &conv{id: resp.SessionID, conns: []*acp.ClientConn{conn}}
		if _, err := conn.Prompt(b.Context(), &acp.PromptRequest{SessionID: cv.id, Prompt: []acp.ContentBlock{acp.TextBlock("I am worried about my tests")}}); err != nil {
			b.Fatal(err)
		}
		all[i] = cv
	}
	oneView := heap()
	for _, cv := range all {
		for k := 2; k <= views; k++ {
			conn := connFor(k)
			if _, err := conn.LoadSession(b.Context(), &acp.LoadSessionRequest{SessionID: cv.id, MCPServers: []acp.MCPServer{}}); err != nil {
				b.Fatal(err)
			}
			cv.conns = append(cv.conns, conn)
		}
	}
	fiveViews := heap()

	measured, err := srv.session(all[0].id)
	if err != nil {
		b.Fatal(err)
	}
	var first, fifth time.Duration
	rounds := 0
	for b.Loop() {
		r := newRound(all[0].id, views+1, chunks)
		current.Store(r)
		// The conversation's own moment: a relaying subscription in the process, as each
		// view's is, read at once.
		sub := measured.conv.SubscribeRelay()
		var wg sync.WaitGroup
		wg.Go(func() {
			defer sub.Close()
			for {
				select {
				case <-sub.Ready():
				case <-r.done:
					return
				}
				now := time.Now()
				for _, ev := range sub.Take() {
					if u, ok := ev.(conversation.AgentUpdate); ok && u.Update.AgentMessageChunk != nil {
						text, _ := u.Update.AgentMessageChunk.Content.AsText()
						r.stamp(0, text, now)
					}
				}
			}
		})
		for _, cv := range all[:flooding] {
			wg.Go(func() {
				cv.conns[0].Prompt(b.Context(), &acp.PromptRequest{SessionID: cv.id, Prompt: []acp.ContentBlock{acp.TextBlock(fmt.Sprintf("flood %d", chunks))}})
			})
		}
		select {
		case <-r.done:
		case <-time.After(2 * time.Minute): // a hang guard
			b.Fatal("the flood did not reach every view")
		}
		wg.Wait()
		current.Store(nil)
		first += r.latency(1)
		fifth += r.latency(views)
		if testing.Verbose() {
			for k := 1; k <= views; k++ {
				b.Logf("view %d: %v", k, r.latency(k))
			}
		}
		rounds++
	}
	// Reported after b.Loop, which clears what was reported before it.
	b.ReportMetric(float64(fiveViews-base)/convs, "B/idle-conv")
	b.ReportMetric(float64(oneView-base)/convs, "B/conv-1-view")
	b.ReportMetric(float64(fiveViews-oneView)/(convs*(views-1)), "B/extra-view")
	b.ReportMetric(float64(first.Microseconds())/float64(rounds), "µs-to-view1")
	b.ReportMetric(float64(fifth.Microseconds())/float64(rounds), "µs-to-view5")
	b.ReportMetric(float64(fifth)/float64(first), "view5/view1")
}

// countClient counts the updates it is sent.
type countClient struct {
	mu sync.Mutex
	n  int
}

func (c *countClient) SessionUpdate(context.Context, *acp.SessionNotification) error {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return nil
}

func (c *countClient) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (*countClient) RequestPermission(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
}

// BenchmarkReplayOnLoad: session/load of a conversation of 10,000 updates (5,000 tool
// calls and the messages between them: what the transcript keeps, nothing joined), one
// attach per iteration, against the baseline of the same number of updates from Eliza
// directly to an ACP client (no parley) on the same kind of connection.
func BenchmarkReplayOnLoad(b *testing.B) {
	const calls = 5000
	srv := newTestServer(b)
	owner := &countClient{}
	conn, _ := dial(b, srv, owner)
	resp, err := conn.NewSession(b.Context(), &acp.NewSessionRequest{MCPServers: []acp.MCPServer{}})
	if err != nil {
		b.Fatal(err)
	}
	var lines strings.Builder
	for i := range calls {
		fmt.Fprintf(&lines, "tool call t%d\n", i)
	}
	if _, err := conn.Prompt(b.Context(), &acp.PromptRequest{SessionID: resp.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(lines.String())}}); err != nil {
		b.Fatal(err)
	}
	load := func() (int, time.Duration) {
		c := &countClient{}
		conn, close := dial(b, srv, c)
		start := time.Now()
		if _, err := conn.LoadSession(b.Context(), &acp.LoadSessionRequest{SessionID: resp.SessionID, MCPServers: []acp.MCPServer{}}); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		n := c.count()
		close()
		return n, took
	}
	updates, _ := load()
	direct := directUpdates(b, updates)

	var total time.Duration
	for b.Loop() {
		n, took := load()
		if n != updates {
			b.Fatalf("replayed %d updates, then %d", updates, n)
		}
		total += took
	}
	perAttach := total / time.Duration(b.N)
	perUpdate := float64(perAttach.Nanoseconds()) / float64(updates)
	b.ReportMetric(float64(updates), "updates")
	b.ReportMetric(float64(perAttach.Microseconds())/1000, "ms/attach")
	b.ReportMetric(perUpdate, "ns/update")
	b.ReportMetric(float64(direct.Nanoseconds())/float64(updates), "ns/update-direct")
	b.ReportMetric(perUpdate/(float64(direct.Nanoseconds())/float64(updates)), "x-direct")
}

// directUpdates is the best of three times Eliza (in this process) takes to send n
// updates straight to an ACP client over net.Pipe: flood n, one update a chunk.
func directUpdates(b *testing.B, n int) time.Duration {
	a, c := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		eliza.Serve(ctx, a, eliza.Options{Deterministic: true})
	}()
	counter := &countClient{}
	conn := acp.NewClientConn(c, func(*acp.ClientConn) acp.Client { return counter }, nil)
	defer func() { conn.Close(); cancel(); <-served }()
	if _, err := conn.Initialize(b.Context(), &acp.InitializeRequest{}); err != nil {
		b.Fatal(err)
	}
	s, err := conn.NewSession(b.Context(), &acp.NewSessionRequest{Cwd: b.TempDir(), MCPServers: []acp.MCPServer{}})
	if err != nil {
		b.Fatal(err)
	}
	best := time.Duration(0)
	for range 3 {
		before := counter.count()
		start := time.Now()
		if _, err := conn.Prompt(b.Context(), &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(fmt.Sprintf("flood %d", n))}}); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		if got := counter.count() - before; got < n {
			b.Fatalf("Eliza sent %d updates directly, want %d", got, n)
		}
		if best == 0 || took < best {
			best = took
		}
	}
	return best
}
