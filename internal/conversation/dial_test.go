package conversation

import (
	"context"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
)

// serverAgent is an agent reached over AgentOptions.Dial, as a parley server is: it keeps
// its sessions past a connection, and records the sessions it was asked to load.
type serverAgent struct {
	mu    sync.Mutex
	loads []acp.SessionID
	conns []*acp.AgentConn
}

func (s *serverAgent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersion, AgentCapabilities: acp.AgentCapabilities{LoadSession: true}}, nil
}

func (s *serverAgent) NewSession(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "kept"}, nil
}

func (s *serverAgent) LoadSession(_ context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loads = append(s.loads, req.SessionID)
	return &acp.LoadSessionResponse{}, nil
}

func (s *serverAgent) Prompt(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error) {
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (s *serverAgent) dial(context.Context) (io.ReadWriteCloser, error) {
	client, server := net.Pipe()
	conn := acp.NewAgentConn(server, func(*acp.AgentConn) acp.Agent { return s }, nil)
	s.mu.Lock()
	s.conns = append(s.conns, conn)
	s.mu.Unlock()
	return client, nil
}

// The connection to a server dropping: the next prompt dials again and attaches to the
// same session (session/load), never a new one.
func TestDialedAgentReattachesAfterADrop(t *testing.T) {
	srv := &serverAgent{}
	a := NewAgent(AgentOptions{Name: "server", Dial: srv.dial, Timeout: 30 * time.Second})
	t.Cleanup(a.Close)
	c := testConversation(t, a, false)
	v := watch(t, c)
	v.until(opened) // a dialed agent may be ready before the view subscribes
	srv.mu.Lock()
	first := srv.conns[0]
	srv.mu.Unlock()
	first.Close() // the network drops
	a.mu.Lock()
	proc := a.proc
	a.mu.Unlock()
	<-proc.Exited() // parley has seen it
	p := c.Send([]acp.ContentBlock{acp.TextBlock("hello")})
	evs := v.until(func(ev Event) bool { e, ok := ev.(TurnEnded); return ok && e.Turn == p.ID })
	if end := evs[len(evs)-1].(TurnEnded); end.Err != nil {
		t.Errorf("the prompt after the drop: %v", end.Err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if !slices.Equal(srv.loads, []acp.SessionID{"kept"}) {
		t.Errorf("after the drop, the sessions loaded were %v; want the one kept", srv.loads)
	}
	for _, conn := range srv.conns {
		conn.Close()
	}
}

// opened is the session open: the Ready event, or a Snapshot taken after it (a dialed
// agent starts at once, so the start may be over before a view comes).
func opened(ev Event) bool {
	switch e := ev.(type) {
	case Ready:
		return true
	case Snapshot:
		return e.Ready
	}
	return false
}
