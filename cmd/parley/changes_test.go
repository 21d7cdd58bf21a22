package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/json"
)

// oneTurnOfEveryKind is a turn of the scripted agent that changes files every way an
// agent does: a write through parley (fs/write_text_file), files its own process creates,
// overwrites and deletes, and a command run through parley (terminal/create) that edits
// a file.
func oneTurnOfEveryKind(dir string) string {
	return strings.Join([]string{
		"write " + dir + "/a.txt through parley\n",
		"create " + dir + "/made.txt made by the agent\n",
		"create " + dir + "/own.txt rewritten by the agent's own tool\n",
		"delete " + dir + "/doomed.txt",
		`run 100000 sh -c 'printf "edited by a command\n" > cmd.txt'`,
	}, "\n")
}

func changesFixture(t *testing.T) workspaceFixture {
	w := newWorkspace(t)
	for name, content := range map[string]string{"own.txt": "own\n", "doomed.txt": "doomed\n", "cmd.txt": "before the command\n"} {
		mustWrite(t, filepath.Join(w.dir, name), content)
	}
	return w
}

func (w workspaceFixture) parley(t *testing.T, args ...string) result {
	t.Helper()
	return parleyIn(t, w.dir, w.env, "", args...)
}

func readOr(t *testing.T, path, missing string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return missing
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestChangesListsAndUndoRestoresEveryKindOfChange: whatever way the agent changed a
// file in its turn, parley changes lists it and parley undo restores it; the undo can be
// undone.
func TestChangesListsAndUndoRestoresEveryKindOfChange(t *testing.T) {
	t.Parallel()
	w := changesFixture(t)
	before := map[string]string{}
	names := []string{"a.txt", "made.txt", "own.txt", "doomed.txt", "cmd.txt"}
	for _, n := range names {
		before[n] = readOr(t, filepath.Join(w.dir, n), "(none)")
	}
	r := w.run(t, oneTurnOfEveryKind(w.dir), "--yolo")
	if r.code != 0 || strings.Contains(r.stdout, "error") {
		t.Fatalf("the turn: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "turn 1 changed 5 files") {
		t.Errorf("parley run did not say what the turn changed:\n%s", r.stderr)
	}
	after := map[string]string{}
	for _, n := range names {
		after[n] = readOr(t, filepath.Join(w.dir, n), "(none)")
	}

	c := w.parley(t, "changes")
	want := []string{
		"M a.txt +1 −1",
		"M cmd.txt +1 −1",
		"D doomed.txt +0 −1",
		"A made.txt +1 −0",
		"M own.txt +1 −1",
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(c.stdout), "\n")); c.code != 0 || diff != "" {
		t.Errorf("parley changes: exit %d (-want +got):\n%s%s", c.code, diff, c.stderr)
	}
	j := w.parley(t, "changes", "--json")
	var turns []struct {
		Turn  int
		Files []struct {
			Status, Rel string
			Written     bool
		}
	}
	if err := json.Unmarshal([]byte(j.stdout), &turns); err != nil || len(turns) != 1 || len(turns[0].Files) != 5 {
		t.Fatalf("parley changes --json: %v\n%s", err, j.stdout)
	}
	for _, f := range turns[0].Files {
		if f.Written != (f.Rel == "a.txt") {
			t.Errorf("%s: written through parley = %v", f.Rel, f.Written)
		}
	}

	u := w.parley(t, "undo")
	if u.code != 0 {
		t.Fatalf("parley undo: exit %d\n%s%s", u.code, u.stdout, u.stderr)
	}
	for _, n := range names {
		if got := readOr(t, filepath.Join(w.dir, n), "(none)"); got != before[n] {
			t.Errorf("after the undo %s = %q, want %q", n, got, before[n])
		}
	}
	// The undo is recorded: undoing it brings the turn's changes back.
	if u := w.parley(t, "undo"); u.code != 0 {
		t.Fatalf("undoing the undo: exit %d\n%s", u.code, u.stderr)
	}
	for _, n := range names {
		if got := readOr(t, filepath.Join(w.dir, n), "(none)"); got != after[n] {
			t.Errorf("after undoing the undo %s = %q, want %q", n, got, after[n])
		}
	}
	if all := w.parley(t, "changes", "--all"); !strings.Contains(all.stderr, "turn 3 (an undo)") {
		t.Errorf("parley changes --all:\n%s%s", all.stdout, all.stderr)
	}
}

// TestUndoNeverOverwritesAHandEdit: a file changed by hand after the turn is never
// overwritten; undoing the turn changes nothing, names the file and exits 1; the other
// files can still be undone one by one.
func TestUndoNeverOverwritesAHandEdit(t *testing.T) {
	t.Parallel()
	w := changesFixture(t)
	if r := w.run(t, oneTurnOfEveryKind(w.dir), "--yolo"); r.code != 0 {
		t.Fatalf("the turn: exit %d\n%s", r.code, r.stderr)
	}
	mine := "edited by a command\nand by my own hand\n"
	mustWrite(t, filepath.Join(w.dir, "cmd.txt"), mine)

	u := w.parley(t, "undo")
	if u.code != 1 || !strings.Contains(u.stderr, "Nothing was undone") || !strings.Contains(u.stderr, "cmd.txt: it changed since turn 1") {
		t.Errorf("parley undo: exit %d\n%s%s", u.code, u.stdout, u.stderr)
	}
	if got := readOr(t, filepath.Join(w.dir, "cmd.txt"), ""); got != mine {
		t.Errorf("cmd.txt = %q: the hand edit was overwritten", got)
	}
	if got := readOr(t, filepath.Join(w.dir, "a.txt"), ""); got != "through parley" {
		t.Errorf("a.txt = %q: undoing a turn is all or nothing", got)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "made.txt")); err != nil {
		t.Errorf("made.txt: %v: undoing a turn is all or nothing", err)
	}
	// Undoing the turn by number says the same; one file alone can be undone.
	if u := w.parley(t, "undo", "--turn", "1"); u.code != 1 {
		t.Errorf("parley undo --turn 1: exit %d\n%s", u.code, u.stderr)
	}
	if u := w.parley(t, "undo", "a.txt", "made.txt"); u.code != 0 {
		t.Fatalf("parley undo a.txt made.txt: exit %d\n%s", u.code, u.stderr)
	}
	if got := readOr(t, filepath.Join(w.dir, "a.txt"), ""); got != "inside" {
		t.Errorf("a.txt = %q after undoing it alone", got)
	}
	if got := readOr(t, filepath.Join(w.dir, "cmd.txt"), ""); got != mine {
		t.Errorf("cmd.txt = %q", got)
	}
}

