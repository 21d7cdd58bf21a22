package main

// Issue 26, class 4: a page the agent asks the user to open, whatever its scheme. Only
// http and https pages on a named host, with no user name in them and nothing that hides
// where they lead, are shown to the user to open; any other is declined before any view
// sees it (the agent gets "decline", never "accept"), with a notice saying why.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// notPages are addresses parley must never open for an agent, each with what the notice
// says of it.
var notPages = []struct{ url, why string }{
	{"javascript:alert(1)", "not javascript: addresses"},
	{"JavaScript:alert(document.cookie)", "not javascript: addresses"},
	{"data:text/html,<script>alert(1)</script>", "not data: addresses"},
	{"file:///etc/passwd", "not file: addresses"},
	{"vscode://vscode.git/clone?url=https://evil.example/x", "not vscode: addresses"},
	{"blob:https://example.com/8c1e", "not blob: addresses"},
	{"https://accounts.example.com@evil.example/login", "user name or password"},
	{"https://example.com/\u202egnp.exe", "invisible"},
	{"https:evil.example", "names no host"},
}

// TestChatDeclinesPagesThatAreNotHTTP: in the line chat, each is declined at once with
// a notice, nothing asks the user, and the browser never runs.
func TestChatDeclinesPagesThatAreNotHTTP(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	opened := filepath.Join(t.TempDir(), "opened")
	browser := writeScript(t, "browser", "#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+opened+"\n")
	term := startTerminalIn(t, w.dir, append(w.env, "BROWSER="+browser), "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	for _, p := range notPages {
		term.typeLine("elicit-url " + strconv.Quote(p.url))
		term.expect("request to open a page: ")
		term.expect(p.why)
		term.expect("elicited: decline")
	}
	term.typeLine("/quit")
	term.wait(t, 0)
	if out := term.since(0); strings.Contains(out, "[o] open it") || strings.Contains(out, "It asks you to open") {
		t.Errorf("a page that is not http was put to the user:\n%s", out)
	}
	if b, err := os.ReadFile(opened); err == nil {
		t.Errorf("the browser was given %q", b)
	}
}

// TestWebDeclinesPagesThatAreNotHTTP: parley web never puts one to the page (which would
// have opened it and answered accept); the page gets the notice, the agent "decline".
func TestWebDeclinesPagesThatAreNotHTTP(t *testing.T) {
	t.Parallel()
	s := startWeb(t, nil, "--no-open", "--agent-command", fakeAgentCommand(t, "scripted"))
	ws, err := initializeOver(t, s.base, nil, "acp", "parley-token."+s.token)
	if err != nil {
		t.Fatal(err)
	}
	page := &wsPage{t: t, ws: ws, next: 2}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	page.call("session/new", map[string]any{"cwd": s.cwd(t), "mcpServers": []any{}}, &created)
	for _, p := range notPages[:4] {
		page.reset()
		page.call("session/prompt", map[string]any{"sessionId": created.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "elicit-url " + strconv.Quote(p.url)}}}, nil)
		if len(page.asked) != 0 {
			t.Errorf("%s: the page was asked %v", p.url, page.asked)
		}
		if !strings.Contains(strings.Join(page.notices, "\n"), p.why) {
			t.Errorf("%s: the notices %q do not say %q", p.url, page.notices, p.why)
		}
		if !strings.Contains(page.said, "elicited: decline") {
			t.Errorf("%s: the agent said %q", p.url, page.said)
		}
	}
}

// cwd is the workspace parley web serves (its --cwd).
func (s *webServer) cwd(t *testing.T) string {
	for i, a := range s.cmd.Args {
		if a == "--cwd" {
			return s.cmd.Args[i+1]
		}
	}
	t.Fatal("parley web has no --cwd")
	return ""
}

// wsPage speaks ACP over /acp as the page does, one JSON-RPC message per frame, and
// answers a request from parley the way the page did before: a URL opened and accepted.
type wsPage struct {
	t       *testing.T
	ws      *websocket.Conn
	next    int
	asked   []string // the requests parley made
	notices []string // _parley/notice texts
	said    string   // the agent's message text
}

func (p *wsPage) reset() { p.asked, p.notices, p.said = nil, nil, "" }

func (p *wsPage) send(v any) {
	b, _ := json.Marshal(v)
	if err := p.ws.Write(p.t.Context(), websocket.MessageText, b); err != nil {
		p.t.Fatal(err)
	}
}

// call sends a request and reads until its response, taking what comes meanwhile.
func (p *wsPage) call(method string, params, result any) {
	p.t.Helper()
	id := p.next
	p.next++
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		_, data, err := p.ws.Read(p.t.Context())
		if err != nil {
			p.t.Fatalf("%s: %v", method, err)
		}
		var m frame
		if err := json.Unmarshal(data, &m); err != nil {
			p.t.Fatalf("%s: %v", data, err)
		}
		switch {
		case m.Method == "" && string(m.ID) == fmt.Sprint(id):
			if m.Error != nil {
				p.t.Fatalf("%s: %s", method, m.Error)
			}
			if result != nil {
				json.Unmarshal(m.Result, result)
			}
			return
		case m.Method != "" && m.ID != nil:
			p.asked = append(p.asked, m.Method+" "+string(m.Params))
			p.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"action": "accept"}})
		case m.Method == "_parley/notice":
			var n struct{ Text string }
			json.Unmarshal(m.Params, &n)
			p.notices = append(p.notices, n.Text)
		case m.Method == "session/update":
			var u struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					Content       struct{ Text string }
				}
			}
			json.Unmarshal(m.Params, &u)
			if u.Update.SessionUpdate == "agent_message_chunk" {
				p.said += u.Update.Content.Text
			}
		}
	}
}
