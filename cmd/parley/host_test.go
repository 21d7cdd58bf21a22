package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/testbin"
)

// workspaceFixture is a workspace with a file, and outside it a secret that symlinks
// inside point at.
type workspaceFixture struct {
	dir, outside string
	env          []string
}

func newWorkspace(t *testing.T) workspaceFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := workspaceFixture{dir: filepath.Join(root, "ws"), outside: filepath.Join(root, "outside"), env: isolatedXDG(t)}
	for _, d := range []string{w.dir, w.outside} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(w.dir, "a.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(w.outside, "secret.txt"), []byte("SECRET"), 0o644)
	os.Symlink(filepath.Join(w.outside, "secret.txt"), filepath.Join(w.dir, "link.txt"))
	os.Symlink(w.outside, filepath.Join(w.dir, "outdir"))
	return w
}

func (w workspaceFixture) run(t *testing.T, script string, flags ...string) result {
	t.Helper()
	args := append([]string{"run", "--agent-command", fakeAgentCommand(t, "scripted")}, flags...)
	return parleyIn(t, w.dir, w.env, script, append(args, "-")...)
}

func TestRunConfinesFilesToTheWorkspace(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := w.run(t, strings.Join([]string{
		"read " + w.dir + "/a.txt",
		"read " + w.dir + "/../outside/secret.txt",
		"read " + w.outside + "/secret.txt",
		"read " + w.dir + "/link.txt",
		"read a.txt",
		"write " + w.dir + "/sub/new.txt hello",
		"write " + w.dir + "/outdir/planted.txt evil",
		"write " + w.dir + "/../outside/planted.txt evil",
	}, "\n"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := []string{"read: inside", "read error", "read error", "read error", "read error", "wrote ", "write error", "write error"}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(lines), r.stdout)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, want[i]) {
			t.Errorf("line %d: %q, want %q…", i, l, want[i])
		}
		if strings.Contains(l, "SECRET") {
			t.Errorf("line %d leaked the secret: %q", i, l)
		}
	}
	if strings.Contains(lines[1], "outside") == false {
		t.Errorf("the refusal does not say why: %q", lines[1])
	}
	if b, _ := os.ReadFile(filepath.Join(w.dir, "sub", "new.txt")); string(b) != "hello" {
		t.Errorf("the write inside did not happen: %q", b)
	}
	for _, p := range []string{filepath.Join(w.outside, "planted.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written outside the workspace", p)
		}
	}
}

func TestRunTerminalOutputIsTruncatedOnACharacterBoundary(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := w.run(t, `run 21 sh -c 'i=0; while [ $i -lt 100 ]; do printf é; i=$((i+1)); done; exit 3'`)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	line := strings.TrimSpace(r.stdout)
	if !strings.HasPrefix(line, "exit 3 truncated=true output=") {
		t.Fatalf("got %q", line)
	}
	var out string
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "exit 3 truncated=true output=")), &out); err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(out) || len(out) > 21 || out != strings.Repeat("é", 10) {
		t.Errorf("output %q (%d bytes): want 10 whole é in at most 21 bytes", out, len(out))
	}
}

