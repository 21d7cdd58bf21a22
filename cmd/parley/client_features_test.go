package main

// Issue 19: what a complete ACP client shows besides the turn, against the scripted agent
// (scripted_more_test.go): elicitations, settings of every type, usage, the agent's other
// sessions, titles, notices, additional directories and attachments.

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// everyField is a form with a field of every kind the schema has, with their limits.
const everyField = `{"type":"object","title":"Project","properties":{` +
	`"name":{"type":"string","title":"Project name","minLength":3,"maxLength":12,"pattern":"^[a-z-]+$"},` +
	`"email":{"type":"string","title":"Email","format":"email"},` +
	`"seats":{"type":"integer","title":"Seats","minimum":1,"maximum":10},` +
	`"ratio":{"type":"number","title":"Ratio","default":0.5},` +
	`"public":{"type":"boolean","title":"Public","default":false},` +
	`"strategy":{"type":"string","title":"Strategy","enum":["safe","fast"]},` +
	`"tier":{"type":"string","title":"Tier","oneOf":[{"const":"t1","title":"Basic"},{"const":"t2","title":"Pro"}]},` +
	`"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["go","web","cli"]},"minItems":1},` +
	`"password":{"type":"string","title":"Password"},` +
	`"note":{"type":"string","title":"Note"}},` +
	`"required":["name","email","seats","strategy","tier","tags","password"]}`

// TestChatAsksAFormFieldByField: every kind of field, invalid answers refused before
// anything is sent, defaults kept, a secret typed without echo and never shown, then the
// answers as the agent receives them.
func TestChatAsksAFormFieldByField(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	term.typeLine("elicit-form " + everyField)
	term.expect("asks: Tell me about your project")
	term.expect("Project name (required")
	term.typeLine("No")
	term.expect("at least 3 characters")
	term.typeLine("Bad Name")
	term.expect("must match")
	term.typeLine("my-app")
	term.expect("Email (required")
	term.typeLine("not an address")
	term.expect("an email address is needed")
	term.typeLine("me@example.com")
	term.expect("Seats (required, a whole number, 1 to 10)")
	term.typeLine("11")
	term.expect("at most 10")
	term.typeLine("3")
	term.expect("Ratio") // in the schema's order, optional fields among the required
	term.typeLine("0.75")
	term.expect("Public")
	term.typeLine("")
	term.expect("Strategy")
	term.typeLine("bold")
	term.expect("choose one of: safe, fast")
	term.typeLine("2")
	term.expect("Tier")
	term.typeLine("Pro")
	term.expect("Tags")
	term.typeLine("go, cli")
	term.expect("Password")
	term.expect("(hidden)")
	term.typeLine("hunter2-correct")
	term.expect("Note")
	term.typeLine("")
	term.expect("Your answers:")
	term.expect("Password: (hidden)")
	term.typeLine("y")
	term.expect(`elicited: accept email="me@example.com" name="my-app" password=<15 characters> public=false ratio=0.75 seats=3 strategy="fast" tags=["go","cli"] tier="t2"`)
	term.typeLine("/quit")
	term.wait(t, 0)
	if strings.Contains(term.since(0), "hunter2") {
		t.Errorf("the secret was shown:\n%s", term.since(0))
	}
	noSecretUnder(t, filepath.Dir(w.dir), "hunter2")
}

