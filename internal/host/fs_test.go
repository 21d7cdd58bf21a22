//go:build unix

package host

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/workspace"
)

// workspaceFixture makes sessions "s1" and "s2" whose roots are base/a and base/b, next to
// base/outside, and returns base (its symlinks resolved) and the sessions' lookup.
func workspaceFixture(t *testing.T) (string, func(acp.SessionID) (*workspace.Roots, error)) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/sub", "b", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, base+"/outside/secret.txt", "secret", 0o644)
	for link, target := range map[string]string{
		"a/link-out":     "../outside/secret.txt",
		"a/dir-out":      "../outside",
		"a/dangling-out": "../outside/new.txt",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	roots, err := workspace.NewRoots(base+"/a", base+"/b")
	if err != nil {
		t.Fatal(err)
	}
	return base, func(id acp.SessionID) (*workspace.Roots, error) {
		if id != "s1" && id != "s2" {
			return nil, errors.New("no such session")
		}
		return roots, nil
	}
}

func writeFile(t *testing.T, path, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}

// wireCode is the code the peer would see for a handler's error.
func wireCode(err error) int64 {
	if err == nil {
		return 0
	}
	if e, ok := errors.AsType[*jsonrpc2.Error](err); ok {
		return e.Code
	}
	return jsonrpc2.CodeInternalError
}

func TestReadTextFileLines(t *testing.T) {
	base, rootsFor := workspaceFixture(t)
	f := &FileSystem{RootsFor: rootsFor}
	writeFile(t, base+"/a/f.txt", "one\ntwo\nthree\nfour", 0o644)
	long := strings.Repeat("é", 100<<10) + "\n" // longer than the reader's buffer
	writeFile(t, base+"/b/long.txt", long+long+"last\n", 0o644)
	tests := []struct {
		path        string
		line, limit uint32
		want        string
	}{
		{"a/f.txt", 0, 0, "one\ntwo\nthree\nfour"},
		{"a/f.txt", 1, 1, "one\n"},
		{"a/f.txt", 2, 0, "two\nthree\nfour"},
		{"a/f.txt", 2, 2, "two\nthree\n"},
		{"a/f.txt", 0, 3, "one\ntwo\nthree\n"},
		{"a/f.txt", 4, 10, "four"},
		{"a/f.txt", 5, 0, ""},
		{"b/long.txt", 2, 1, long},
		{"b/long.txt", 3, 0, "last\n"},
		{"b/long.txt", 0, 2, long + long},
	}
	for _, tt := range tests {
		resp, err := f.ReadTextFile(t.Context(), &acp.ReadTextFileRequest{SessionID: "s1", Path: base + "/" + tt.path, Line: tt.line, Limit: tt.limit})
		if err != nil {
			t.Errorf("read %s line %d limit %d: %v", tt.path, tt.line, tt.limit, err)
			continue
		}
		if resp.Content != tt.want {
			t.Errorf("read %s line %d limit %d = %.40q…, want %.40q…", tt.path, tt.line, tt.limit, resp.Content, tt.want)
		}
	}
}

