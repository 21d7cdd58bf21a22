package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"strings"

	"github.com/parley-acp/parley/acp"
)

// echoAgent answers every prompt with the prompt's text.
type echoAgent struct{ conn *acp.AgentConn }

func (a *echoAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{AgentInfo: &acp.Implementation{Name: "echo", Version: "1.0.0"}}, nil
}

func (a *echoAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "echo-1"}, nil
}

func (a *echoAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	reply := acp.AgentMessageChunk(acp.TextBlock("you said: " + acp.PromptText(req.Prompt)))
	if err := a.conn.Update(ctx, req.SessionID, reply); err != nil {
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// An agent program: an Agent served on the process's stdin and stdout, which its client
// started. (ExampleStartAgent runs this program.)
func ExampleServeStdio() {
	a := &echoAgent{}
	err := acp.ServeStdio(context.Background(), func(conn *acp.AgentConn) acp.Agent {
		a.conn = conn // the connection a is served on: a sends its updates through it
		return a
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
}

// printer is a client that prints the agent's replies and refuses what it asks.
type printer struct{}

func (printer) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	if chunk := n.Update.AgentMessageChunk; chunk != nil {
		text, _ := chunk.Content.AsText()
		fmt.Println(text)
	}
	return nil
}

func (printer) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	for _, option := range req.Options {
		if option.Kind == acp.PermissionOptionKindRejectOnce {
			return &acp.RequestPermissionResponse{Outcome: acp.SelectedOutcome(option.OptionID)}, nil
		}
	}
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
}

// A client that runs an agent command. The agent here is this example's own test binary
// running ExampleServeStdio; in a program it is the agent's command, such as
// exec.Command("parley", "eliza").
func ExampleStartAgent() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "ACP_TEST_AGENT=example")
	cmd.Stderr = os.Stderr // the agent's log
	conn, err := acp.StartAgent(cmd, func(*acp.ClientConn) acp.Client { return printer{} }, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close() // ends the agent process too

	ctx := context.Background()
	if _, err := conn.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		log.Fatal(err)
	}
	cwd, _ := os.Getwd()
	session, err := conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: cwd, MCPServers: []acp.MCPServer{}})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := conn.Prompt(ctx, &acp.PromptRequest{SessionID: session.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("hello")}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("the turn ended:", resp.StopReason)
	// Output:
	// you said: hello
	// the turn ended: end_turn
}

// shouter is an agent with an extension method of its own, "_example.org/shout".
type shouter struct{ echoAgent }

func (s *shouter) HandleExtension(ctx context.Context, method string, params json.RawMessage, isNotification bool) (any, error) {
	if method != "_example.org/shout" {
		return nil, acp.ErrMethodNotFound // unknown requests are answered -32601
	}
	var p struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.ErrInvalidParams("%s: %v", method, err)
	}
	return map[string]string{"text": strings.ToUpper(p.Text)}, nil
}

// A custom extension method: the agent implements ExtensionHandler, the client calls the
// method with CallExtension. Here both ends are in one process, over an in-memory pipe.
func ExampleExtensionHandler() {
	agentEnd, clientEnd := net.Pipe()
	agent := &shouter{}
	acp.NewAgentConn(agentEnd, func(conn *acp.AgentConn) acp.Agent { agent.conn = conn; return agent }, nil)
	conn := acp.NewClientConn(clientEnd, func(*acp.ClientConn) acp.Client { return printer{} }, nil)
	defer conn.Close()

	var result struct {
		Text string `json:"text"`
	}
	err := conn.CallExtension(context.Background(), "_example.org/shout", map[string]string{"text": "hello"}, &result)
	fmt.Println(result.Text, err)
	err = conn.CallExtension(context.Background(), "_example.org/whisper", nil, nil)
	fmt.Println(err)
	// Output:
	// HELLO <nil>
	// method not found: _example.org/whisper (code -32601)
}
