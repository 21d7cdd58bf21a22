package acpserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// What a plain ACP client (one that did not ask for parley's extensions) finds.

func TestInitializeTellsThePromptCapabilitiesOfTheAgentAClientGets(t *testing.T) {
	srv := newTestServer(t)
	// Eliza takes embedded files, not images or audio.
	_, init := connectAs(t, srv, acp.ClientCapabilities{})
	if got, want := init.AgentCapabilities.PromptCapabilities, (acp.PromptCapabilities{EmbeddedContext: true}); !promptCapsEqual(got, want) {
		t.Errorf("a plain client was told %+v, want Eliza's %+v", got, want)
	}
	// A page chooses each session's agent: it is told only what every agent takes, and
	// each session's own with the session.
	page, init := connectAs(t, srv, pageCapabilities)
	if got := init.AgentCapabilities.PromptCapabilities; !promptCapsEqual(got, acp.PromptCapabilities{}) {
		t.Errorf("a page was told %+v, want what every agent takes", got)
	}
	s := openTestSession(t, page, "")
	if !strings.Contains(string(s.Meta["parley"]), `"promptCapabilities":{"embeddedContext":true}`) {
		t.Errorf("the session's _meta.parley %s does not carry Eliza's prompt capabilities", s.Meta["parley"])
	}
	for _, caps := range []acp.AgentCapabilities{init.AgentCapabilities} {
		if !caps.LoadSession || caps.SessionCapabilities.List == nil || caps.SessionCapabilities.Close == nil || caps.MCPCapabilities.HTTP || caps.MCPCapabilities.SSE {
			t.Errorf("parley's own capabilities: %+v", caps)
		}
	}
}

func promptCapsEqual(a, b acp.PromptCapabilities) bool {
	return a.Image == b.Image && a.Audio == b.Audio && a.EmbeddedContext == b.EmbeddedContext
}

func TestOnlyAClientThatAskedGetsParleysNotifications(t *testing.T) {
	srv := newTestServer(t)
	plain, _ := connectAs(t, srv, acp.ClientCapabilities{})
	pg := connect(t, srv)
	for _, p := range []*page{plain, pg} {
		s := openTestSession(t, p, "")
		if resp := prompt(t, p, s.SessionID, "I am worried about my tests"); resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("stop reason %q", resp.StopReason)
		}
	}
	// The page was told the queue (after its turn), the status...
	pg.waitFor(t, "the page's _parley/queue", func() bool {
		pg.mu.Lock()
		defer pg.mu.Unlock()
		return slices.ContainsFunc(pg.ext, func(e string) bool { return strings.HasPrefix(e, parleyapi.MethodQueue+" ") })
	})
	// ... and the plain client nothing of parley's (its turn ended before the page's
	// started: whatever it was sent came before).
	plain.mu.Lock()
	ext := slices.Clone(plain.ext)
	plain.mu.Unlock()
	if len(ext) > 0 {
		t.Errorf("a plain client was sent parley's notifications: %q", ext)
	}
	if text := plain.text(); !strings.Contains(text, "worried about your tests") {
		t.Errorf("the plain client's reply %q", text)
	}
}

// A session opened by a client that answers no elicitations declines the agent's at once
// (the turn goes on) rather than leaving them for a view that may never come.
func TestAClientThatTakesNoElicitationsIsNotAsked(t *testing.T) {
	srv := newTestServer(t)
	plain, _ := connectAs(t, srv, acp.ClientCapabilities{})
	s := openTestSession(t, plain, "")
	if resp := prompt(t, plain, s.SessionID, "ask me about tests"); resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	if text := plain.text(); !strings.Contains(text, "you chose to decline") {
		t.Errorf("reply %q: the elicitation was not declined", text)
	}
}