func TestReadTextFileRefused(t *testing.T) {
	base, rootsFor := workspaceFixture(t)
	f := &FileSystem{RootsFor: rootsFor}
	writeFile(t, base+"/a/ok.txt", "ok", 0o644)
	writeFile(t, base+"/a/nul.bin", "a\x00b", 0o644)
	writeFile(t, base+"/a/latin1.txt", "caf\xe9", 0o644)
	if err := syscall.Mkfifo(base+"/a/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	huge, err := os.Create(base + "/a/huge.txt")
	if err != nil {
		t.Fatal(err)
	}
	huge.Truncate(MaxAnswerBytes + 1) // sparse
	huge.Close()

	tests := []struct {
		session  acp.SessionID
		path     string
		wantCode int64
		wantMsg  string
	}{
		{"s1", "a/ok.txt", 0, ""},
		{"nope", "a/ok.txt", acp.CodeResourceNotFound, "unknown session"},
		{"s1", "a/missing.txt", acp.CodeResourceNotFound, "no such file"},
		{"s1", "outside/secret.txt", jsonrpc2.CodeInvalidParams, "outside the workspace"},
		{"s1", "a/../outside/secret.txt", jsonrpc2.CodeInvalidParams, "outside the workspace"},
		{"s1", "a/link-out", jsonrpc2.CodeInvalidParams, "outside the workspace"},
		{"s1", "a/dir-out/secret.txt", jsonrpc2.CodeInvalidParams, "outside the workspace"},
		{"s1", "a/nul.bin", jsonrpc2.CodeInvalidParams, "not UTF-8 text"},
		{"s1", "a/latin1.txt", jsonrpc2.CodeInvalidParams, "not UTF-8 text"},
		{"s1", "a/sub", jsonrpc2.CodeInvalidParams, "is a directory"},
		{"s1", "a/fifo", jsonrpc2.CodeInvalidParams, "not a regular file"},
		{"s1", "a/huge.txt", jsonrpc2.CodeInvalidParams, "more than 32 MiB as JSON"},
	}
	for _, tt := range tests {
		_, err := f.ReadTextFile(t.Context(), &acp.ReadTextFileRequest{SessionID: tt.session, Path: base + "/" + tt.path})
		if wireCode(err) != tt.wantCode || (err != nil && !strings.Contains(err.Error(), tt.wantMsg)) {
			t.Errorf("read %s in %s: %v; want code %d and %q", tt.path, tt.session, err, tt.wantCode, tt.wantMsg)
		}
	}
	_, err = f.ReadTextFile(t.Context(), &acp.ReadTextFileRequest{SessionID: "s1", Path: "a/ok.txt"})
	if wireCode(err) != jsonrpc2.CodeInvalidParams || !strings.Contains(err.Error(), "relative path") {
		t.Errorf("read of a relative path: %v", err)
	}
}

func TestWriteTextFile(t *testing.T) {
	base, rootsFor := workspaceFixture(t)
	f := &FileSystem{RootsFor: rootsFor}
	umask := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(umask) })
	writeFile(t, base+"/a/private.txt", "old", 0o600)
	if err := os.Chmod(base+"/a/private.txt", 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("private.txt", base+"/a/link-in"); err != nil {
		t.Fatal(err)
	}
	write := func(path, content string) error {
		_, err := f.WriteTextFile(t.Context(), &acp.WriteTextFileRequest{SessionID: "s1", Path: path, Content: content})
		return err
	}

	if err := write(base+"/a/new/deep/file.txt", "héllo\n"); err != nil {
		t.Fatal(err)
	}
	checkFile(t, base+"/a/new/deep/file.txt", "héllo\n", 0o644)

	if err := write(base+"/a/link-in", "new"); err != nil {
		t.Fatal(err)
	}
	checkFile(t, base+"/a/private.txt", "new", 0o600)
	if info, err := os.Lstat(base + "/a/link-in"); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink written through is no longer a symlink: %v, %v", info, err)
	}
	entries, err := os.ReadDir(base + "/a")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".parley-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}

	for _, tt := range []struct {
		path     string
		wantCode int64
	}{
		{"a/dangling-out", jsonrpc2.CodeInvalidParams},
		{"a/dir-out/new.txt", jsonrpc2.CodeInvalidParams},
		{"a/../outside/new.txt", jsonrpc2.CodeInvalidParams},
		{"outside/secret.txt", jsonrpc2.CodeInvalidParams},
		{"a/link-out", jsonrpc2.CodeInvalidParams},
		{"a/sub", jsonrpc2.CodeInvalidParams},
		{"a/new/deep/file.txt/x", jsonrpc2.CodeInvalidParams}, // its parent is a file
	} {
		if err := write(base+"/"+tt.path, "pwned"); wireCode(err) != tt.wantCode {
			t.Errorf("write %s: %v; want code %d", tt.path, err, tt.wantCode)
		}
	}
	if _, err := os.Lstat(base + "/outside/new.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a write escaped the workspace: %v", err)
	}
	checkFile(t, base+"/outside/secret.txt", "secret", 0o644)
	if err := write("a/rel.txt", "x"); wireCode(err) != jsonrpc2.CodeInvalidParams {
		t.Errorf("write of a relative path: %v", err)
	}
	if _, err := f.WriteTextFile(t.Context(), &acp.WriteTextFileRequest{SessionID: "nope", Path: base + "/a/x.txt"}); wireCode(err) != acp.CodeResourceNotFound {
		t.Errorf("write in an unknown session: %v", err)
	}
}

func checkFile(t *testing.T, path, want string, wantPerm fs.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
	if info, err := os.Stat(path); err != nil {
		t.Error(err)
	} else if info.Mode().Perm() != wantPerm {
		t.Errorf("%s: mode %v, want %v", path, info.Mode().Perm(), wantPerm)
	}
}

func TestReadTextFileCancelled(t *testing.T) {
	base, rootsFor := workspaceFixture(t)
	writeFile(t, base+"/a/many.txt", strings.Repeat("x\n", 10000), 0o644)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := (&FileSystem{RootsFor: rootsFor}).ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: "s1", Path: base + "/a/many.txt", Line: 9000})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("read with a cancelled context: %v", err)
	}
}

// TestReadTextFileAnswerSizeIsCapped: text that JSON escaping would inflate past
// MaxAnswerBytes (control characters take six bytes each) is refused with a clear error,
// not encoded into an answer several times its size.
func TestReadTextFileAnswerSizeIsCapped(t *testing.T) {
	base, rootsFor := workspaceFixture(t)
	writeFile(t, base+"/a/control.txt", strings.Repeat("\x01", MaxAnswerBytes/6+1), 0o644)
	writeFile(t, base+"/a/fits.txt", strings.Repeat("\x01", MaxAnswerBytes/6-100), 0o644)
	f := &FileSystem{RootsFor: rootsFor}
	_, err := f.ReadTextFile(t.Context(), &acp.ReadTextFileRequest{SessionID: "s1", Path: base + "/a/control.txt"})
	if wireCode(err) != jsonrpc2.CodeInvalidParams || !strings.Contains(err.Error(), "control characters") {
		t.Errorf("read of text that encodes too large: %v", err)
	}
	if _, err := f.ReadTextFile(t.Context(), &acp.ReadTextFileRequest{SessionID: "s1", Path: base + "/a/fits.txt"}); err != nil {
		t.Errorf("read of text that fits: %v", err)
	}
}
