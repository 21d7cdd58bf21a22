package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/parley-acp/parley/internal/vscodelm"
)

// A turn that writes a git hook: lm/changes flags it with the record's reason (git would
// run it on the user's next commit, outside any turn), so @parley can show it; a file
// written as before is not flagged.
func TestAChangeThatMakesGitRunCodeIsFlagged(t *testing.T) {
	c := start(t)
	dir := c.Cmd.Dir
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	cv := c.conversation(elizaTagged()).showing(allNotifications...)
	id := cv.Send(user("write file .git/hooks/pre-commit with echo from the agent"))
	cv.Record(c.OK(id))
	var ch vscodelm.ChangesParams
	if !c.note(id, vscodelm.NotifyChanges, &ch) {
		t.Fatalf("no lm/changes after a turn that wrote a hook: %+v", c.Notifications(id))
	}
	if f := ch.Turn.Files; len(f) != 1 || f[0].Rel != filepath.Join(".git", "hooks", "pre-commit") || f[0].RunsCode != "a git hook: git runs it" {
		t.Fatalf("changed files %+v, want the hook flagged", ch.Turn.Files)
	}

	id = cv.Send(user("write file notes.txt with plain words"))
	cv.Record(c.OK(id))
	var plain vscodelm.ChangesParams // fresh: decoding into ch would keep the hook's fields
	if !c.note(id, vscodelm.NotifyChanges, &plain) {
		t.Fatalf("no lm/changes after a turn that wrote notes.txt")
	}
	if f := plain.Turn.Files; len(f) != 1 || f[0].Rel != "notes.txt" || f[0].RunsCode != "" || f[0].Mode != "" {
		t.Fatalf("changed files %+v, want notes.txt, not flagged, its mode not changed", plain.Turn.Files)
	}
}
