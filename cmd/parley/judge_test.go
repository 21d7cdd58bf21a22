package main

// Issue 16 (and 23.4): the judge fails closed. Each class of command the issue names,
// and those found by attacking the judge, is driven through the real binary: through
// `parley agent` with a scripted model (its approvals), and through `parley run` and
// `parley chat` with the scripted agent (the client host's permission policy and
// terminal/create).

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
	_ "modernc.org/sqlite"
)

// needs skips the test when a program it drives is not installed.
func needs(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// agentRuns has parley agent, with flags, run each command the scripted model asks
// for in turn, the client answering every question with answer; it returns the
// questions asked.
func agentRuns(t *testing.T, w workspaceFixture, commands []string, answer func(*acp.RequestPermissionRequest) string, flags ...string) []*acp.RequestPermissionRequest {
	t.Helper()
	var replies []fakellm.Reply
	for _, c := range commands {
		replies = append(replies, fakellm.Reply{ToolCalls: []llm.ToolCall{runTool(c)}})
	}
	replies = append(replies, fakellm.Reply{Content: []string{"done"}})
	fake := fakellm.New(t, replies...)
	p := startAgent(t, w.dir, w.env, fake, flags...)
	p.client.answer = answer
	if stop := p.prompt(t, p.newSession(t, w.dir), "go"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q", stop)
	}
	return p.client.questions()
}

// askedAbout returns the commands among asked's titles ("Run `cmd`").
func askedAbout(asked []*acp.RequestPermissionRequest) []string {
	var out []string
	for _, q := range asked {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(q.ToolCall.Title, "Run `"), "`"))
	}
	return out
}

func questionText(q *acp.RequestPermissionRequest) string {
	var b strings.Builder
	for _, c := range q.ToolCall.Content {
		if c.Content != nil {
			s, _ := c.Content.Content.AsText()
			b.WriteString(s)
		}
	}
	return b.String()
}

