package acpserver

import (
	"strings"
	"sync"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/workspace"
)

// countingLauncher is testLauncher counting the agent processes made (one AgentOptions
// each).
type countingLauncher struct {
	testLauncher
	mu     sync.Mutex
	starts int
}

func (l *countingLauncher) AgentOptions(name string, roots *workspace.Roots) (conversation.AgentOptions, error) {
	l.mu.Lock()
	l.starts++
	l.mu.Unlock()
	return l.testLauncher.AgentOptions(name, roots)
}

func (l *countingLauncher) made() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.starts
}

// After _parley/signed_in (a sign-in in a terminal, which the running agent may not
// know), the next session with that agent gets a process of its own; the session open
// keeps its process, which ends with it.
func TestSignedInStartsANewProcessForNewSessions(t *testing.T) {
	l := &countingLauncher{testLauncher: testLauncher{t}}
	srv, err := New(Options{Launcher: l, DefaultAgent: "eliza", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	p := connect(t, srv) // initialize starts the default agent: process 1
	first := openTestSession(t, p, "eliza")
	if again := openTestSession(t, p, "eliza"); again.SessionID == "" || l.made() != 1 {
		t.Fatalf("%d processes for two sessions before a sign-in; want one, shared", l.made())
	}
	if err := p.conn.CallExtension(t.Context(), parleyapi.MethodSignedIn, parleyapi.SignedInParams{Agent: "eliza"}, nil); err != nil {
		t.Fatal(err)
	}
	if l.made() != 1 {
		t.Errorf("_parley/signed_in started a process itself (%d)", l.made())
	}
	renewed := openTestSession(t, p, "eliza")
	if l.made() != 2 {
		t.Fatalf("%d processes after the sign-in; want a new one for the new session", l.made())
	}
	for _, id := range []acp.SessionID{first.SessionID, renewed.SessionID} {
		if resp := prompt(t, p, id, "I am worried about my tests"); resp.StopReason != acp.StopReasonEndTurn {
			t.Errorf("session %s: stop reason %q", id, resp.StopReason)
		}
	}
	if !strings.Contains(p.text(), "worried about your tests") {
		t.Errorf("reply %q", p.text())
	}
	openTestSession(t, p, "eliza")
	if l.made() != 2 {
		t.Errorf("%d processes: a session after the renewed one shares it", l.made())
	}

	// The sessions on the old process end: it ends with the last (none is left over).
	srv.mu.Lock()
	var old []*session
	for _, ss := range srv.sessions {
		if _, retired := srv.retired[ss.agent]; retired {
			old = append(old, ss)
		}
	}
	retired := len(srv.retired)
	srv.mu.Unlock()
	if retired != 1 || len(old) != 2 {
		t.Fatalf("%d retired processes with %d sessions; want the old one with its two", retired, len(old))
	}
	for _, ss := range old {
		ss.close()
	}
	srv.mu.Lock()
	retired = len(srv.retired)
	srv.mu.Unlock()
	if retired != 0 {
		t.Errorf("the old process outlived its sessions")
	}
}
