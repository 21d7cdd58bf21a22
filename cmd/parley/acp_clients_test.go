package main

// Black-box tests of `parley acp` as third-party ACP clients find it (acpx, the
// TypeScript SDK's ClientSideConnection, an editor): the real binary over its stdio,
// driven by the project's ACP client.

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// acpClient records what `parley acp` sends a client: the updates, parley's extension
// notifications; it allows what it is asked.
type acpClient struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
	ext     []string // method and params of each extension notification
}

func (c *acpClient) SessionUpdate(_ context.Context, n *acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	return nil
}

func (c *acpClient) RequestPermission(_ context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	for _, o := range req.Options {
		if o.Kind == acp.PermissionOptionKindAllowOnce {
			return &acp.RequestPermissionResponse{Outcome: acp.SelectedOutcome(o.OptionID)}, nil
		}
	}
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
}

func (c *acpClient) HandleExtension(_ context.Context, method string, params json.RawMessage, isNotification bool) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ext = append(c.ext, method+" "+string(params))
	return nil, nil
}

func (c *acpClient) extensions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.ext)
}

// startParleyACP runs `parley acp --agent eliza` in w and initializes it with caps.
func startParleyACP(t *testing.T, w workspaceFixture, caps acp.ClientCapabilities) (*acp.ClientConn, *acpClient, *acp.InitializeResponse) {
	t.Helper()
	client := &acpClient{}
	conn, init := startACP(t, w, client, caps, nil, "--agent", "eliza")
	return conn, client, init
}

// startACP runs `parley acp --cwd w.dir args...` (env added to the workspace's) with
// client answering it, and initializes it with caps.
func startACP(t *testing.T, w workspaceFixture, client acp.Client, caps acp.ClientCapabilities, env []string, args ...string) (*acp.ClientConn, *acp.InitializeResponse) {
	t.Helper()
	cmd := exec.Command(self(t), append(append([]string{"acp"}, args...), "--cwd", w.dir)...)
	cmd.Env = append(append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), env...), w.env...)
	cmd.Dir = w.dir
	cmd.Stderr = os.Stderr
	conn, err := acp.StartAgent(cmd, func(*acp.ClientConn) acp.Client { return client }, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	init, err := conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersion, ClientCapabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	return conn, init
}

// promptACP sends text and waits for the turn's end.
func promptACP(t *testing.T, conn *acp.ClientConn, id acp.SessionID, blocks ...acp.ContentBlock) (*acp.PromptResponse, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	return conn.Prompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: blocks})
}

// A client is told what the agent it gets (Eliza, here) takes: embedded files, not
// images or audio (parley said images, and then refused them).
func TestACPInitializeTellsWhatElizaTakes(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	conn, _, init := startParleyACP(t, w, acp.ClientCapabilities{})
	caps := init.AgentCapabilities
	if p := caps.PromptCapabilities; p.Image || p.Audio || !p.EmbeddedContext {
		t.Errorf("promptCapabilities %+v: Eliza takes embedded files, no image, no audio", p)
	}
	if !caps.LoadSession || caps.SessionCapabilities.List == nil || caps.SessionCapabilities.Close == nil {
		t.Errorf("parley's own session capabilities are missing: %+v", caps)
	}
	if caps.MCPCapabilities.HTTP || caps.MCPCapabilities.SSE {
		t.Errorf("mcpCapabilities %+v: parley passes no client MCP servers on", caps.MCPCapabilities)
	}
	s, err := conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: w.dir, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := promptACP(t, conn, s.SessionID, acp.TextBlock("I am worried about my tests"))
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("a text prompt: %v, %v", resp, err)
	}
}