// Class 1: ordinary programs that run code (make, git grep -O, a compiler's -wrapper,
// sed -f, bash's arithmetic and prompt expansion, printf -v, hash -p, aliases,
// functions) or write through an option are asked about at parley agent's default
// settings; harmless commands still are not. Each command, if it ran, would leave a
// file.
func TestAgentAsksBeforeOrdinaryProgramsRunCode(t *testing.T) {
	t.Parallel()
	needs(t, "make", "git", "cc", "bash", "xxd", "openssl", "iconv", "npm")
	w := newWorkspace(t)
	touch, _ := exec.LookPath("touch")
	writeFiles(t, w.dir, map[string]string{
		"evil.mk":      "all:\n\ttouch m-makefile\n",
		"Makefile":     "test:\n\ttouch m-maketest\n",
		"s.sed":        "1e touch m-sed\n",
		"data.txt":     "a[$(touch m-arith)]",
		"prompt.txt":   "$(touch m-prompt)",
		"name.txt":     "a[$(touch m-printf)]",
		"x.c":          "int main(void) { return 0; }\n",
		"package.json": `{"name":"x","version":"1.0.0","scripts":{"test":"touch m-npm"}}`,
	})
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}} {
		if out, err := exec.Command("git", append([]string{"-C", w.dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	classes := map[string]string{ // command: the file it leaves when it runs
		"make --eval 'x:;@touch m-eval' x":       "m-eval",
		"make -f evil.mk":                        "m-makefile",
		"make test":                              "m-maketest",
		"npm test":                               "m-npm",
		"git grep -O'touch m-grep; true' inside": "m-grep",
		"cc -wrapper " + touch + ",m-wrapper -fsyntax-only x.c": "m-wrapper",
		"sed -f s.sed a.txt":                                                "m-sed",
		`bash -c 'x=$(cat data.txt); echo $((x))'`:                          "m-arith",
		`bash -c 'x=$(cat prompt.txt); echo "${x@P}"'`:                      "m-prompt",
		`bash -c 'printf -v "$(cat name.txt)" x'`:                           "m-printf",
		"bash -c 'hash -p " + touch + " ls; ls m-hash'":                     "m-hash",
		"bash -c 'cat() { touch m-func; }; cat a.txt'":                      "m-func",
		"bash -c 'shopt -s expand_aliases\nalias ls=\"touch m-alias\"\nls'": "m-alias",
		"xxd a.txt m-xxd":                                                   "m-xxd",
		"uniq a.txt m-uniq":                                                 "m-uniq",
		"openssl enc -base64 -in a.txt -out m-openssl":                      "m-openssl",
		"iconv -f utf-8 -t utf-8 -o m-iconv a.txt":                          "m-iconv",
	}
	var commands []string
	for c := range classes {
		commands = append(commands, c)
	}
	slices.Sort(commands)
	harmless := []string{"cat a.txt", "grep -n inside a.txt", "ls -la", "git log --oneline"}
	asked := askedAbout(agentRuns(t, w, append(commands, harmless...), nil))
	for _, c := range commands {
		if !slices.Contains(asked, c) {
			t.Errorf("%q ran without a question", c)
		}
		if _, err := os.Stat(filepath.Join(w.dir, classes[c])); err == nil {
			t.Errorf("%q ran: %s exists", c, classes[c])
		}
	}
	for _, c := range harmless {
		if slices.Contains(asked, c) {
			t.Errorf("the harmless %q was asked about at the default settings", c)
		}
	}
}

// Issue 23.4: with --auto-approve none every command asks, harmless ones too; the
// default keeps harmless commands unasked, and --help says so.
func TestAgentAutoApproveNoneAsksForHarmlessCommands(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	if asked := askedAbout(agentRuns(t, w, []string{"ls"}, nil, "--auto-approve", "none")); !slices.Equal(asked, []string{"ls"}) {
		t.Errorf("--auto-approve none: asked about %q, want ls", asked)
	}
	if asked := agentRuns(t, w, []string{"ls"}, nil); len(asked) != 0 {
		t.Errorf("the default asked about %q", askedAbout(asked))
	}
	r := parley(t, "", "agent", "--help")
	help := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range []string{"none nothing: every command asks, harmless ones too", "The default is harmless,edits"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not say %q:\n%s", want, r.stdout)
		}
	}
}

// Class 3: recursive deletes through a wrapper or an interpreter are critical, so
// --yolo asks before each (and the client refuses); an ordinary command still runs.
// Unconfined (--sandbox off), each would delete its victim outside the workspace.
func TestAgentAsksBeforeDeletesThroughWrappersUnderYolo(t *testing.T) {
	t.Parallel()
	needs(t, "script", "python3", "perl", "node", "git", "prlimit", "setarch")
	w := newWorkspace(t)
	victims := []string{"v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"}
	for _, v := range victims {
		writeFiles(t, w.outside, map[string]string{v + "/keep.txt": "precious"})
	}
	if out, err := exec.Command("git", "init", "-q", filepath.Join(w.outside, "v6")).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	commands := []string{
		"script -qc 'rm -rf ../outside/v1' /dev/null",
		`f() { "$@"; }; f rm -rf ../outside/v2`,
		`python3 -c 'import shutil; shutil.rmtree("../outside/v3")'`,
		`perl -MFile::Path -e 'rmtree "../outside/v4"'`,
		`node -e 'require("fs").rmSync("../outside/v5", {recursive: true})'`,
		"git -C ../outside/v6 clean -fdx",
		"prlimit rm -rf ../outside/v7",
		"setarch $(uname -m) rm -rf ../outside/v8",
	}
	asked := agentRuns(t, w, append([]string{"touch made-under-yolo"}, commands...), nil, "--yolo", "--sandbox", "off")
	if got := askedAbout(asked); !slices.Equal(got, commands) {
		t.Errorf("asked about %q\nwant %q", got, commands)
	}
	for _, q := range asked {
		if !strings.Contains(questionText(q), "Risk: critical") {
			t.Errorf("%s: not shown as critical: %q", q.ToolCall.Title, questionText(q))
		}
	}
	for _, v := range victims {
		if _, err := os.Stat(filepath.Join(w.outside, v, "keep.txt")); err != nil {
			t.Errorf("%s was deleted: %v", v, err)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, "made-under-yolo")); err != nil {
		t.Errorf("an ordinary command did not run under --yolo: %v", err)
	}
}

// criticalClasses are commands that are critical however they are spelt: the client
// host, with --yolo and nobody to ask, must refuse each one.
var criticalClasses = []string{
	"tmux new-session -d 'rm -rf ~'",
	"tmux send-keys -t x 'rm -rf ~' Enter",
	`screen -X stuff 'rm -rf ~\n'`,
	"git -C .. clean -fdx",
	`docker run -v "$PWD":/w alpine rm -rf /w`,
	"ssh localhost 'rm -rf ~'",
	"cmake -E rm -rf ..",
	"parallel rm -rf ::: ~",
	"at now <<< 'rm -rf ~'",
	"systemd-run --user rm -rf ~",
	"chroot / rm -rf ~",
	"uv run rm -rf ~",
	"npx -c 'rm -rf ~'",
	"man -P 'rm -rf ~' ls",
	"less '+!rm -rf ~' a.txt",
	"dc -e '!rm -rf ~'",
	"sqlite3 x.db '.shell rm -rf ~'",
	"gdb -batch -ex 'shell rm -rf ~'",
	"vim -c '!rm -rf ~' -c q",
	"rsync -a --delete empty/ ./",
	"$SHELL -c 'rm -rf ~'",
	"hash -p /bin/rm ls; ls -rf ~",
	"env 'BASH_FUNC_ls%%=() { rm -rf ~; }' bash -c ls",
	"mapfile -C 'rm -rf ~' -c 1 arr < a.txt",
	"git -c core.pager='rm -rf ~' log",
	"GIT_SSH_COMMAND='rm -rf ~' git fetch",
	"make CC='rm -rf ~'",
	"cc -wrapper rm,-rf,/ -c x.c",
	"sed 's/x/y/e' a.txt",
	"sed \"s/$A/$B/\" a.txt",
	"awk '{print | $1}' a.txt",
	"x='a[$(rm -rf ~)]'; echo $((x))",
	`python3 -c "getattr(__import__('os'),'system')('id')"`,
	"python3 -c 'import os; os.system(cmd)'",
	`eval "$CMD"`,
	`sh -c "$X"`,
	"git diff | sh",
	`script -qc 'rm -rf "$PWD"' /dev/null`,
	`f() { "$@"; }; f rm -rf "$PWD"`,
	`python3 -c 'import shutil; shutil.rmtree(".")'`,
	`perl -MFile::Path -e 'rmtree "."'`,
	`node -e 'require("fs").rmSync(".", {recursive: true})'`,
	"mywrapper rm -rf ~",
	"mytool --cmd 'rm -rf ~'",
	"julia -e 'rm(pwd(); recursive=true)'",
}

// The client host's policy gets the same judge: with --yolo and nobody to ask, each
// critical class is refused (--yolo allows ordinary commands).
func TestHostRefusesCriticalClassesUnderYolo(t *testing.T) {
	t.Parallel()
	refusedUnderYolo(t, newWorkspace(t), criticalClasses)
}

// refusedUnderYolo runs ls and then each command through parley run --yolo with nobody to
// ask: ls is allowed, every command refused.
func refusedUnderYolo(t *testing.T, w workspaceFixture, commands []string) {
	t.Helper()
	r := w.run(t, "ask ls\nask "+strings.Join(commands, "\nask "), "--yolo")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != len(commands)+1 {
		t.Fatalf("%d answers for %d questions:\n%s\nstderr %s", len(lines), len(commands)+1, r.stdout, r.stderr)
	}
	if lines[0] != "chose allow_once" {
		t.Errorf("ls under --yolo: %q", lines[0])
	}
	for i, c := range commands {
		if lines[i+1] != "chose reject_once" {
			t.Errorf("%s under --yolo with nobody to ask: %q, want a refusal", c, lines[i+1])
		}
	}
}

// terminal/create runs what the agent sends without asking unless it is critical: a
// delete through an interpreter, and a command its environment turns into a delete,
// are refused with nobody to ask. Each would delete its victim outside the workspace.
func TestTerminalRefusesCriticalCodeAndEnvironment(t *testing.T) {
	t.Parallel()
	needs(t, "python3", "git")
	w := newWorkspace(t)
	for _, v := range []string{"vp", "ve"} {
		writeFiles(t, w.outside, map[string]string{v + "/keep.txt": "precious"})
	}
	r := w.run(t, strings.Join([]string{
		`run 100 sh -c 'python3 -c "import shutil; shutil.rmtree(\"../outside/vp\")"'`,
		"runenv GIT_SSH_COMMAND=rm -rf ../outside/ve ;; 100 git ls-remote ssh://example.invalid/r",
	}, "\n"), "--sandbox", "off")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "run error") || !strings.HasPrefix(lines[1], "run error") {
		t.Errorf("stdout %q, want two refusals; stderr:\n%s", r.stdout, r.stderr)
	}
	for _, v := range []string{"vp", "ve"} {
		if _, err := os.Stat(filepath.Join(w.outside, v, "keep.txt")); err != nil {
			t.Errorf("%s was deleted: %v", v, err)
		}
	}
}

// Class 5a: "always" does not outlive what it approved. A command that runs a file the
// agent can change is never offered "always allow": after the agent rewrites build.sh,
// running it again asks again.
func TestAgentAlwaysIsNotOfferedForScriptsTheAgentCanChange(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	writeFiles(t, w.dir, map[string]string{"build.sh": "echo building\n"})
	fake := fakellm.New(t,
		fakellm.Reply{ToolCalls: []llm.ToolCall{runTool("sh build.sh")}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{tool("write_file", `{"path":"build.sh","content":"touch rewritten-ran\n"}`)}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runTool("sh build.sh")}},
		fakellm.Reply{Content: []string{"built"}},
	)
	p := startAgent(t, w.dir, w.env, fake)
	p.client.answer = func(req *acp.RequestPermissionRequest) string {
		for _, o := range req.Options {
			if o.Kind == acp.PermissionOptionKindAllowAlways {
				return string(o.OptionID) // the broadest allow offered
			}
		}
		return "allow_once"
	}
	p.prompt(t, p.newSession(t, w.dir), "build")
	asked := p.client.questions()
	if got := askedAbout(asked); !slices.Equal(got, []string{"sh build.sh", "sh build.sh"}) {
		t.Errorf("asked about %q: the rewritten script must be asked about again", got)
	}
	for _, q := range asked {
		for _, o := range q.Options {
			if o.Kind == acp.PermissionOptionKindAllowAlways {
				t.Errorf("%s offers %s (%s)", q.ToolCall.Title, o.OptionID, o.Name)
			}
		}
	}
}