func TestRunPermissionByKind(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	// Options come in a shuffled order each time: the choice must follow the kind.
	for range 5 {
		r := w.run(t, "ask deploy")
		if r.stdout != "chose reject_once\n" || !strings.Contains(r.stderr, "no terminal to ask") {
			t.Fatalf("no terminal: stdout %q, stderr %q; want a refusal (fail closed)", r.stdout, r.stderr)
		}
		if r := w.run(t, "ask deploy", "--yolo"); r.stdout != "chose allow_once\n" {
			t.Fatalf("--yolo: stdout %q, stderr %q", r.stdout, r.stderr)
		}
	}
	// Configured rules: reject wins over --yolo; ask with nobody to ask refuses.
	cfg := parleyConfigDir(w.env)
	os.MkdirAll(cfg, 0o700)
	os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"permissions":[{"tool":"execute:deploy*","action":"reject"},{"tool":"execute:ship*","action":"allow"}]}`), 0o600)
	if r := w.run(t, "ask deploy", "--yolo"); r.stdout != "chose reject_once\n" {
		t.Errorf("configured reject: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if r := w.run(t, "ask ship it"); r.stdout != "chose allow_once\n" {
		t.Errorf("configured allow: stdout %q, stderr %q", r.stdout, r.stderr)
	}
}

func TestPermissionAlwaysIsRememberedAcrossRuns(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	// First run on a terminal: the user answers "always".
	term := startTerminalIn(t, w.dir, w.env, "run", "--agent-command", fakeAgentCommand(t, "scripted"), "ask git tag v1.0")
	term.expect("The agent asks permission: git tag v1.0")
	term.typeLine("a")
	term.expect("chose allow_always")
	term.wait(t, 0)

	// Later runs without a terminal get the remembered answer.
	if r := w.run(t, "ask git tag v1.0"); r.stdout != "chose allow_always\n" {
		t.Fatalf("second run: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	// Only for that tool: another command is still refused.
	if r := w.run(t, "ask git tag v2.0"); r.stdout != "chose reject_once\n" {
		t.Errorf("another tool: stdout %q", r.stdout)
	}
	r := parleyIn(t, w.dir, w.env, "", "permissions")
	if r.code != 0 || !strings.Contains(r.stdout, "exactly `git tag v1.0`") || !strings.Contains(r.stdout, w.dir) {
		t.Errorf("parley permissions: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := parleyIn(t, w.dir, w.env, "", "permissions", "reset", "--all"); r.code != 0 {
		t.Errorf("reset: exit %d %s", r.code, r.stderr)
	}
	if r := w.run(t, "ask git tag v1.0"); r.stdout != "chose reject_once\n" {
		t.Errorf("after reset: stdout %q", r.stdout)
	}
}

func TestRunCancelWithAPendingPermission(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := startTerminalIn(t, w.dir, w.env, "run", "--agent-command", fakeAgentCommand(t, "scripted"), "ask rm -rf build")
	term.expect("The agent asks permission: rm -rf build")
	term.pty.Write([]byte{3}) // Ctrl-C: session/cancel, and the pending request is answered cancelled
	term.expect("outcome: cancelled")
	term.wait(t, 130)
}

func TestRunJSONEvents(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run", "--json", "think hard\ntool call Build\nhello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	kinds := map[string]int{}
	var last map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		kinds[ev["type"].(string)]++
		last = ev
	}
	if kinds["thought"] == 0 || kinds["tool_call"] < 2 || kinds["text"] == 0 {
		t.Errorf("event kinds %v", kinds)
	}
	if last["type"] != "stop" || last["stopReason"] != "end_turn" {
		t.Errorf("last event %v, want the stop", last)
	}
}

func TestChatModesModelsAndSessions(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	term.typeLine("/mode")
	term.expect("* ask")
	term.typeLine("/mode code")
	term.expect("Mode: code")
	term.typeLine("mode?")
	term.expect("mode: code")
	term.typeLine("/model")
	term.expect("* small")
	term.typeLine("/model large")
	term.expect("model: large")
	term.typeLine("/new")
	term.expect("new session scripted-2")
	term.typeLine("/sessions")
	term.expect("about scripted-1")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestRunAgentCannotRewriteParleysOwnFiles: parley started in $HOME has its own
// configuration inside the workspace. The agent may read it, but neither write it (by any
// name) nor start commands in it.
func TestRunAgentCannotRewriteParleysOwnFiles(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.env = testbin.HomeEnv(w.dir) // the workspace is $HOME
	cfg := parleyConfigDir(w.env)
	mustWrite(t, filepath.Join(cfg, "config.json"), `{}`)
	if err := os.Symlink(cfg, filepath.Join(w.dir, "cfg")); err != nil {
		t.Fatal(err)
	}
	evil := `{"permissions":[{"tool":"*","action":"allow"}]}`
	r := w.run(t, strings.Join([]string{
		"read " + cfg + "/config.json",
		"write " + cfg + "/config.json " + evil,
		"write " + w.dir + "/cfg/config.json " + evil,
		"write " + cfg + "/agents/new.json " + evil,
		"runin " + cfg + " pwd",
		"runin " + w.dir + "/cfg pwd",
		"write " + w.dir + "/notes.txt fine",
	}, "\n"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := []string{"read: {}", "write error", "write error", "write error", "run error", "run error", "wrote "}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(lines), r.stdout)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, want[i]) {
			t.Errorf("line %d: %q, want %q…", i, l, want[i])
		}
	}
	if !strings.Contains(lines[1], "parley's own directory") {
		t.Errorf("the refusal does not say why: %q", lines[1])
	}
	if b, _ := os.ReadFile(filepath.Join(cfg, "config.json")); string(b) != "{}" {
		t.Errorf("the configuration was rewritten: %s", b)
	}
}

// A command run in a terminal can't rewrite parley's configuration either, even with
// --yolo and the workspace at $HOME: writing there is critical, and critical asks (here
// nobody can answer, so it is refused). Landlock cannot carve the directory out of the
// writable workspace; the judgement of the command is what stops it.
func TestRunTerminalCannotRewriteParleysOwnFiles(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.env = testbin.HomeEnv(w.dir) // the workspace is $HOME
	cfg := parleyConfigDir(w.env)
	mustWrite(t, filepath.Join(cfg, "config.json"), `{}`)
	r := w.run(t, strings.Join([]string{
		"run 4096 sh -c 'echo [evil] > " + cfg + "/config.json'",
		"run 4096 cp /dev/null " + cfg + "/config.json",
		"run 4096 echo fine",
	}, "\n"), "--yolo")
	if r.code != 7 { // 7: the turn ended, and parley refused a request with nobody to ask
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(cfg, "config.json")); string(b) != "{}" {
		t.Errorf("the configuration was rewritten: %q\n%s", b, r.stdout)
	}
	if !strings.Contains(r.stdout, "fine") {
		t.Errorf("a harmless command did not run:\n%s", r.stdout)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
