package vscodelm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/conversation"
	elizaagent "github.com/parley-acp/parley/internal/eliza"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/mcpbridge"
)

// The pool starts Eliza as its own binary's `eliza --deterministic`: in this package's
// tests that is the test binary, which then serves Eliza on its stdio.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "eliza" {
		if err := elizaagent.Serve(context.Background(), stdio{}, elizaagent.Options{Deterministic: true}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return os.Stdin.Close() }

// pipeStream is one end of an in-memory connection.
type pipeStream struct {
	io.Reader
	io.WriteCloser
}

// The session of a worker's conversation starts opening in conversation.New, before the
// worker subscribes; on a busy machine it opened (or failed to) first, its Ready or
// StartFailed went to no one, and the worker waited for it with the request pending: the
// request was never answered (issue 32, the benchmark's lost answer). These tests hold
// the worker between New and Subscribe until the start is over, and each request must
// still be answered.

// TestSessionOpenedBeforeTheWorkerSubscribed: two conversations, the first of which also
// starts the agent, the second opening a session on the agent already running (the
// benchmark's case).
func TestSessionOpenedBeforeTheWorkerSubscribed(t *testing.T) {
	c := startHeld(t, -1)
	for id := 1; id <= 2; id++ {
		c.send(t, id, "lm/provideLanguageModelChatResponse", chatParams(fmt.Sprintf("Hello, I am visitor %d.", id), `{"eliza":{"deterministic":true}}`))
		if line := c.await(t, id); strings.Contains(line, `"error"`) {
			t.Fatalf("request %d failed: %s", id, line)
		}
	}
}

// TestSpareOpenedBeforeItsWorkerSubscribed: a spare session (lm/prepareSession) that
// opened before its worker subscribed is taken by the next conversation, which must be
// answered.
func TestSpareOpenedBeforeItsWorkerSubscribed(t *testing.T) {
	c := startHeld(t, 1)
	c.send(t, 1, "lm/prepareSession", PrepareSessionParams{ModelID: "eliza", Agent: json.RawMessage(`{"eliza":{"deterministic":true}}`)})
	c.await(t, 1)
	c.send(t, 2, "lm/provideLanguageModelChatResponse", chatParams("Hello, I am the spare's visitor.", `{"eliza":{"deterministic":true}}`))
	if line := c.await(t, 2); strings.Contains(line, `"error"`) {
		t.Fatalf("the request that took the spare failed: %s", line)
	}
}

// TestStartFailedBeforeTheWorkerSubscribed: an agent that cannot start failed before the
// worker subscribed; the request must get the failure as its answer.
func TestStartFailedBeforeTheWorkerSubscribed(t *testing.T) {
	c := startHeld(t, -1)
	agent, err := json.Marshal(map[string]any{"id": "missing", "name": "missing", "command": filepath.Join(t.TempDir(), "no-such-agent"), "args": []string{}})
	if err != nil {
		t.Fatal(err)
	}
	c.send(t, 1, "lm/provideLanguageModelChatResponse", chatParams("Hello?", string(agent)))
	if line := c.await(t, 1); !strings.Contains(line, `"error"`) {
		t.Fatalf("the request to an agent that cannot start succeeded: %s", line)
	}
}

// heldClient is a client of a Server whose workers are held between conversation.New
// and their Subscribe until the session's start is over.
type heldClient struct {
	write io.Writer
	lines <-chan string
}

func startHeld(t *testing.T, spares int) *heldClient {
	t.Helper()
	home := t.TempDir()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(k, home)
	}
	old := subscribing
	subscribing = holdUntilStarted
	t.Cleanup(func() { subscribing = old })

	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), pipeStream{toServer, toClient}, Options{Logger: slog.New(slog.DiscardHandler), Spares: spares})
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(fromServer)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	t.Cleanup(func() {
		fromClient.Close()
		go func() {
			for range lines { // what the server still writes while it ends
			}
		}()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &heldClient{write: fromClient, lines: lines}
}

// holdUntilStarted waits until c's session is open or its start has failed.
func holdUntilStarted(c *conversation.Conversation) {
	s := c.Subscribe()
	defer s.Close()
	for range s.Ready() {
		for _, ev := range s.Take() {
			switch e := ev.(type) {
			case conversation.Snapshot:
				if e.Ready || (e.Failed != nil && !e.Starting) {
					return
				}
			case conversation.Ready, conversation.StartFailed, conversation.Closed:
				return
			}
		}
	}
}

func chatParams(text, agent string) ChatRequestParams {
	return ChatRequestParams{
		ModelID:  "eliza",
		Messages: []Message{{Role: RoleUser, Content: []ContentPart{TextPart(text)}}},
		Agent:    json.RawMessage(agent),
	}
}

func (c *heldClient) send(t *testing.T, id int, method string, params any) {
	t.Helper()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.write.Write(append(req, '\n')); err != nil {
		t.Fatal(err)
	}
}

// await reads frames until the response to id and returns it; a hang guard bounds the
// wait, as the bug is an answer that never comes.
func (c *heldClient) await(t *testing.T, id int) string {
	t.Helper()
	guard := time.NewTimer(20 * time.Second)
	defer guard.Stop()
	want := fmt.Sprintf(`"id":%d,`, id)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("the server closed the connection before answering request %d", id)
			}
			if strings.Contains(line, want) && !strings.Contains(line, `"method"`) {
				return line
			}
		case <-guard.C:
			t.Fatalf("hang guard: no response to request %d within 20s: the answer was lost", id)
		}
	}
}

// TestMessagesTakenBehindTheCloseAreAnswered: the worker takes its mailbox in batches; a
// request and a VS Code tool call taken in the batch behind the close that ends it must
// be answered, not dropped with the batch.
func TestMessagesTakenBehindTheCloseAreAnswered(t *testing.T) {
	w := newWorker(&Server{logger: slog.New(slog.DiscardHandler)}, "w1", AgentDef{})
	r := &chatRequest{key: "1", answered: make(chan error, 1)}
	reply := make(chan mcpbridge.Result, 1)
	w.mail.Post(closeMsg{})
	w.mail.Post(requestMsg{req: r})
	w.mail.Post(callMsg{reply: reply})
	w.run() // one batch: the three messages were posted before it took any
	select {
	case err := <-r.answered:
		if err == nil {
			t.Error("the request taken behind the close was completed; want an error that says the conversation closed")
		}
	default:
		t.Error("the request taken behind the close was never answered")
	}
	select {
	case res := <-reply:
		if !res.IsError {
			t.Errorf("the tool call taken behind the close got %+v; want an error result", res)
		}
	default:
		t.Error("the tool call taken behind the close was never answered")
	}
}