// TestUndoRewindsAcrossTurnsOfParleyRun: each parley run is a conversation; parley undo
// and parley changes take the last one in the workspace, and --to goes back several
// turns of a chat.
func TestChangesFollowsTheLastConversationHere(t *testing.T) {
	t.Parallel()
	w := changesFixture(t)
	w.run(t, "write "+w.dir+"/a.txt first run\n", "--yolo")
	w.run(t, "write "+w.dir+"/own.txt second run\n", "--yolo")
	c := w.parley(t, "changes")
	if strings.TrimSpace(c.stdout) != "M own.txt +1 −1" {
		t.Errorf("parley changes after two runs:\n%s%s", c.stdout, c.stderr)
	}
	sub := filepath.Join(w.dir, "sub")
	os.MkdirAll(sub, 0o755)
	if r := parleyIn(t, sub, w.env, "", "changes"); !strings.Contains(r.stdout, "M ../own.txt") {
		t.Errorf("parley changes from a subdirectory:\n%s%s", r.stdout, r.stderr)
	}
	if r := parleyIn(t, t.TempDir(), w.env, "", "changes"); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no agent has changed anything") {
		t.Errorf("parley changes where nothing was recorded: exit %d\n%s", r.code, r.stderr)
	}
	if u := w.parley(t, "undo"); u.code != 0 || readOr(t, filepath.Join(w.dir, "own.txt"), "") != "own\n" {
		t.Errorf("parley undo: exit %d\n%s", u.code, u.stderr)
	}
	if got := readOr(t, filepath.Join(w.dir, "a.txt"), ""); got != "first run" {
		t.Errorf("a.txt = %q: the undo reached an earlier conversation", got)
	}
}

