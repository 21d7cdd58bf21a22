package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/acp"
)

// runFakeAgent is a misbehaving ACP agent, for the tests of how parley copes.
func runFakeAgent(behaviour string) int {
	switch behaviour {
	case "crash-at-start":
		fmt.Fprintln(os.Stderr, "the agent is broken")
		return 3
	case "garbage":
		fmt.Println("Hello! I am not an ACP agent.")
		return 0
	case "garbage-forever":
		fmt.Println("Hello! I am not an ACP agent, and I will wait for ever.")
		select {}
	}
	if behaviour == "tui" {
		return runTUIAgent()
	}
	if behaviour == "escape" {
		return runEscapeAgent()
	}
	if behaviour == "writes-state" {
		// Keeps its state in ~/.myagent, as agents do, and dies as Node does when that
		// is refused.
		state := filepath.Join(os.Getenv("HOME"), ".myagent", "state.json")
		if err := os.MkdirAll(filepath.Dir(state), 0o700); err == nil {
			err = os.WriteFile(state, []byte("{}"), 0o600)
		}
		if _, err := os.Stat(state); err != nil {
			fmt.Fprintf(os.Stderr, "Error: EACCES: permission denied, open '%s'\n", state)
			return 1
		}
		return runEscapeAgent()
	}
	if strings.HasPrefix(behaviour, "hostile-") {
		return runHostileAgent(strings.TrimPrefix(behaviour, "hostile-"))
	}
	if strings.HasPrefix(behaviour, "signin-") {
		return runSignInAgent(behaviour, os.Args[2:])
	}
	if behaviour == "scripted" || behaviour == "scripted-ignoring-eof" || behaviour == "scripted-config" || behaviour == "scripted-plain" {
		a := &scriptedAgent{config: behaviour == "scripted-config", plain: behaviour == "scripted-plain"}
		acp.NewAgentConn(acp.Stdio(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
		<-a.conn.Done()
		if behaviour == "scripted-ignoring-eof" {
			select {} // like agents that only a signal ends
		}
		a.later.Wait() // they end at once: their calls fail on the closed connection
		return 0
	}
	a := &fakeAgent{behaviour: behaviour}
	var stream io.ReadWriteCloser = acp.Stdio()
	if behaviour == "crlf" {
		stream = crlfStream{stream}
	}
	acp.NewAgentConn(stream, func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
	<-a.conn.Done()
	return 0
}

// crlfStream ends every line it writes with \r\n, as a Windows program writing in text
// mode does.
type crlfStream struct{ io.ReadWriteCloser }

func (s crlfStream) Write(b []byte) (int, error) {
	if _, err := s.ReadWriteCloser.Write(bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(b), nil
}

type fakeAgent struct {
	behaviour string
	conn      *acp.AgentConn
}

func (a *fakeAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: acp.NegotiateVersion(req.ProtocolVersion)}, nil
}

func (a *fakeAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	if a.behaviour == "early-updates" {
		// Wrong, but common in the wild: an update before the response that introduces the id.
		a.conn.Update(ctx, "s1", acp.AgentMessageChunk(acp.TextBlock("early ")))
	}
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *fakeAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	switch a.behaviour {
	case "crash-mid-turn":
		a.conn.Update(ctx, req.SessionID, acp.AgentMessageChunk(acp.TextBlock("partial ")))
		fmt.Fprintln(os.Stderr, "the agent died mid-turn")
		os.Exit(4)
	case "refuse":
		return &acp.PromptResponse{StopReason: acp.StopReasonRefusal}, nil
	case "max-tokens":
		return &acp.PromptResponse{StopReason: acp.StopReasonMaxTokens}, nil
	case "early-updates":
		a.conn.Update(ctx, req.SessionID, acp.AgentMessageChunk(acp.TextBlock("bird")))
	case "crlf":
		a.conn.Update(ctx, req.SessionID, acp.AgentMessageChunk(acp.TextBlock("every line of mine ends in CRLF")))
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// runMCPServer is a stdio MCP server with two tools, for eliza's tool commands.
func runMCPServer() int {
	s := newMCPServer()
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcp server:", err)
		return 1
	}
	return 0
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// newMCPServer has "echo" (which waits for a second call when asked, to prove calls run
// concurrently) and "add", and a tool that fails.
func newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-tools", Version: "1"}, nil)
	rendezvous := make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo the text"}, func(ctx context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		switch in.Text {
		case "meet":
			// Returns only once "greet" has been called: proves the calls run at once.
			select {
			case <-rendezvous:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		case "greet":
			close(rendezvous)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add two numbers"}, func(ctx context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "always fails"}, func(ctx context.Context, _ *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("this tool always fails")
	})
	return s
}
