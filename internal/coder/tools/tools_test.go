package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/workspace"
)

func newTestSession(t testing.TB) (*Session, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots, err := workspace.NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	return NewSession(LocalEnv(roots), roots), root
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func call(t testing.TB, s *Session, name string, args any) Result {
	t.Helper()
	tool, ok := DefaultRegistry().Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	data, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tool.Run(context.Background(), s, data)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, data, err)
	}
	return r
}

func wantOK(t *testing.T, r Result, contains ...string) {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error result: %s", r.Output)
	}
	for _, c := range contains {
		if !strings.Contains(r.Output, c) {
			t.Errorf("output lacks %q:\n%s", c, r.Output)
		}
	}
}

func wantErr(t *testing.T, r Result, contains string) {
	t.Helper()
	if !r.IsError || !strings.Contains(r.Output, contains) {
		t.Fatalf("want an error result containing %q, got IsError=%v:\n%s", contains, r.IsError, r.Output)
	}
}

type m = map[string]any

func TestRegistry(t *testing.T) {
	r := DefaultRegistry()
	if len(r.All()) != 7 {
		t.Fatalf("%d tools", len(r.All()))
	}
	for alias, want := range map[string]string{"read": "read_file", "bash": "run_terminal_command", "shell": "run_terminal_command",
		"grep": "search_workspace", "ls": "list_files", "edit": "edit_file", "write": "write_file",
		"diagnostics": "get_diagnostics", "Read_File": "read_file"} {
		if got, ok := r.Canonical(alias); !ok || got != want {
			t.Errorf("Canonical(%q) = %q, %v", alias, got, ok)
		}
	}
	if _, ok := r.Lookup("nope"); ok {
		t.Error("Lookup(nope) found a tool")
	}
	for _, tool := range r.All() {
		if strings.TrimSpace(tool.Description()) == "" || !json.Valid(tool.Schema()) || tool.Kind() == "" {
			t.Errorf("%s: missing description, schema or kind", tool.Name())
		}
	}
}

func TestReadFile(t *testing.T) {
	s, root := newTestSession(t)
	write(t, filepath.Join(root, "a.txt"), "one\ntwo\nthree\n")
	wantOK(t, call(t, s, "read_file", m{"path": "a.txt"}), "     1\tone\n", "     3\tthree\n")
	for _, key := range []string{"file", "filePath", "file_path"} {
		wantOK(t, call(t, s, "read", m{key: filepath.Join(root, "a.txt")}), "two")
	}
	r := call(t, s, "read_file", m{"path": "a.txt", "start_line": 2, "end_line": 2})
	wantOK(t, r, "     2\ttwo\n", "[lines 2-2 of 3]")
	if strings.Contains(r.Output, "one") || r.Title != "Read a.txt" || r.Locations[0].Line != 2 {
		t.Errorf("range read: %+v", r)
	}
	wantErr(t, call(t, s, "read_file", m{"path": "missing.txt"}), "does not exist")
	wantErr(t, call(t, s, "read_file", m{}), "path is required")
	wantErr(t, call(t, s, "read_file", m{"path": "a.txt", "start_line": 9}), "past the end")

	var big strings.Builder
	for i := range 2500 {
		fmt.Fprintf(&big, "line %d\n", i+1)
	}
	write(t, filepath.Join(root, "big.txt"), big.String())
	wantOK(t, call(t, s, "read_file", m{"path": "big.txt"}), "showing lines 1-2000 of 2500; pass start_line=2001")
}

func TestWriteFile(t *testing.T) {
	s, root := newTestSession(t)
	r := call(t, s, "write_file", m{"path": "sub/dir/new.txt", "content": "hi\n"})
	wantOK(t, r, "Created sub/dir/new.txt")
	if r.Diff == nil || r.Diff.OldText != nil || r.Diff.NewText != "hi\n" {
		t.Errorf("diff: %+v", r.Diff)
	}
	r = call(t, s, "write", m{"file_path": "sub/dir/new.txt", "content": "bye\n"})
	if r.Diff.OldText == nil || *r.Diff.OldText != "hi\n" {
		t.Errorf("diff: %+v", r.Diff)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "sub/dir/new.txt")); string(data) != "bye\n" {
		t.Errorf("content %q", data)
	}
	wantErr(t, call(t, s, "write_file", m{"path": "x.txt"}), "required")
	wantErr(t, call(t, s, "write_file", m{"path": "sub", "content": ""}), "is a directory")
}