// TestChatElicitationDeclineAndWithdraw: a form declined; one the agent withdraws
// ($/cancel_request after its timeout) leaves the screen.
func TestChatElicitationDeclineAndWithdraw(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	term.typeLine(`elicit-form {"properties":{"x":{"type":"string"}}}`)
	term.expect("> ")
	term.typeLine("/decline")
	term.expect("elicited: decline")
	term.typeLine(`elicit-timeout 300 {"properties":{"x":{"type":"string"}}}`)
	term.expect("asks: Tell me about your project")
	// The agent's reply and parley's note may come in either order.
	first := term.expectEither("the agent withdrew its question", "elicit error: elicitation/create: context deadline exceeded")
	if first == "elicit error: elicitation/create: context deadline exceeded" {
		term.expect("the agent withdrew its question")
	} else {
		term.expect("elicit error")
	}
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestChatOpensAPageOnlyOnConsent: a URL elicitation shows the URL and its host, opens
// it once the user says so, and the agent's completion is shown.
func TestChatOpensAPageOnlyOnConsent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	opened := filepath.Join(t.TempDir(), "opened")
	browser := writeScript(t, "browser", "#!/bin/sh\nprintf '%s' \"$1\" > "+opened+"\n")
	term := startTerminalIn(t, w.dir, append(w.env, "BROWSER="+browser), "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	term.typeLine("elicit-url https://example.com/link?token=abc")
	term.expect("https://example.com/link?token=abc")
	term.expect("host: example.com")
	term.expect("? ")
	term.typeLine("x")
	term.expect("[o] open it")
	if _, err := os.Stat(opened); err == nil {
		t.Fatal("opened before the user said so")
	}
	term.typeLine("o")
	term.expect("done with the page")
	term.expect("elicited: accept")
	if b, _ := os.ReadFile(opened); string(b) != "https://example.com/link?token=abc" {
		t.Errorf("the browser was given %q", b)
	}
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestRunDeclinesElicitations: nobody answers in parley run: a form is declined at once and
// the turn goes on; a URL elicitation, which run does not advertise, is refused.
func TestRunDeclinesElicitations(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := w.run(t, `elicit-form {"properties":{"x":{"type":"string"}},"required":["x"]}`+"\nelicit-url https://example.com/\ncaps?")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || lines[0] != "elicited: decline " || !strings.Contains(lines[1], "elicit error") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "declined what the agent asked") {
		t.Errorf("stderr does not say it declined:\n%s", r.stderr)
	}
	var caps struct {
		Elicitation struct {
			Form *struct{} `json:"form"`
			URL  *struct{} `json:"url"`
		} `json:"elicitation"`
		Auth struct {
			Terminal bool `json:"terminal"`
		} `json:"auth"`
		Meta map[string]bool `json:"_meta"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[2], "caps: ")), &caps); err != nil {
		t.Fatal(err)
	}
	if caps.Elicitation.Form == nil || caps.Elicitation.URL != nil || !caps.Auth.Terminal || !caps.Meta["terminal-auth"] {
		t.Errorf("run advertised %s", lines[2])
	}
}

// TestRunSetsSettingsOfEveryType: --set before the prompt, for a select with groups, a
// boolean, a thought level and a model setting; the agent's option of an unknown type is
// left alone.
func TestRunSetsSettingsOfEveryType(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", fakeAgentCommand(t, "scripted-config"),
		"--set", "model=large", "--set", "brave=true", "--set", "effort=high", "--set", "context=200k", "config?")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if want := "config: mode=ask model=large effort=high context=200k brave=true"; strings.TrimSpace(r.stdout) != want {
		t.Errorf("got %q, want %q", strings.TrimSpace(r.stdout), want)
	}
}

// TestRunRefusesAnUnknownSetting: an unknown id or value exits 2, listing the valid ones,
// and no prompt is sent.
func TestRunRefusesAnUnknownSetting(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	for _, tc := range []struct{ set, want string }{
		{"speed=max", "mode, model, effort, context, brave"},
		{"model=huge", "small, large"},
		{"brave=maybe", "true, false"},
		{"volume=4", "mode, model, effort, context, brave"}, // a type parley does not know is no setting
	} {
		r := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", fakeAgentCommand(t, "scripted-config"), "--set", "mode=code", "--set", tc.set, "config?")
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--set %s: exit %d; stderr:\n%s", tc.set, r.code, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("--set %s: a prompt was sent: %q", tc.set, r.stdout)
		}
	}
}

// TestChatConfig: /config lists the settings, one's values (with its groups), and sets
// one; the legacy /mode goes through the mode option.
func TestChatConfig(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-command", fakeAgentCommand(t, "scripted-config"))
	term.expect("is ready")
	term.typeLine("/config")
	term.expect("effort")
	term.expect("[thought_level]")
	term.expect("context")
	term.expect("[model_config]")
	term.expect("brave")
	term.typeLine("/config model")
	term.expect("Deep models:")
	term.expect("large")
	term.expect("slower, better")
	term.typeLine("/config brave on")
	term.expect("Brave mode: true")
	term.typeLine("/config effort extreme")
	term.expect("its values: low, medium, high")
	term.typeLine("/mode code")
	term.expect("Mode: code")
	term.typeLine("config?")
	term.expect("config: mode=code model=small effort=medium context=32k brave=true")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestUsageAfterTheTurn: usage_update and the end-of-turn usage, in chat after the turn
// and on run --json's stop event.
func TestUsageAfterTheTurn(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := parleyIn(t, w.dir, w.env, "usage 1000 200000 0.25 USD\nturn-usage", "run", "--json", "--agent-command", fakeAgentCommand(t, "scripted"), "-")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if !strings.Contains(r.stdout, `{"type":"usage","used":1000,"size":200000,"cost":{"amount":0.25,"currency":"USD"}}`) {
		t.Errorf("no usage event:\n%s", r.stdout)
	}
	if want := `{"type":"stop","stopReason":"end_turn","usage":{"totalTokens":53000,"inputTokens":35000,"outputTokens":12000,"thoughtTokens":2000}}`; lines[len(lines)-1] != want {
		t.Errorf("stop line %s, want %s", lines[len(lines)-1], want)
	}

	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	term.typeLine("seq usage 1000 200000 0.25 USD ;; turn-usage")
	term.expect("context 1k/200k · 0.25 USD")
	term.expect("usage: 53k tokens (in 35k, out 12k, thinking 2k)")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestChatSessionsCloseAndDelete, and the title the agent gives the session.
func TestChatSessionsCloseAndDelete(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	term.typeLine(`title "Fix the login"`)
	term.expect("(title: Fix the login)")
	term.typeLine("/new")
	term.expect("new session scripted-2")
	term.typeLine("/new")
	term.expect("new session scripted-3")
	term.typeLine("/sessions close scripted-3")
	term.expect("the session this conversation shows")
	term.typeLine("/sessions close scripted-1")
	term.expect("(session scripted-1 closed)")
	term.typeLine("/sessions delete scripted-2")
	term.expect("(session scripted-2 deleted)")
	term.typeLine("/sessions")
	term.expect("about scripted-1 (closed)")
	term.expect("about scripted-3")
	term.typeLine("/quit")
	term.wait(t, 0)
	if strings.Contains(term.since(0), "about scripted-2") {
		t.Errorf("the deleted session is still listed:\n%s", term.since(0))
	}
}

// TestNoticesAndToolNames: the agent's notices are shown, and a permission question names
// the agent's tool.
func TestNoticesAndToolNames(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	term.typeLine(`notice warning "Quota at 90%"`)
	term.expect("[warning from the agent] Quota at 90%: see the dashboard")
	term.typeLine("ask-tool make release")
	term.expect("The agent asks permission: make release (its tool Bash)")
	term.typeLine("n")
	term.expect("chose reject_once")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestAdditionalDirectories: --add-dir reaches an agent that takes additional directories,
// and parley's file access covers it; without it, the directory is outside.
func TestAdditionalDirectories(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	script := "dirs?\nread " + w.outside + "/secret.txt"
	r := w.run(t, script, "--add-dir", w.outside)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if want := "dirs: [\"" + w.outside + "\"]\nread: SECRET"; strings.TrimSpace(r.stdout) != want {
		t.Errorf("with --add-dir: %q, want %q", r.stdout, want)
	}
	r = w.run(t, script)
	if !strings.Contains(r.stdout, "dirs: []") || !strings.Contains(r.stdout, "read error") {
		t.Errorf("without --add-dir: %q", r.stdout)
	}
	if r := w.run(t, "dirs?", "--add-dir", filepath.Join(w.dir, "missing")); r.code != 2 || !strings.Contains(r.stderr, "--add-dir") {
		t.Errorf("a missing --add-dir: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestAttachments: an image reaches an agent that takes images as image content, a text
// file as an embedded resource; an agent that takes neither gets links. In chat, @PATH
// attaches.
func TestAttachments(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	os.WriteFile(filepath.Join(w.dir, "shot.png"), png, 0o644)
	os.WriteFile(filepath.Join(w.dir, "NOTES"), []byte("remember the milk"), 0o644)
	r := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", fakeAgentCommand(t, "scripted"), "--attach", "shot.png", "--attach", "NOTES", "blocks?")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	want := fmt.Sprintf("blocks: text | image image/png %d bytes-b64 file://%s/shot.png | resource text/plain file://%s/NOTES \"remember the milk\"", base64.StdEncoding.EncodedLen(len(png)), w.dir, w.dir)
	if strings.TrimSpace(r.stdout) != want {
		t.Errorf("got  %s\nwant %s", strings.TrimSpace(r.stdout), want)
	}
	r = parleyIn(t, w.dir, w.env, "", "run", "--agent-command", fakeAgentCommand(t, "scripted-plain"), "--attach", "shot.png", "--attach", "NOTES", "blocks?")
	want = "blocks: text | link shot.png image/png file://" + w.dir + "/shot.png | link NOTES text/plain file://" + w.dir + "/NOTES"
	if strings.TrimSpace(r.stdout) != want || !strings.Contains(r.stderr, "does not take images") {
		t.Errorf("plain agent: got %s\nwant %s\nstderr: %s", strings.TrimSpace(r.stdout), want, r.stderr)
	}
	if r := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", fakeAgentCommand(t, "scripted"), "--attach", "missing.txt", "blocks?"); r.code != 2 {
		t.Errorf("a missing attachment: exit %d; stderr:\n%s", r.code, r.stderr)
	}

	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	term.typeLine("blocks? @NOTES")
	term.expect(`resource text/plain file://` + w.dir + `/NOTES "remember the milk"`)
	term.typeLine("/quit")
	term.wait(t, 0)
}
