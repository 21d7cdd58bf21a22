package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// editTurn is a model turn that edits a.txt and creates new.txt.
func editTurn() []fakellm.Reply {
	return []fakellm.Reply{
		{ToolCalls: []llm.ToolCall{call("read_file", `{"path":"a.txt"}`)}},
		{ToolCalls: []llm.ToolCall{
			call("edit_file", `{"path":"a.txt","old_string":"one","new_string":"two"}`),
			call("write_file", `{"path":"new.txt","content":"created\n"}`),
		}},
		{Content: []string{"Edited a.txt and created new.txt."}},
	}
}

func readFile(t *testing.T, path string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

func TestUndoRestoresAModifiedFileAndDeletesACreatedOne(t *testing.T) {
	la := newLocalAgent(t, "", openStore(t), Options{Auto: AutoApprove{Edits: true}, judge: fakeJudge{}}, editTurn()...)
	a, created := filepath.Join(la.dir, "a.txt"), filepath.Join(la.dir, "new.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	la.newSession()
	la.prompt("change one to two and add new.txt")
	if got, _ := readFile(t, a); got != "two\n" {
		t.Fatalf("the turn left a.txt = %q", got)
	}
	la.client.take()

	if stop := la.prompt("/undo"); stop != acp.StopReasonEndTurn {
		t.Fatalf("/undo: stop %q", stop)
	}
	out := reply(la.client.take())
	if got, _ := readFile(t, a); got != "one\n" {
		t.Errorf("after /undo a.txt = %q; reply %q", got, out)
	}
	if _, ok := readFile(t, created); ok {
		t.Errorf("after /undo new.txt still exists; reply %q", out)
	}
	if !strings.Contains(out, "checkpoint #1") {
		t.Errorf("reply %q", out)
	}
	if n := len(la.fake.Requests()); n == 0 || strings.Contains(la.fake.Requests()[n-1].Messages[len(la.fake.Requests()[n-1].Messages)-1].Content, "/undo") {
		t.Error("/undo went to the model")
	}

	// The undo was checkpoint #2: undoing it brings the turn's changes back.
	la.prompt("/undo")
	out = reply(la.client.take())
	if got, _ := readFile(t, a); got != "two\n" {
		t.Errorf("after undoing the undo a.txt = %q; reply %q", got, out)
	}
	if got, ok := readFile(t, created); !ok || got != "created\n" {
		t.Errorf("after undoing the undo new.txt = %q (exists %v)", got, ok)
	}
}

// TestUndoNeverOverwritesAHandEdit: a file changed since the agent wrote it is never
// overwritten: nothing of the turn is undone, the reply names the file, and how it
// changed is shown (a completed edit with its diff).
func TestUndoNeverOverwritesAHandEdit(t *testing.T) {
	la := newLocalAgent(t, "", openStore(t), Options{Auto: AutoApprove{Edits: true}, judge: fakeJudge{}}, editTurn()...)
	a := filepath.Join(la.dir, "a.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	la.newSession()
	la.prompt("change one to two and add new.txt")
	os.WriteFile(a, []byte("two, and my own line\n"), 0o644)
	la.client.take()

	la.prompt("/undo")
	updates := la.client.take()
	out := reply(updates)
	if got, _ := readFile(t, a); got != "two, and my own line\n" {
		t.Errorf("a.txt = %q: the hand edit was overwritten", got)
	}
	if !strings.Contains(out, "Nothing was undone") || !strings.Contains(out, "a.txt: it changed since") {
		t.Errorf("reply %q does not name the file and say why", out)
	}
	if _, ok := readFile(t, filepath.Join(la.dir, "new.txt")); !ok {
		t.Error("new.txt was deleted: undoing a turn is all or nothing")
	}
	var shown *acp.Diff
	for _, u := range updates {
		if tc := u.Update.ToolCall; tc != nil && len(tc.Content) > 0 && tc.Content[0].Diff != nil {
			shown = tc.Content[0].Diff
		}
	}
	if shown == nil || shown.OldText == nil || *shown.OldText != "two\n" || shown.NewText != "two, and my own line\n" {
		t.Fatalf("how the file changed since was not shown: %+v", shown)
	}
	if len(la.client.questions()) != 0 {
		t.Error("the undo asked to overwrite: it must not")
	}

	// new.txt alone can still be undone.
	la.prompt("/undo 1 new.txt")
	if _, ok := readFile(t, filepath.Join(la.dir, "new.txt")); ok {
		t.Errorf("new.txt survived /undo 1 new.txt: %q", reply(la.client.take()))
	}
}

func TestKeepDropsOriginalsAndCheckpointsLists(t *testing.T) {
	st := openStore(t)
	la := newLocalAgent(t, "", st, Options{Auto: AutoApprove{Edits: true}, judge: fakeJudge{}}, editTurn()...)
	os.WriteFile(filepath.Join(la.dir, "a.txt"), []byte("one\n"), 0o644)
	la.newSession()
	la.prompt("change one to two and add new.txt")
	la.client.take()

	la.prompt("/checkpoints")
	out := reply(la.client.take())
	for _, want := range []string{"#1", "modified", "a.txt", "created", "new.txt", "pending"} {
		if !strings.Contains(out, want) {
			t.Errorf("/checkpoints lacks %q:\n%s", want, out)
		}
	}
	la.prompt("/keep")
	out = reply(la.client.take())
	if !strings.Contains(out, "kept") {
		t.Errorf("/keep said %q", out)
	}
	la.prompt("/checkpoints")
	if out := reply(la.client.take()); !strings.Contains(out, "kept") || strings.Contains(out, "pending") {
		t.Errorf("/checkpoints after /keep:\n%s", out)
	}
	la.prompt("/undo")
	if out := reply(la.client.take()); !strings.Contains(out, "Nothing to undo") {
		t.Errorf("/undo after /keep said %q", out)
	}
	if got, _ := readFile(t, filepath.Join(la.dir, "a.txt")); got != "two\n" {
		t.Errorf("a.txt = %q after keep and undo", got)
	}
}

func TestSlashCommandsAreAnnounced(t *testing.T) {
	la := newLocalAgent(t, "", openStore(t), Options{judge: fakeJudge{}})
	la.newSession()
	u := la.client.waitFor(t, func(u acp.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	var names []string
	for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "compact checkpoints undo keep" {
		t.Errorf("commands %v", names)
	}
}

// TestUndoThroughTheClientsFiles: with a client that offers fs/*, edits and the undo's
// restores go through the client (so an editor sees them); only the deletion of a created
// file is done here, ACP having no way to delete.
func TestUndoThroughTheClientsFiles(t *testing.T) {
	h := start(t, "ollama", Options{Store: openStore(t), judge: fakeJudge{}}, editTurn()...)
	a := filepath.Join(h.dir, "a.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	h.prompt(t.Context(), "change one to two and add new.txt")
	if got, _ := readFile(t, a); got != "two\n" {
		t.Fatalf("a.txt = %q", got)
	}
	h.prompt(t.Context(), "/undo")
	if got, _ := readFile(t, a); got != "one\n" {
		t.Errorf("a.txt = %q after /undo; the agent said %q", got, h.text())
	}
	if _, ok := readFile(t, filepath.Join(h.dir, "new.txt")); ok {
		t.Error("new.txt survived /undo")
	}
}