// parley's _parley/* notifications reach only a client that asked for them: another
// (acpx prints every notification it gets) sees the agent's updates only.
func TestACPParleyNotificationsOnlyForAClientThatAsked(t *testing.T) {
	t.Parallel()
	for _, asked := range []bool{false, true} {
		name := "plain client"
		caps := acp.ClientCapabilities{}
		if asked {
			name = "client that asked"
			caps.Meta = acp.Meta{"parley": json.RawMessage(`{}`)}
		}
		t.Run(name, func(t *testing.T) {
			w := newWorkspace(t)
			conn, client, _ := startParleyACP(t, w, caps)
			s, err := conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: w.dir, MCPServers: []acp.MCPServer{}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := promptACP(t, conn, s.SessionID, acp.TextBlock("write file notes.txt with hello")); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(filepath.Join(w.dir, "notes.txt")); err != nil || string(b) != "hello\n" {
				t.Fatalf("notes.txt: %q, %v: the turn did not change the file", b, err)
			}
			// A second turn: what parley sent about the first (its changes come after its
			// end) is on the wire before this one's answer, and handled in order.
			if _, err := promptACP(t, conn, s.SessionID, acp.TextBlock("I am worried about my tests")); err != nil {
				t.Fatal(err)
			}
			var parleys []string
			for _, e := range client.extensions() {
				if strings.HasPrefix(e, "_parley/") {
					parleys = append(parleys, e)
				}
			}
			has := func(method string) bool {
				return slices.ContainsFunc(parleys, func(e string) bool { return strings.HasPrefix(e, method+" ") })
			}
			switch {
			case !asked && len(parleys) > 0:
				t.Errorf("a client that did not ask was sent %q", parleys)
			case asked && (!has("_parley/changes") || !has("_parley/queue")):
				t.Errorf("a client that asked was sent %q; want _parley/changes and _parley/queue", parleys)
			}
		})
	}
}

// elicitationCloser answers an elicitation only once it has closed the session it is
// about: the answer reaches a conversation that has ended.
type elicitationCloser struct {
	acpClient
	conn *acp.ClientConn
}

func (c *elicitationCloser) CreateElicitation(ctx context.Context, req *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
	c.conn.CloseSession(ctx, &acp.CloseSessionRequest{SessionID: req.SessionID})
	return &acp.CreateElicitationResponse{Action: acp.ElicitationActionDecline}, nil
}

func (c *elicitationCloser) CompleteElicitation(context.Context, *acp.CompleteElicitationNotification) error {
	return nil
}

// What reaches a session as it closes is answered or dropped, never waited for: an
// answer to an elicitation that comes after the session/close (the page's user answered
// as another tab closed the conversation) held parley acp for ever, which then did not
// exit when its client went away.
func TestACPAnswerAfterSessionCloseDoesNotHoldParley(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	cmd := exec.Command(self(t), "acp", "--agent", "eliza", "--cwd", w.dir)
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), w.env...)
	cmd.Dir = w.dir
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	client := &elicitationCloser{}
	client.conn = acp.NewClientConn(pipes{stdout, stdin}, func(*acp.ClientConn) acp.Client { return client }, nil)
	caps := acp.ClientCapabilities{Meta: acp.Meta{"parley": json.RawMessage(`{}`)}, Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}
	if _, err := client.conn.Initialize(ctx, &acp.InitializeRequest{ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		s, err := client.conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: w.dir, MCPServers: []acp.MCPServer{}})
		if err != nil {
			t.Fatal(err)
		}
		// The session closes under the turn: it ends cancelled.
		client.conn.Prompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("ask me about tests")}})
	}
	client.conn.Close() // parley's stdin ends: it ends its sessions and exits
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("parley acp ended with %v", err)
		}
	case <-ctx.Done():
		t.Fatal("parley acp did not exit after its client went away")
	}
}

// pipes is a child's stdout and stdin as one stream.
type pipes struct {
	io.Reader
	io.WriteCloser
}

// A client that does not speak parley's sign-in (_parley/sign_in) gets the agent's
// auth_required from session/new, rather than a session it can do nothing with.
func TestACPPlainClientIsToldTheAgentWantsASignIn(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	conn, _ := startACP(t, w, &acpClient{}, acp.ClientCapabilities{}, nil, "--agent-command", fakeAgentCommand(t, "signin-agent"))
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	_, err := conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: w.dir, MCPServers: []acp.MCPServer{}})
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeAuthRequired {
		t.Errorf("session/new: %v; want the agent's auth_required (%d)", err, acp.CodeAuthRequired)
	}
}
