package acp_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
)

// hangGuard bounds a wait that the code under test must end; it is never how a test
// synchronises.
const hangGuard = 20 * time.Second

// agentCommand is this test binary as the agent role.
func agentCommand(t *testing.T, role string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "ACP_TEST_AGENT="+role)
	return cmd
}

// quiet is a client that expects nothing from the agent.
type quiet struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
}

func (q *quiet) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.updates = append(q.updates, n.Update)
	return nil
}

func (q *quiet) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
}

func start(t *testing.T, role string, opts *acp.ConnOptions) (*acp.ClientConn, *exec.Cmd) {
	t.Helper()
	cmd := agentCommand(t, role)
	cmd.Stderr = os.Stderr
	conn, err := acp.StartAgent(cmd, func(*acp.ClientConn) acp.Client { return &quiet{} }, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.Initialize(t.Context(), &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	return conn, cmd
}

func waitDone(t *testing.T, conn *acp.ClientConn, what string) {
	t.Helper()
	select {
	case <-conn.Done():
	case <-time.After(hangGuard):
		t.Fatalf("%s: the connection did not end", what)
	}
}

// TestCloseEndsTheAgentInOrder: Close closes the agent's stdin and the agent exits by
// itself, with status 0; Done is closed once it has.
func TestCloseEndsTheAgentInOrder(t *testing.T) {
	conn, cmd := start(t, "example", nil)
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, conn, "Close")
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("the agent ended with %v; want status 0 (it exits when its input ends)", cmd.ProcessState)
	}
	if err := conn.Err(); err != nil {
		t.Errorf("Err after Close = %v; want nil", err)
	}
}

// TestCloseStopsAnAgentThatIgnoresItsInputEnding: an agent that goes on after its stdin
// closed is asked to stop (SIGTERM), and one that ignores that is killed.
func TestCloseStopsAnAgentThatIgnoresItsInputEnding(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows: StartAgent kills at once")
	}
	for _, tc := range []struct{ role, signal string }{{"ignore-eof", "terminated"}, {"ignore-sigterm", "killed"}} {
		t.Run(tc.role, func(t *testing.T) {
			conn, cmd := start(t, tc.role, &acp.ConnOptions{ExitGrace: 50 * time.Millisecond})
			if err := conn.Close(); err != nil {
				t.Fatal(err)
			}
			waitDone(t, conn, "Close")
			if cmd.ProcessState == nil || !strings.Contains(cmd.ProcessState.String(), tc.signal) {
				t.Errorf("the agent ended with %v; want %s", cmd.ProcessState, tc.signal)
			}
		})
	}
}

// TestAnAgentThatExitsEndsTheConnection: the connection ends with the agent, and Err
// says how the agent ended.
func TestAnAgentThatExitsEndsTheConnection(t *testing.T) {
	conn, _ := start(t, "exit-on-new-session", nil)
	_, err := conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: "/", MCPServers: []acp.MCPServer{}})
	if !acp.IsClosed(err) {
		t.Errorf("NewSession to an agent that exits: %v; want a closed connection", err)
	}
	waitDone(t, conn, "the agent's exit")
	if err := conn.Err(); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("Err = %v; want it to say the agent exited with status 3", err)
	}
}

// TestServeStdioEndsWithItsContext: an agent whose context ends while its client keeps
// the agent's stdin open and says nothing returns from ServeStdio at once, without error.
// A read of stdin that Close cannot interrupt would hold the connection until its close
// deadline, and ServeStdio would fail. (The client here, unlike ClientConn, does not
// close the agent's stdin when the agent's output ends.)
func TestServeStdioEndsWithItsContext(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix signals")
	}
	cmd := agentCommand(t, "until-sigterm")
	toAgent, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer toAgent.Close()
	fromAgent, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(toAgent, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	answer, err := bufio.NewReader(fromAgent).ReadString('\n')
	if err != nil || !strings.Contains(answer, `"protocolVersion":1`) {
		t.Fatalf("initialize answered %q, %v", answer, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, fromAgent) // until the agent closes its output
	if err := cmd.Wait(); err != nil {
		t.Errorf("the agent ended with %v; want status 0; stderr:\n%s", err, stderr.String())
	}
}

func TestStartAgentRefusesWhatItCannotDo(t *testing.T) {
	cmd := agentCommand(t, "example")
	cmd.Stdout = os.Stdout
	if _, err := acp.StartAgent(cmd, func(*acp.ClientConn) acp.Client { return &quiet{} }, nil); err == nil {
		t.Error("StartAgent took a command whose Stdout is set")
	}
	_, err := acp.StartAgent(exec.Command("acp-test-no-such-agent"), func(*acp.ClientConn) acp.Client { return &quiet{} }, nil)
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("a missing command: %v; want exec.ErrNotFound", err)
	}
}
