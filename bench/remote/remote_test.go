// Package remote measures a turn through `parley acp --connect` (the relay, a WebSocket,
// parley web's server) against the same turn through `parley acp` directly (stdio to
// the server in-process), both with Eliza, run alternately in the same benchmark so
// that both see the same load.
//
//	go test -run '^$' -bench . -count 5 ./bench/remote/
//
// x-direct is the ratio of the two: what reaching a server over --connect costs a turn.
// "sad" is one of Eliza's short replies (a few chunks: latency); "flood" is 2,000
// chunks (the relay's throughput).
package remote

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/testbin"
)

// counter counts the agent's message chunks; it refuses what it is asked.
type counter struct{ chunks atomic.Int64 }

func (c *counter) SessionUpdate(_ context.Context, n *acp.SessionNotification) error {
	if n.Update.AgentMessageChunk != nil {
		c.chunks.Add(1)
	}
	return nil
}

func (c *counter) RequestPermission(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
}

// client is an ACP client on one agent process, with a session open.
type client struct {
	conn    *acp.ClientConn
	count   *counter
	session acp.SessionID
}

func start(b *testing.B, env []string, cwd, name string, args ...string) *client {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir, cmd.Stderr = env, cwd, os.Stderr
	c := &client{count: &counter{}}
	conn, err := acp.StartAgent(cmd, func(*acp.ClientConn) acp.Client { return c.count }, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(b.Context(), time.Minute) // a hang guard
	defer cancel()
	if _, err := conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersion}); err != nil {
		b.Fatal(err)
	}
	s, err := conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: cwd, MCPServers: []acp.MCPServer{}})
	if err != nil {
		b.Fatal(err)
	}
	c.conn, c.session = conn, s.SessionID
	return c
}

// turn runs one turn and returns how long it took.
func (c *client) turn(b *testing.B, prompt string) time.Duration {
	ctx, cancel := context.WithTimeout(b.Context(), time.Minute) // a hang guard
	defer cancel()
	began := time.Now()
	resp, err := c.conn.Prompt(ctx, &acp.PromptRequest{SessionID: c.session, Prompt: []acp.ContentBlock{acp.TextBlock(prompt)}})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		b.Fatalf("the turn: %v, %v", resp, err)
	}
	return time.Since(began)
}

func BenchmarkTurn(b *testing.B) {
	dir := b.TempDir()
	parley, err := testbin.Build(dir)
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), testbin.HomeEnv(b.TempDir())...)
	ws := b.TempDir()

	web := exec.Command(parley, "web", "--no-open", "--agent", "eliza", "--cwd", ws)
	web.Env, web.Stderr = env, os.Stderr
	out, err := web.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := web.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		web.Process.Signal(os.Interrupt)
		web.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("parley web printed no address: %v", err)
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil {
		b.Fatal(err)
	}
	remote := start(b, append(env, "PARLEY_TOKEN="+u.Query().Get("token")), ws, parley, "acp", "--connect", u.Scheme+"://"+u.Host+"/")
	direct := start(b, env, ws, parley, "acp", "--agent", "eliza", "--cwd", ws)

	for _, p := range []struct{ name, prompt string }{
		{"sad", "I feel sad today"},
		{"flood", "flood 2000"},
	} {
		b.Run(p.name, func(b *testing.B) {
			direct.turn(b, p.prompt) // the agents' first turn is not the one measured
			remote.turn(b, p.prompt)
			var viaConnect, viaStdio time.Duration
			for b.Loop() {
				viaConnect += remote.turn(b, p.prompt)
				viaStdio += direct.turn(b, p.prompt)
			}
			n := float64(b.N)
			b.ReportMetric(float64(viaConnect)/n, "ns/turn-connect")
			b.ReportMetric(float64(viaStdio)/n, "ns/turn-direct")
			b.ReportMetric(float64(viaConnect)/float64(viaStdio), "x-direct")
		})
	}
}
