package acp

import (
	"bufio"
	"context"
	"errors"
	"net"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// rawAgent reads what a ClientConn writes, method by method, and answers every
// session/prompt with the stop reason cancelled once it has seen the session's
// session/cancel, end_turn otherwise.
func rawAgent(t *testing.T) (*ClientConn, <-chan string) {
	t.Helper()
	x, y := net.Pipe()
	conn := NewClientConn(x, func(*ClientConn) Client { return &testClient{asked: make(chan struct{})} }, nil)
	t.Cleanup(func() { conn.Close() })
	methods := make(chan string, 100)
	go func() {
		defer y.Close()
		defer close(methods)
		r := bufio.NewReader(y)
		var prompt json.RawMessage
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			json.Unmarshal(line, &m)
			methods <- m.Method
			switch m.Method {
			case MethodSessionPrompt:
				prompt = m.ID
			case MethodSessionCancel:
				if prompt != nil {
					y.Write([]byte(`{"jsonrpc":"2.0","id":` + string(prompt) + `,"result":{"stopReason":"cancelled"}}` + "\n"))
				}
			}
		}
	}()
	return conn, methods
}

// A turn cancelled before its prompt went out is not sent at all: neither session/prompt
// (the agent would run it) nor a lone session/cancel.
func TestPromptCancelledBeforeItIsSentSendsNothing(t *testing.T) {
	conn, methods := rawAgent(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := conn.Prompt(ctx, &PromptRequest{SessionID: "s1", Prompt: []ContentBlock{TextBlock("go")}})
	if !errors.Is(err, ErrPromptNotSent) || !errors.Is(err, context.Canceled) {
		t.Errorf("Prompt: %v, want ErrPromptNotSent and the context's cause", err)
	}
	conn.rpc.Notify(t.Context(), "marker", nil)
	if m := <-methods; m != "marker" {
		t.Errorf("the agent got %q, want nothing of the cancelled turn", m)
	}
}

// session/cancel never overtakes the prompt it cancels, however soon the turn is
// cancelled after Prompt was called.
func TestSessionCancelNeverOvertakesThePrompt(t *testing.T) {
	conn, methods := rawAgent(t)
	for range 200 {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := conn.Prompt(ctx, &PromptRequest{SessionID: "s1", Prompt: []ContentBlock{TextBlock("go")}})
			done <- err
		}()
		cancel()
		err := <-done
		if errors.Is(err, ErrPromptNotSent) {
			continue
		}
		if err != nil {
			t.Fatalf("Prompt: %v", err)
		}
		if first, second := <-methods, <-methods; first != MethodSessionPrompt || second != MethodSessionCancel {
			t.Fatalf("the agent got %s then %s, want the prompt before its cancel", first, second)
		}
	}
}

// lateAgent's Prompt starts only once the test lets it, as a handler goroutine that a busy
// machine runs late; it reports whether its context had ended by then.
type lateAgent struct {
	testAgent
	gate      chan struct{}
	cancelled chan struct{} // closed when session/cancel has been handled
}

func (a *lateAgent) Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error) {
	<-a.gate
	if ctx.Err() != nil {
		return &PromptResponse{StopReason: StopReasonCancelled}, nil
	}
	return &PromptResponse{StopReason: StopReasonEndTurn}, nil // the whole turn, run for nothing
}

func (a *lateAgent) Cancel(ctx context.Context, req *CancelNotification) error {
	close(a.cancelled)
	return nil
}

// A session/cancel read right behind its prompt, before the agent's Prompt has even
// started, still ends that prompt: the agent sees its context ended and does not run
// the turn.
func TestCancelReadBeforeThePromptHandlerStartsEndsIt(t *testing.T) {
	x, y := net.Pipe()
	a := &lateAgent{gate: make(chan struct{}), cancelled: make(chan struct{})}
	NewAgentConn(y, func(conn *AgentConn) Agent { a.conn = conn; return a }, nil)
	conn := NewClientConn(x, func(*ClientConn) Client { return &testClient{asked: make(chan struct{})} }, nil)
	t.Cleanup(func() { conn.Close(); a.conn.Close() })

	done := make(chan *PromptResponse, 1)
	pending, err := conn.rpc.Start(t.Context(), MethodSessionPrompt, &PromptRequest{SessionID: "s1", Prompt: []ContentBlock{TextBlock("go")}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		resp := new(PromptResponse)
		if err := pending.Wait(t.Context(), resp); err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	if err := conn.Cancel(t.Context(), &CancelNotification{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	<-a.cancelled
	close(a.gate)
	if resp := <-done; resp.StopReason != StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled: the cancel was lost and the agent ran the turn", resp.StopReason)
	}
}