// The same in the client host: the question about a script offers no "always allow".
func TestHostOffersNoAlwaysForScripts(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := w.chat(t)
	mark := term.mark()
	term.typeLine("ask sh build.sh")
	term.expect("The agent runs: sh build.sh")
	term.expect("? ")
	if q := term.since(mark); strings.Contains(q, "[a]") || !strings.Contains(q, "[r]") {
		t.Errorf("the question about a script:\n%s", q)
	}
	term.typeLine("n")
	term.expect("chose reject_once")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// Class 5b: rules see through run-time spellings. A rule that refuses *git push* makes
// an alias (from the configuration or given with -c), a program in a variable, eval of
// a variable and arguments read by xargs ask; with nobody to ask, they are refused, and
// terminal/create does not run the configured alias.
func TestRulesSeeThroughRunTimeSpellings(t *testing.T) {
	t.Parallel()
	needs(t, "git")
	w := newWorkspace(t)
	w.config(t, `{"permissions":[{"tool":"execute:*git push*","action":"reject"}]}`)
	for _, args := range [][]string{{"init", "-q"}, {"config", "alias.p", "!touch m-alias-ran"}} {
		if out, err := exec.Command("git", append([]string{"-C", w.dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	spellings := []string{"git p", "git -c alias.x=push x", "$GIT push", "G=git; $G push", `eval "$CMD"`, "echo push | xargs git", "git $(echo push)"}
	r := w.run(t, "ask "+strings.Join(spellings, "\nask ")+"\nask git status\nrun 100 git p", "--yolo")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != len(spellings)+2 {
		t.Fatalf("stdout %q; stderr:\n%s", r.stdout, r.stderr)
	}
	for i, s := range spellings {
		if lines[i] != "chose reject_once" {
			t.Errorf("%s under a rule refusing *git push*, --yolo, nobody to ask: %q, want a refusal", s, lines[i])
		}
	}
	if lines[len(spellings)] != "chose allow_once" {
		t.Errorf("git status: %q", lines[len(spellings)])
	}
	if !strings.HasPrefix(lines[len(spellings)+1], "run error") {
		t.Errorf("terminal/create of git p: %q", lines[len(spellings)+1])
	}
	if _, err := os.Stat(filepath.Join(w.dir, "m-alias-ran")); err == nil {
		t.Error("the alias ran through terminal/create")
	}
}

// Class 6a: parley run --json writes C1 controls and bidi overrides from the agent as
// \u escapes: the data is unchanged, the raw characters never reach a terminal.
func TestRunJSONEscapesInvisibleCharacters(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := w.run(t, `say "csi \u009b2J, \u202egnp.exe, \u2066iso\u2069"`, "--json")
	for _, raw := range []string{"\u009b", "\u202e", "\u2066", "\u2069"} {
		if strings.Contains(r.stdout, raw) {
			t.Errorf("%q reached stdout raw: %q", raw, r.stdout)
		}
	}
	var text strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct{ Type, Text string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if ev.Type == "text" {
			text.WriteString(ev.Text)
		}
	}
	if want := "csi \u009b2J, \u202egnp.exe, \u2066iso\u2069"; !strings.Contains(text.String(), want) {
		t.Errorf("the text decodes to %q, want %q in it", text.String(), want)
	}
}

// dataDir is where parley keeps its database in env.
func dataDir(env []string) string {
	for _, kv := range env {
		if dir, ok := strings.CutPrefix(kv, "XDG_DATA_HOME="); ok {
			return filepath.Join(dir, "parley")
		}
	}
	panic("no XDG_DATA_HOME in the test environment")
}

// lockStore holds a write lock on parley's database in env, as another parley process
// in the middle of a write would, until the test ends.
func lockStore(t *testing.T, env []string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir(env), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	})
}

// Class 6b: while another process holds the database locked, --yolo does not allow a
// command the user rejected "always" (parley run), nor anything else unasked (parley
// agent, whose remembered rejections are in the same database).
func TestLockedStoreKeepsYoloFromAllowing(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := w.chat(t)
	term.typeLine("ask rm -f build.log")
	term.answer("rm -f build.log", "r")
	term.expect("chose reject_always")
	term.typeLine("/quit")
	term.wait(t, 0)

	lockStore(t, w.env)
	if r := w.run(t, "ask rm -f build.log", "--yolo"); !strings.HasPrefix(r.stdout, "chose reject") {
		t.Errorf("a command rejected always, --yolo, the store locked: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if asked := agentRuns(t, w, []string{"touch made-while-locked"}, nil, "--yolo"); len(asked) != 1 {
		t.Errorf("parley agent --yolo with its database locked asked %d times, want once", len(asked))
	}
	if _, err := os.Stat(filepath.Join(w.dir, "made-while-locked")); err == nil {
		t.Error("parley agent ran a command unasked while its remembered answers could not be read")
	}
}

// classRow is one row of internal/safety/CLASSES.md, the table of classes.
type classRow struct{ class, example, tier, always string }

func readClassTable(t *testing.T) []classRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "safety", "CLASSES.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []classRow
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| class ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		cells := strings.Split(strings.Trim(strings.ReplaceAll(line, `\|`, "\x00"), "| "), " | ")
		for i := range cells {
			cells[i] = strings.ReplaceAll(cells[i], "\x00", "|")
		}
		rows = append(rows, classRow{cells[0], strings.Trim(cells[1], "`"), cells[2], cells[3]})
	}
	if len(rows) < 100 {
		t.Fatalf("CLASSES.md has %d rows", len(rows))
	}
	return rows
}

// Every class of the table, through the real binary: parley agent at its default
// settings runs the harmless ones unasked and asks about every other (the client
// refuses, so none of them runs); the client host, with --yolo and nobody to ask,
// refuses exactly the critical ones.
func TestClassesThroughTheBinary(t *testing.T) {
	t.Parallel()
	rows := readClassTable(t)
	w := newWorkspace(t)
	var commands []string
	for _, r := range rows {
		commands = append(commands, r.example)
	}
	// A window large enough that the 128 calls need no compaction (a summary request would
	// take one of the scripted replies).
	questions := agentRuns(t, w, commands, nil, "--max-turn-requests", "1000", "--context", "1000000")
	asked := askedAbout(questions)
	t.Logf("%d commands, %d questions", len(commands), len(questions))
	for _, r := range rows {
		i := slices.Index(asked, r.example)
		if got := i >= 0; got != (r.tier != "none") {
			t.Errorf("parley agent, %s (%s): asked %v, want %v", r.class, r.example, got, r.tier != "none")
		}
		if i < 0 || r.tier == "critical" {
			continue
		}
		offered := slices.ContainsFunc(questions[i].Options, func(o acp.PermissionOption) bool { return o.Kind == acp.PermissionOptionKindAllowAlways })
		if offered != (r.always == "yes") {
			t.Errorf("parley agent, %s (%s): always allow offered %v, the table says %s", r.class, r.example, offered, r.always)
		}
	}

	var script strings.Builder
	for _, r := range rows {
		script.WriteString("ask " + strings.ReplaceAll(r.example, "\n", " ") + "\n")
	}
	res := w.run(t, script.String(), "--yolo")
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != len(rows) {
		t.Fatalf("%d answers for %d questions:\n%s\nstderr %s", len(lines), len(rows), res.stdout, res.stderr)
	}
	for i, r := range rows {
		want := "chose allow_once"
		if r.tier == "critical" {
			want = "chose reject_once"
		}
		if lines[i] != want {
			t.Errorf("parley run --yolo, %s (%s): %q, want %q", r.class, r.example, lines[i], want)
		}
	}
}