// TestChatChangesDiffUndoKeep: parley chat's own commands on the conversation's record.
func TestChatChangesDiffUndoKeep(t *testing.T) {
	t.Parallel()
	w := changesFixture(t)
	term := startTerminalIn(t, w.dir, w.env, "chat", "--yolo", "--agent-command", fakeAgentCommand(t, "scripted"))
	term.expect("is ready")
	term.typeLine("write " + w.dir + "/a.txt inside, and a second line")
	term.expect("turn 1 changed 1 file")
	term.expect("M a.txt +1 −1")
	term.typeLine("create " + w.dir + "/made.txt made")
	term.expect("turn 2 changed 1 file")

	term.typeLine("/changes")
	term.expect("turn 1")
	term.expect("M a.txt +1 −1")
	term.expect("turn 2")
	term.expect("A made.txt +1 −0")
	term.typeLine("/diff a.txt")
	term.expect("-inside")
	term.expect("+inside, and a second line")

	term.typeLine("/undo 2")
	term.expect("Undid turn 2")
	term.expect("made.txt: deleted")
	if _, err := os.Stat(filepath.Join(w.dir, "made.txt")); err == nil {
		t.Error("made.txt survived /undo 2")
	}
	mustWrite(t, filepath.Join(w.dir, "a.txt"), "my own words")
	term.typeLine("/undo a.txt")
	term.expect("Nothing was undone")
	term.expect("a.txt: it changed since turn 1")
	if got := readOr(t, filepath.Join(w.dir, "a.txt"), ""); got != "my own words" {
		t.Errorf("a.txt = %q: /undo overwrote a hand edit", got)
	}
	term.typeLine("/keep")
	term.expect("Kept")
	term.typeLine("/undo")
	term.expect("nothing to undo")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestPermissionQuestionShowsTheEditsDiff: an edit the agent asks about shows its diff,
// from the tool call's diff content or computed from the content it proposes.
func TestPermissionQuestionShowsTheEditsDiff(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	path := filepath.Join(w.dir, "a.txt")
	withDiff := fmt.Sprintf(`askjson {"toolCall":{"toolCallId":"e1","title":"Edit a.txt","kind":"edit","content":[{"type":"diff","path":%q,"oldText":"inside","newText":"inside\nand a line the agent adds"}]},"options":[{"optionId":"y","name":"Yes","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_once"}]}`, path)
	proposed := fmt.Sprintf(`askjson {"toolCall":{"toolCallId":"e2","title":"Write a.txt","kind":"edit","rawInput":{"file_path":%q,"content":"a whole new content"}},"options":[{"optionId":"y","name":"Yes","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_once"}]}`, path)
	term := startTerminalIn(t, w.dir, w.env, "run", "--agent-command", fakeAgentCommand(t, "scripted"), withDiff+"\n"+proposed)
	term.expect("The agent asks permission: Edit a.txt")
	term.expect("(+1 −0)")
	term.expect("+and a line the agent adds")
	term.typeLine("n")
	term.expect("The agent asks permission: Write a.txt")
	term.expect("-inside")
	term.expect("+a whole new content")
	term.typeLine("n")
	term.wait(t, 0)
}

func TestUnknownConfigKeysAreWarnedAbout(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	cfg := parleyConfigDir(w.env)
	os.MkdirAll(cfg, 0o700)
	os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"changes":{"max_mb":5},"permisions":[]}`), 0o600)
	r := w.run(t, "read "+w.dir+"/a.txt")
	if r.code != 0 || !strings.Contains(r.stderr, `unknown key "changes.max_mb"`) || !strings.Contains(r.stderr, `unknown key "permisions"`) {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
