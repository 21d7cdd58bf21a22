package vscodelm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/conversation"
	elizaagent "github.com/parley-acp/parley/internal/eliza"
	"github.com/parley-acp/parley/internal/json"
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

// TestSessionOpenedBeforeTheWorkerSubscribed is issue 32's lost answer: conversation.New
// starts opening the session, and on a busy machine the session opened before the worker
// subscribed. Its Ready went to no one, the worker waited for it with the request pending,
// and the request was never answered. The test holds the worker between New and
// Subscribe until the session is open; each chat request must still be answered.
func TestSessionOpenedBeforeTheWorkerSubscribed(t *testing.T) {
	home := t.TempDir()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(k, home)
	}
	hold := func(c *conversation.Conversation) {
		s := c.Subscribe()
		defer s.Close()
		for range s.Ready() {
			for _, ev := range s.Take() {
				switch e := ev.(type) {
				case conversation.Snapshot:
					if e.Ready {
						return
					}
				case conversation.Ready, conversation.StartFailed, conversation.Closed:
					return
				}
			}
		}
	}
	old := subscribing
	subscribing = hold
	t.Cleanup(func() { subscribing = old })

	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), pipeStream{toServer, toClient}, Options{Logger: slog.New(slog.DiscardHandler), Spares: -1})
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

	// Two conversations: the first also starts the agent, the second opens a session on
	// the agent already running (the benchmark's case).
	for id := 1; id <= 2; id++ {
		params := ChatRequestParams{
			ModelID:  "eliza",
			Messages: []Message{{Role: RoleUser, Content: []ContentPart{TextPart(fmt.Sprintf("Hello, I am visitor %d.", id))}}},
			Agent:    json.RawMessage(`{"eliza":{"deterministic":true}}`),
		}
		req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "lm/provideLanguageModelChatResponse", "params": params})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fromClient.Write(append(req, '\n')); err != nil {
			t.Fatal(err)
		}
		awaitResponse(t, lines, id)
	}
	fromClient.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// awaitResponse reads frames until the response to id, which must be a success; a hang
// guard bounds the wait, as the bug is an answer that never comes.
func awaitResponse(t *testing.T, lines <-chan string, id int) {
	t.Helper()
	guard := time.NewTimer(20 * time.Second)
	defer guard.Stop()
	want := fmt.Sprintf(`"id":%d`, id)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the server closed the connection before answering request %d", id)
			}
			if !strings.Contains(line, want) || strings.Contains(line, `"method"`) {
				continue
			}
			if strings.Contains(line, `"error"`) {
				t.Fatalf("request %d failed: %s", id, line)
			}
			return
		case <-guard.C:
			t.Fatalf("hang guard: no response to request %d within 20s: the answer was lost", id)
		}
	}
}