func TestEditFile(t *testing.T) {
	s, root := newTestSession(t)
	path := filepath.Join(root, "a.go")
	write(t, path, "a := 1\nb := 2\na := 1\n")
	wantErr(t, call(t, s, "edit_file", m{"path": "a.go", "old_string": "b := 2", "new_string": "b := 3"}), "must read a.go")

	call(t, s, "read_file", m{"path": "a.go"})
	wantErr(t, call(t, s, "edit_file", m{"path": "a.go", "old_string": "a := 1", "new_string": "a := 9"}), "occurs 2 times")
	wantErr(t, call(t, s, "edit_file", m{"path": "a.go", "old_string": "zzz", "new_string": "y"}), "not found")
	wantErr(t, call(t, s, "edit_file", m{"path": "a.go", "old_string": "  b := 2\n  c", "new_string": "y"}), "at line 2")
	wantErr(t, call(t, s, "edit_file", m{"path": "a.go", "old_string": "x", "new_string": "x"}), "the same")

	r := call(t, s, "edit", m{"path": "a.go", "old_string": "b := 2", "new_string": "b := 3"})
	wantOK(t, r, "Edited a.go")
	if r.Diff == nil || *r.Diff.OldText != "a := 1\nb := 2\na := 1\n" || r.Diff.NewText != "a := 1\nb := 3\na := 1\n" || r.Locations[0].Line != 2 {
		t.Errorf("edit result: %+v", r)
	}
	// The tool's own write counts as seen: a second edit needs no re-read.
	wantOK(t, call(t, s, "edit_file", m{"path": "a.go", "old_string": "a := 1", "new_string": "a := 0", "replace_all": true}))
	if data, _ := os.ReadFile(path); string(data) != "a := 0\nb := 3\na := 0\n" {
		t.Errorf("content %q", data)
	}

	write(t, path, "changed elsewhere\n")
	wantErr(t, call(t, s, "edit_file", m{"path": "a.go", "old_string": "changed", "new_string": "x"}), "changed since you last read it")

	wantOK(t, call(t, s, "edit_file", m{"path": "new.go", "old_string": "", "new_string": "package x\n"}), "Created new.go")
	wantErr(t, call(t, s, "edit_file", m{"path": "nope.go", "old_string": "a", "new_string": "b"}), "does not exist")

	crlf := filepath.Join(root, "w.txt")
	write(t, crlf, "one\r\ntwo\r\n")
	call(t, s, "read_file", m{"path": "w.txt"})
	wantOK(t, call(t, s, "edit_file", m{"path": "w.txt", "old_string": "one\ntwo", "new_string": "1\n2"}))
	if data, _ := os.ReadFile(crlf); string(data) != "1\r\n2\r\n" {
		t.Errorf("CRLF not kept: %q", data)
	}
}

// TestConfinement checks every path tool against .., absolute paths outside and a
// symlink that escapes.
func TestConfinement(t *testing.T) {
	s, root := newTestSession(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret.txt"), "secret\n")
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	paths := []string{"../" + filepath.Base(outside) + "/secret.txt", filepath.Join(outside, "secret.txt"), "link/secret.txt"}
	dirs := []string{"..", outside, "link"}
	for i := range paths {
		p, d := paths[i], dirs[i]
		wantErr(t, call(t, s, "read_file", m{"path": p}), "outside the workspace")
		wantErr(t, call(t, s, "write_file", m{"path": p, "content": "x"}), "outside the workspace")
		wantErr(t, call(t, s, "edit_file", m{"path": p, "old_string": "", "new_string": "x"}), "outside the workspace")
		wantErr(t, call(t, s, "list_files", m{"path": d}), "outside the workspace")
		wantErr(t, call(t, s, "search_workspace", m{"pattern": "secret", "path": d}), "outside the workspace")
		wantErr(t, call(t, s, "run_terminal_command", m{"command": "pwd", "cwd": d}), "outside the workspace")
		wantErr(t, call(t, s, "get_diagnostics", m{"path": d}), "outside the workspace")
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(data) != "secret\n" {
		t.Fatal("a write escaped the workspace")
	}
	// A symlinked file inside the tree that points outside is not searched.
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "s.txt")); err != nil {
		t.Fatal(err)
	}
	r := call(t, s, "search_workspace", m{"pattern": "secret"})
	if strings.Contains(r.Output, "s.txt") {
		t.Errorf("search followed a symlink out of the workspace:\n%s", r.Output)
	}
}
