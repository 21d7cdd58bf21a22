//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree builds, under a fresh temporary directory (its symlinks resolved), two roots a and
// b, a directory ab whose name a is a prefix of, an outside directory, and symlinks of
// every kind. It returns the base.
//
//	a/file.txt  a/sub/inner.txt  b/other.txt  ab/x.txt  outside/secret.txt
func tree(t testing.TB) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/sub", "b", "ab", "outside"} {
		mustMkdir(t, filepath.Join(base, d))
	}
	for _, f := range []string{"a/file.txt", "a/sub/inner.txt", "b/other.txt", "ab/x.txt", "outside/secret.txt"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := [][2]string{ // link, target
		{"a/link-in", "file.txt"},
		{"a/link-abs-in", base + "/a/sub/inner.txt"},
		{"a/link-to-b", "../b/other.txt"},
		{"a/link-out", "../outside/secret.txt"},
		{"a/link-abs-out", base + "/outside/secret.txt"},
		{"a/dir-in", "sub"},
		{"a/dir-out", "../outside"},
		{"a/sub/up", ".."},
		{"a/sub/upup", "../.."},
		{"a/chain1", "chain2"},
		{"a/chain2", "../outside/secret.txt"},
		{"a/chain-in1", "chain-in2"},
		{"a/chain-in2", "sub/inner.txt"},
		{"a/dangling-in", "new-in.txt"},
		{"a/dangling-out", "../outside/new.txt"},
		{"a/dangling-chain", "dangling-out"},
		{"a/dangling-dir-out", "../outside/newdir/deeper"},
		{"a/loop1", "loop2"},
		{"a/loop2", "loop1"},
		{"a/to-ab", "../ab"},
		{"rootlink", "a"},
	}
	for _, l := range links {
		if err := os.Symlink(l[1], filepath.Join(base, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// kind names the error class a caller maps to a protocol error.
func kind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.As(err, new(*RelativeError)):
		return "relative"
	case errors.As(err, new(*OutsideError)):
		return "outside"
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	default:
		return "other"
	}
}

func TestResolve(t *testing.T) {
	base := tree(t)
	r := mustRoots(t, base+"/a", base+"/b")
	tests := []struct {
		path      string
		want      string // resolved, relative to base; "" when an error is expected
		wantErr   string // read's error kind
		wantWrite string // ResolveForWrite's result, when it differs from want
		writeErr  string // ResolveForWrite's error kind, when it differs from wantErr
	}{
		{path: "a/file.txt", want: "a/file.txt"},
		{path: "a", want: "a"},
		{path: "b/other.txt", want: "b/other.txt"},
		{path: "a/sub/../file.txt", want: "a/file.txt"},
		{path: "a/./sub//inner.txt", want: "a/sub/inner.txt"},
		{path: "a/link-in", want: "a/file.txt"},
		{path: "a/link-abs-in", want: "a/sub/inner.txt"},
		{path: "a/link-to-b", want: "b/other.txt"},
		{path: "a/dir-in/inner.txt", want: "a/sub/inner.txt"},
		{path: "a/sub/up/file.txt", want: "a/file.txt"},
		{path: "a/chain-in1", want: "a/sub/inner.txt"},
		{path: "rootlink/file.txt", want: "a/file.txt"},
		// `..` is cleaned before symlinks are resolved (the system would say ab/a/file.txt).
		{path: "a/to-ab/../a/file.txt", wantErr: "missing", wantWrite: "a/a/file.txt", writeErr: "-"},
		{path: "a/to-ab/../file.txt", want: "a/file.txt"},
		// Escapes.
		{path: "a/../outside/secret.txt", wantErr: "outside"},
		{path: "a/../../../../etc/passwd", wantErr: "outside"},
		{path: "outside/secret.txt", wantErr: "outside"},
		{path: "ab/x.txt", wantErr: "outside"},
		{path: "a/to-ab/x.txt", wantErr: "outside"},
		{path: "a/link-out", wantErr: "outside"},
		{path: "a/link-abs-out", wantErr: "outside"},
		{path: "a/dir-out/secret.txt", wantErr: "outside"},
		{path: "a/dir-out", wantErr: "outside"},
		{path: "a/sub/upup/outside/secret.txt", wantErr: "outside"},
		{path: "a/chain1", wantErr: "outside"},
		{path: "a/dir-out/missing.txt", wantErr: "outside"},
		{path: "outside/missing.txt", wantErr: "outside"},
		{path: "a/dangling-out", wantErr: "outside"},
		{path: "a/dangling-chain", wantErr: "outside"},
		{path: "a/dangling-dir-out", wantErr: "outside"},
		{path: "a/dangling-dir-out/file.txt", wantErr: "outside"},
		// Missing inside: a read fails, a write may create it.
		{path: "a/new.txt", wantErr: "missing", wantWrite: "a/new.txt", writeErr: "-"},
		{path: "a/new/dir/file.txt", wantErr: "missing", wantWrite: "a/new/dir/file.txt", writeErr: "-"},
		{path: "a/dir-in/new.txt", wantErr: "missing", wantWrite: "a/sub/new.txt", writeErr: "-"},
		{path: "a/dangling-in", wantErr: "missing", wantWrite: "a/new-in.txt", writeErr: "-"},
		{path: "a/file.txt/x", wantErr: "missing", wantWrite: "a/file.txt/x", writeErr: "-"},
		{path: "a/loop1", wantErr: "other"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path := filepath.Join(base, tt.path)
			got, err := r.Resolve(path)
			check(t, "Resolve", base, got, err, tt.want, tt.wantErr)

			wantWrite, writeErr := tt.want, tt.wantErr
			if tt.wantWrite != "" {
				wantWrite = tt.wantWrite
			}
			if tt.writeErr == "-" {
				writeErr = ""
			} else if tt.writeErr != "" {
				writeErr = tt.writeErr
			}
			got, err = r.ResolveForWrite(path)
			check(t, "ResolveForWrite", base, got, err, wantWrite, writeErr)
		})
	}
}

func check(t *testing.T, what, base, got string, err error, want, wantErr string) {
	t.Helper()
	if k := kind(err); k != wantErr {
		t.Fatalf("%s: error %v (kind %q), want kind %q", what, err, k, wantErr)
	}
	if wantErr != "" {
		return
	}
	if want = filepath.Join(base, want); got != want {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func TestRelativePaths(t *testing.T) {
	base := tree(t)
	t.Chdir(base + "/a") // a relative path must not be resolved against the process's cwd
	r := mustRoots(t, base+"/a")
	for _, p := range []string{"file.txt", "./file.txt", "../a/file.txt", "", "."} {
		for name, resolve := range map[string]func(string) (string, error){"Resolve": r.Resolve, "ResolveForWrite": r.ResolveForWrite} {
			if _, err := resolve(p); kind(err) != "relative" {
				t.Errorf("%s(%q): error %v, want a *RelativeError", name, p, err)
			}
		}
	}
}

func TestErrorMessages(t *testing.T) {
	base := tree(t)
	r := mustRoots(t, base+"/a", base+"/b")
	roots := base + "/a, " + base + "/b"
	tests := []struct{ path, want string }{
		{base + "/outside/secret.txt", base + "/outside/secret.txt is outside the workspace (" + roots + ")"},
		{base + "/a/link-out", base + "/a/link-out is outside the workspace (" + roots + "): it resolves to " + base + "/outside/secret.txt"},
		{"file.txt", `"file.txt" is a relative path; give an absolute path inside the workspace (` + roots + ")"},
		{base + "/a/missing.txt", base + "/a/missing.txt: no such file or directory"},
	}
	for _, tt := range tests {
		_, err := r.Resolve(tt.path)
		if err == nil {
			t.Fatalf("Resolve(%s) succeeded", tt.path)
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("Resolve(%s) error (-want +got):\n%s", tt.path, diff)
		}
	}
}

func TestNewRoots(t *testing.T) {
	base := tree(t)
	r := mustRoots(t, base+"/rootlink", base+"/b", base+"/a/")
	if diff := cmp.Diff([]string{base + "/a", base + "/b"}, r.Dirs()); diff != "" {
		t.Errorf("Dirs (-want +got):\n%s", diff)
	}
	for _, bad := range [][]string{
		nil,
		{"a"},
		{base + "/missing"},
		{base + "/a/file.txt"},
		{base + "/a/dangling-in"},
	} {
		if _, err := NewRoots(bad...); err == nil {
			t.Errorf("NewRoots(%q) succeeded", bad)
		}
	}
}

func TestFilesystemRoot(t *testing.T) {
	r := mustRoots(t, "/")
	if _, err := r.Resolve("/"); err != nil {
		t.Errorf("Resolve(/): %v", err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.ResolveForWrite(dir + "/x"); err != nil || got != dir+"/x" {
		t.Errorf("ResolveForWrite(%s/x) = %s, %v", dir, got, err)
	}
}

// FuzzResolve checks Resolve and ResolveForWrite against a reference computed with
// filepath.EvalSymlinks: nothing they accept lies outside the roots, and an existing path
// resolves where the operating system says it does.
func FuzzResolve(f *testing.F) {
	base := tree(f)
	r := mustRoots(f, base+"/a", base+"/b")
	for _, seed := range []string{
		"a/file.txt", "a/../outside/secret.txt", "a/link-out", "a/dir-out/secret.txt",
		"a/chain1", "a/dangling-out", "a/dangling-chain/x", "a/sub/upup/ab/x.txt", "ab/x.txt",
		"a/new/x", "a/dir-in/../link-in", "rootlink/link-to-b", "a/loop1/x", "../../etc",
	} {
		f.Add(seed)
	}
	inside := func(p string) bool {
		for _, root := range []string{base + "/a", base + "/b"} {
			rel, err := filepath.Rel(root, p)
			if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				return true
			}
		}
		return false
	}
	f.Fuzz(func(t *testing.T, rel string) {
		path := base + "/" + rel
		ref, refErr := filepath.EvalSymlinks(filepath.Clean(path))

		got, err := r.Resolve(path)
		switch {
		case err == nil && !inside(got):
			t.Fatalf("Resolve(%q) = %s, outside the roots", path, got)
		case err == nil && (refErr != nil || got != ref):
			t.Fatalf("Resolve(%q) = %s; EvalSymlinks gives %s, %v", path, got, ref, refErr)
		case refErr == nil && inside(ref) && err != nil:
			t.Fatalf("Resolve(%q): %v; want %s", path, err, ref)
		case refErr == nil && !inside(ref) && kind(err) != "outside":
			t.Fatalf("Resolve(%q): %v; want an *OutsideError (it resolves to %s)", path, err, ref)
		}

		got, err = r.ResolveForWrite(path)
		if err != nil {
			return
		}
		if !inside(got) {
			t.Fatalf("ResolveForWrite(%q) = %s, outside the roots", path, got)
		}
		if refErr == nil && got != ref {
			t.Fatalf("ResolveForWrite(%q) = %s; EvalSymlinks gives %s", path, got, ref)
		}
		// What exists of the result must be free of symlinks, so that creating the rest
		// lands exactly there.
		existing := got
		for {
			if _, err := os.Lstat(existing); err == nil {
				break
			}
			existing = filepath.Dir(existing)
		}
		if real, err := filepath.EvalSymlinks(existing); err != nil || real != existing {
			t.Fatalf("ResolveForWrite(%q) = %s, whose existing part %s resolves to %s, %v", path, got, existing, real, err)
		}
	})
}
