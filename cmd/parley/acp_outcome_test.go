package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/sandbox"
)

// The web page and VS Code read how a call ended from _meta.parley.outcome: a call a
// rule refused reads refused_by_rule there, though the agent reports it "failed".
func TestACPToolCallOutcomeSaysARuleRefusedIt(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.config(t, `{"permissions":[{"tool":"execute:rm*","action":"reject"}]}`)
	client := &acpClient{}
	conn, _ := startACP(t, w, client, acp.ClientCapabilities{}, nil, "--agent-command", fakeAgentCommand(t, "scripted"), "--sandbox", "off")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	s, err := conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: w.dir, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := promptACP(t, conn, s.SessionID, acp.TextBlock("tool-ask rm -rf ../victim\ntool-ask echo hi")); err != nil {
		t.Fatal(err)
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	last := map[acp.ToolCallID]parleyapi.ToolCallMeta{}
	for _, u := range client.updates {
		var id acp.ToolCallID
		var meta acp.Meta
		switch {
		case u.ToolCall != nil:
			id, meta = u.ToolCall.ToolCallID, u.ToolCall.Meta
		case u.ToolCallUpdate != nil:
			id, meta = u.ToolCallUpdate.ToolCallID, u.ToolCallUpdate.Meta
		default:
			continue
		}
		var m parleyapi.ToolCallMeta
		if err := json.Unmarshal(meta["parley"], &m); err != nil {
			t.Fatalf("_meta.parley %q: %v", meta["parley"], err)
		}
		last[id] = m
	}
	if m := last["call-rm -rf ../victim"]; m.Outcome != "refused_by_rule" || m.OutcomeText != "not run: refused by a rule" {
		t.Errorf("the refused call's last _meta.parley: %+v; want refused_by_rule", m)
	}
	if m := last["call-echo hi"]; m.Outcome != "done" {
		t.Errorf("the allowed call's last _meta.parley: %+v; want done", m)
	}
}

// The web page's agent list says, as parley agents and the terminal UI do, whether
// parley's own agent reaches its model server.
func TestACPAgentListSaysWhetherParleyReachesItsModelServer(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.env = append(w.env, "OLLAMA_HOST=127.0.0.1:9", "PARLEY_MODEL=")
	conn, _, _ := startParleyACP(t, w, acp.ClientCapabilities{})
	var res parleyapi.AgentsResult
	if err := conn.CallExtension(t.Context(), parleyapi.MethodAgents, parleyapi.AgentsParams{}, &res); err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Agents {
		if a.Name == "parley" {
			if !strings.HasPrefix(a.Availability, "needs a model server: no Ollama at http://127.0.0.1:9") {
				t.Errorf("parley's availability %q; want that it has no model server", a.Availability)
			}
			return
		}
	}
	t.Errorf("no parley among the agents: %+v", res.Agents)
}

// confinedChooser is a client (the web page, VS Code) that answers "allow while
// confined" when it is offered, and records the options it was offered.
type confinedChooser struct {
	acpClient
	offered [][]acp.PermissionOptionID
}

func (c *confinedChooser) RequestPermission(_ context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []acp.PermissionOptionID
	for _, o := range req.Options {
		ids = append(ids, o.OptionID)
	}
	c.offered = append(c.offered, ids)
	if slices.Contains(ids, "allow_while_confined") {
		return &acp.RequestPermissionResponse{Outcome: acp.SelectedOutcome("allow_while_confined")}, nil
	}
	return &acp.RequestPermissionResponse{Outcome: acp.SelectedOutcome("reject_once")}, nil
}

// The page is offered "allow while confined" as one option of its question (its id
// allow_while_confined), and once chosen the same command is not asked about again.
func TestACPOffersAllowWhileConfined(t *testing.T) {
	t.Parallel()
	if sandbox.Mechanism() == "" {
		t.Skip("nothing confines commands here")
	}
	w := newWorkspace(t)
	client := &confinedChooser{}
	conn, _ := startACP(t, w, client, acp.ClientCapabilities{}, nil, "--agent-command", fakeAgentCommand(t, "scripted"))
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	s, err := conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: w.dir, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := promptACP(t, conn, s.SessionID, acp.TextBlock("ask go test ./...\nask go test ./...")); err != nil {
		t.Fatal(err)
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	if len(client.offered) != 1 || !slices.Contains(client.offered[0], "allow_while_confined") || slices.Contains(client.offered[0], "allow_always") {
		t.Errorf("questions with options %q; want one, offering allow_while_confined and not allow_always", client.offered)
	}
}
