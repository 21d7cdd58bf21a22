package acp_test

// The package's promise, checked against parley itself: a client and an agent of about
// twenty lines each, written from `go doc ./acp` alone, work with the real `parley
// eliza` and the real `parley run`.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/testbin"
)

var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// parleyBinary builds cmd/parley once for the tests that drive it.
func parleyBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "acp-parley-")
		if built.err == nil {
			built.path, built.err = testbin.Build(built.dir)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// tinyClient collects the agent's reply and refuses whatever it asks.
type tinyClient struct {
	mu    sync.Mutex
	reply strings.Builder
}

func (c *tinyClient) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	if chunk := n.Update.AgentMessageChunk; chunk != nil {
		text, _ := chunk.Content.AsText()
		c.mu.Lock()
		c.reply.WriteString(text)
		c.mu.Unlock()
	}
	return nil
}

func (c *tinyClient) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
}

func TestTinyClientAgainstParleyEliza(t *testing.T) {
	cmd := exec.Command(parleyBinary(t), "eliza", "--deterministic")
	cmd.Env = testbin.IsolatedEnv(t.TempDir())
	client := &tinyClient{}
	conn, err := acp.StartAgent(cmd, func(*acp.ClientConn) acp.Client { return client }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	init, err := conn.Initialize(t.Context(), &acp.InitializeRequest{ClientInfo: &acp.Implementation{Name: "tiny", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	session, err := conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := conn.Prompt(t.Context(), &acp.PromptRequest{SessionID: session.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("I am worried about my tests")}})
	if err != nil {
		t.Fatal(err)
	}
	// Here ends what a user writes; the rest checks what they got.
	if init.AgentInfo == nil || init.AgentInfo.Name != "parley-eliza" {
		t.Errorf("agent info %+v; want parley-eliza", init.AgentInfo)
	}
	client.mu.Lock()
	reply := client.reply.String()
	client.mu.Unlock()
	if resp.StopReason != acp.StopReasonEndTurn || reply == "" {
		t.Errorf("the turn ended %q with reply %q; want end_turn and the DOCTOR's answer", resp.StopReason, reply)
	}
	t.Logf("eliza said: %s", reply)
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	<-conn.Done()
	if !cmd.ProcessState.Success() {
		t.Errorf("parley eliza ended with %v; want status 0", cmd.ProcessState)
	}
}

// tinyAgent answers with the prompt's words in reverse order.
type tinyAgent struct{ conn *acp.AgentConn }

func (a *tinyAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{AgentInfo: &acp.Implementation{Name: "tiny", Version: "1"}}, nil
}

func (a *tinyAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "tiny-1"}, nil
}

func (a *tinyAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	words := strings.Fields(acp.PromptText(req.Prompt))
	slices.Reverse(words)
	if err := a.conn.Update(ctx, req.SessionID, acp.AgentMessageChunk(acp.TextBlock(strings.Join(words, " ")))); err != nil {
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func tinyAgentMain() int {
	a := &tinyAgent{}
	if err := acp.ServeStdio(context.Background(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestTinyAgentUnderParleyRun(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), parleyBinary(t), "run", "--agent-command", self, "one two three")
	cmd.Env = append(testbin.IsolatedEnv(t.TempDir()), "ACP_TEST_AGENT=tiny")
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("parley run: %v; stderr:\n%s", err, stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != "three two one" {
		t.Errorf("parley run printed %q; want the tiny agent's reply %q (stderr: %s)", got, "three two one", stderr.String())
	}
}
