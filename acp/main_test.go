package acp_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/parley-acp/parley/acp"
	"go.uber.org/goleak"
)

// TestMain doubles the test binary as the agent programs the tests and examples start
// (ACP_TEST_AGENT names which), so that they need no separate build.
func TestMain(m *testing.M) {
	if role := os.Getenv("ACP_TEST_AGENT"); role != "" {
		os.Exit(runAgent(role))
	}
	code := m.Run()
	removeBuilt()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// runAgent is this process as one of the test agents, on its stdin and stdout.
func runAgent(role string) int {
	switch role {
	case "example": // ExampleServeStdio's agent, as its own program
		ExampleServeStdio()
		return 0
	case "tiny": // the agent TestTinyAgentUnderParleyRun writes from go doc alone
		return tinyAgentMain()
	case "exit-on-new-session":
		a := &scriptedAgent{exitOnNewSession: 3}
		acp.ServeStdio(context.Background(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
		return 0
	case "ignore-eof", "ignore-sigterm":
		if role == "ignore-sigterm" {
			signal.Ignore(syscall.SIGTERM)
		}
		a := &scriptedAgent{}
		acp.ServeStdio(context.Background(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
		select {} // like agents that only a signal ends
	case "until-sigterm":
		// ServeStdio must return when its context ends, although the client keeps the
		// agent's stdin open and says nothing.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		a := &scriptedAgent{}
		if err := acp.ServeStdio(ctx, func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil); err != nil {
			fmt.Fprintln(os.Stderr, "ServeStdio:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown ACP_TEST_AGENT role", role)
	return 2
}

// scriptedAgent is the agent of the process tests.
type scriptedAgent struct {
	conn             *acp.AgentConn
	exitOnNewSession int
}

func (a *scriptedAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{}, nil
}

func (a *scriptedAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	if a.exitOnNewSession != 0 {
		fmt.Fprintln(os.Stderr, "the agent exits on purpose")
		os.Exit(a.exitOnNewSession)
	}
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *scriptedAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}
