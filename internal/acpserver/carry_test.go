package acpserver

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/parleyapi"
)

func TestForkHandoffAndRewindOpenSessionsParleyHolds(t *testing.T) {
	srv := newTestServer(t)
	p := connect(t, srv)
	s := openTestSession(t, p, "")
	prompt(t, p, s.SessionID, "hello there")

	var fork parleyapi.CarryResult
	if err := p.conn.CallExtension(t.Context(), parleyapi.MethodFork, parleyapi.CarryParams{SessionID: s.SessionID}, &fork); err != nil {
		t.Fatal(err)
	}
	if fork.How != "fork" || fork.SessionID == s.SessionID || !strings.HasPrefix(string(fork.SessionID), "parley-") || fork.Agent != "eliza" {
		t.Fatalf("_parley/fork: %+v; want the agent's fork, in a new session parley holds", fork)
	}
	// The client attaches to it as to any session parley holds.
	if _, err := p.conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: fork.SessionID, Cwd: srv.Workspace(), MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	prompt(t, p, fork.SessionID, "recall")
	if text := p.text(); !strings.Contains(text, "I remember 2 prompts") || !strings.Contains(text, "| hello there") {
		t.Errorf("the fork, as the agent recalls it: %q", text)
	}

	var handed parleyapi.CarryResult
	if err := p.conn.CallExtension(t.Context(), parleyapi.MethodHandoff, parleyapi.CarryParams{SessionID: s.SessionID, Agent: "eliza"}, &handed); err != nil {
		t.Fatal(err)
	}
	if handed.How != "seeded" || handed.SessionID == s.SessionID {
		t.Errorf("_parley/handoff: %+v; want a seeded session", handed)
	}
	if err := p.conn.CallExtension(t.Context(), parleyapi.MethodHandoff, parleyapi.CarryParams{SessionID: s.SessionID}, nil); err == nil {
		t.Error("_parley/handoff without an agent was not refused")
	}

	var rewound parleyapi.CarryResult
	if err := p.conn.CallExtension(t.Context(), parleyapi.MethodRewind, parleyapi.CarryParams{SessionID: s.SessionID, Turn: 1}, &rewound); err != nil {
		t.Fatal(err)
	}
	if rewound.How != "seeded" || rewound.SessionID == s.SessionID {
		t.Errorf("_parley/rewind: %+v; want a seeded session", rewound)
	}
	if err := p.conn.CallExtension(t.Context(), parleyapi.MethodRewind, parleyapi.CarryParams{SessionID: s.SessionID}, nil); err == nil {
		t.Error("_parley/rewind without a turn was not refused")
	}
	// The old session stays: it still answers.
	prompt(t, p, s.SessionID, "still here?")
}
