//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 31, item 8: an edit question does not trust the agent's "new file" (a diff
// without old text) for a file that exists: parley looks, and shows an edit of what the
// file holds.
func TestEditQuestionOfAnExistingFileIsAnEdit(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	path := filepath.Join(w.dir, "a.txt")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	term := w.chat(t)
	mark := term.mark()
	term.typeLine(fmt.Sprintf(`askjson {"toolCall":{"toolCallId":"e1","title":"Write a.txt","kind":"edit","content":[{"type":"diff","path":%q,"newText":"one\nthree\n"}]},"options":[{"optionId":"y","name":"Yes","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_once"}]}`, path))
	term.answer("(+1 −1)", "n")
	if q := term.since(mark); !strings.Contains(q, "Edit "+path+" (+1 −1)") || strings.Contains(q, "Create ") {
		t.Errorf("the question does not show an edit of the file as it is:\n%s", q)
	}
	term.expect("chose reject_once")
	term.typeLine("/quit")
	term.wait(t, 0)
}
