//go:build linux

package realagents

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runChangesUndo: the agent edits a workspace file in a turn of parley run (through its
// own tools for the agents that edit on disk themselves, codex and claude; through
// parley's fs/write_text_file for the others); parley changes, from the shell in the
// workspace, lists the file with its line counts, and parley undo gives it back what it
// held.
func runChangesUndo(t *testing.T, sb *sandbox) {
	path := filepath.Join(sb.workspace, notesFile)
	original := "first\n" + oldLine + "\nlast\n"
	sb.writeFile(path, original)
	r := sb.runParley(t, "--yolo", markEdit+" "+path)
	frames := sb.recordedFrames(t)
	if code := r.exitStatus(); code != 0 || !strings.Contains(r.out.String(), editDone) {
		t.Fatalf("exit %d; want 0 and %q\n%s", code, editDone, r)
	}
	if data, _ := os.ReadFile(path); string(data) != "first\n"+newLine+"\nlast\n" {
		t.Fatalf("%s is %q after the edit\n%s", notesFile, data, r)
	}
	writes := len(requestsFromAgent(frames, "fs/write_text_file"))
	if !sb.agent.writesThroughFS && writes > 0 {
		t.Errorf("the agent wrote through fs/write_text_file: this case wants its own tools")
	}
	t.Logf("edited through %s", map[bool]string{true: "parley's fs/write_text_file", false: "its own tools"}[writes > 0])

	out, errOut, code := sb.parleyCommand(t, "changes")
	if code != 0 || strings.TrimSpace(out) != "M "+notesFile+" +1 −1" {
		t.Errorf("parley changes: exit %d\n%s%s\nparley run said:\n%s", code, out, errOut, r)
	}
	out, errOut, code = sb.parleyCommand(t, "undo")
	if code != 0 || !strings.Contains(out, notesFile+": restored") {
		t.Errorf("parley undo: exit %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != original {
		t.Errorf("%s is %q after parley undo, want %q", notesFile, data, original)
	}
}

// parleyCommand runs a parley subcommand in the workspace, as a user in a shell there.
func (sb *sandbox) parleyCommand(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, parleyBinary(t), args...)
	cmd.Env, cmd.Dir = sb.env, sb.workspace
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("parley %v: %v", args, err)
	}
	return o.String(), e.String(), code
}
