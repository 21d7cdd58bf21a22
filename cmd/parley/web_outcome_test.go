package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A page that comes late (a reload, a second window) is told how a refused call ended,
// as the first page was: its last _meta.parley.outcome is the rule's refusal, not the
// agent's "failed".
func TestWebLatePageSeesARefusalAsRefused(t *testing.T) {
	t.Parallel()
	cfgHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfgHome, "parley"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgHome, "parley", "config.json"), []byte(`{"permissions":[{"tool":"execute:rm*","action":"reject"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startWeb(t, []string{"XDG_CONFIG_HOME=" + cfgHome}, "--no-open", "--agent-command", fakeAgentCommand(t, "scripted"))
	open := func() *framePage {
		ws, err := initializeOver(t, s.base, nil, "acp", "parley-token."+s.token)
		if err != nil {
			t.Fatal(err)
		}
		return &framePage{t: t, ws: ws}
	}
	first := open()
	first.request(2, "session/new", map[string]any{"cwd": s.cwd(t), "mcpServers": []any{}})
	var created struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(first.until("session/new's answer", isResponse("2")).Result, &created)
	first.request(3, "session/prompt", map[string]any{"sessionId": created.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "tool-ask rm -rf ../victim"}}})
	first.until("the prompt's answer", isResponse("3"))

	lastOutcome := func(frames []frame) string {
		out := ""
		for _, f := range frames {
			if f.Method != "session/update" || !strings.Contains(string(f.Params), "call-rm -rf ../victim") {
				continue
			}
			var u struct {
				Update struct {
					Meta struct {
						Parley struct{ Outcome string } `json:"parley"`
					} `json:"_meta"`
				} `json:"update"`
			}
			json.Unmarshal(f.Params, &u)
			out = u.Update.Meta.Parley.Outcome
		}
		return out
	}
	if got := lastOutcome(first.frames); got != "refused_by_rule" {
		t.Errorf("the first page's last outcome of the refused call: %q; want refused_by_rule", got)
	}
	late := open()
	late.request(2, "session/load", map[string]any{"sessionId": created.SessionID, "cwd": s.cwd(t), "mcpServers": []any{}})
	late.until("session/load's answer", isResponse("2"))
	if got := lastOutcome(late.frames); got != "refused_by_rule" {
		t.Errorf("the late page's last outcome of the refused call: %q; want refused_by_rule", got)
	}
}
