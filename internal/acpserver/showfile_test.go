package acpserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parley-acp/parley/internal/parleyapi"
)

// TestShowFileOnlyInsideTheWorkspace: _parley/file reads a file of the workspace (by a
// relative or an absolute path), says when one is not text, and refuses a path outside
// the roots, a symlink leading outside among them.
func TestShowFileOnlyInsideTheWorkspace(t *testing.T) {
	srv := newTestServer(t)
	dir := srv.Workspace()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bin"), []byte{0, 1, 2}, 0o644)
	os.Symlink(outside, filepath.Join(dir, "link.txt"))
	p := connect(t, srv)
	s := openTestSession(t, p, "")
	show := func(path string) (parleyapi.FileResult, error) {
		var res parleyapi.FileResult
		err := p.conn.CallExtension(t.Context(), parleyapi.MethodFile, parleyapi.FileParams{SessionID: s.SessionID, Path: path}, &res)
		return res, err
	}
	for _, path := range []string{"a.txt", filepath.Join(dir, "a.txt")} {
		res, err := show(path)
		if err != nil || res.Text == nil || *res.Text != "hello\n" || res.Rel != "a.txt" {
			t.Errorf("%s: %+v, %v", path, res, err)
		}
	}
	if res, err := show("bin"); err != nil || res.Text != nil || res.Note == "" {
		t.Errorf("a binary file: %+v, %v", res, err)
	}
	for _, path := range []string{outside, "link.txt", "../secret.txt"} {
		if res, err := show(path); err == nil {
			t.Errorf("%s outside the workspace was read: %+v", path, res)
		}
	}
}
