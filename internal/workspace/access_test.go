//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenRefusesWhatIsNotASingleRegularFile(t *testing.T) {
	base := tree(t)
	r := mustRoots(t, base+"/a")
	if err := syscall.Mkfifo(base+"/a/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(base+"/outside/secret.txt", base+"/a/hardlink"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want any // the error type expected, nil for success
	}{
		{"a/file.txt", nil},
		{"a/link-in", nil},
		{"a/fifo", new(*NotRegularError)}, // and never blocks waiting for a writer
		{"a/sub", new(*NotRegularError)},
		{"a/hardlink", new(*HardLinkError)},
		{"a/link-out", new(*OutsideError)},
		{"a/new.txt", nil}, // missing: fs.ErrNotExist
	}
	for _, tt := range tests {
		f, err := r.Open(filepath.Join(base, tt.path))
		switch {
		case tt.path == "a/new.txt":
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Open(%s): %v, want fs.ErrNotExist", tt.path, err)
			}
		case tt.want == nil && err != nil:
			t.Errorf("Open(%s): %v", tt.path, err)
		case tt.want != nil && !errors.As(err, tt.want):
			t.Errorf("Open(%s): %v, want a %T", tt.path, err, tt.want)
		}
		if f != nil {
			f.Close()
		}
	}
}

func TestReadFileLimit(t *testing.T) {
	base := tree(t)
	r := mustRoots(t, base+"/a")
	if got, err := r.ReadFile(base+"/a/file.txt", 10); err != nil || string(got) != "a/file.txt" {
		t.Errorf("ReadFile at the limit = %q, %v", got, err)
	}
	_, err := r.ReadFile(base+"/a/file.txt", 9)
	if !errors.As(err, new(*TooLargeError)) {
		t.Errorf("ReadFile over the limit: %v, want a *TooLargeError", err)
	}
}

func TestWriteFile(t *testing.T) {
	base := tree(t)
	r := mustRoots(t, base+"/a", base+"/b")
	if err := os.Chmod(base+"/a/file.txt", 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(base+"/outside/secret.txt", base+"/a/hardlink"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(base+"/a/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(path, content string) error { return r.WriteFile(filepath.Join(base, path), []byte(content)) }
	for path, content := range map[string]string{
		"a/file.txt":         "replaced",
		"a/new/dir/made.txt": "created",
		"a/link-to-b":        "through the link",
		"a/hardlink":         "not through the link",
	} {
		if err := write(path, content); err != nil {
			t.Fatalf("WriteFile(%s): %v", path, err)
		}
		if got, _ := os.ReadFile(filepath.Join(base, path)); string(got) != content {
			t.Errorf("%s = %q, want %q", path, got, content)
		}
	}
	if info, _ := os.Stat(base + "/a/file.txt"); info.Mode().Perm() != 0o600 {
		t.Errorf("the mode of a replaced file is %v, want 0600", info.Mode().Perm())
	}
	if info, _ := os.Lstat(base + "/a/link-to-b"); info.Mode()&fs.ModeSymlink == 0 {
		t.Error("a symlink written through is no longer a symlink")
	}
	if got, _ := os.ReadFile(base + "/b/other.txt"); string(got) != "through the link" {
		t.Errorf("the symlink's target = %q", got)
	}
	if got, _ := os.ReadFile(base + "/outside/secret.txt"); string(got) != "outside/secret.txt" {
		t.Errorf("a write to a hard link changed the file outside: %q", got)
	}
	for path, want := range map[string]any{
		"a/sub":                new(*NotRegularError),
		"a/fifo":               new(*NotRegularError),
		"a/link-out":           new(*OutsideError),
		"a/dir-out/x.txt":      new(*OutsideError),
		"a/dangling-out":       new(*OutsideError),
		"a/../outside/planted": new(*OutsideError),
	} {
		if err := write(path, "x"); !errors.As(err, want) {
			t.Errorf("WriteFile(%s): %v, want a %T", path, err, want)
		}
	}
	entries, _ := os.ReadDir(base + "/a")
	for _, e := range entries {
		if strings.Contains(e.Name(), ".parley-") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
	}
}

func TestCwdStartsTheCommandInTheOpenedDirectory(t *testing.T) {
	base := tree(t)
	r := mustRoots(t, base+"/a")
	d, err := r.Cwd(base + "/a/dir-in")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Path() != base+"/a/sub" {
		t.Errorf("Path = %s", d.Path())
	}
	cmd := exec.Command("pwd", "-P")
	cmd.Dir = d.ChdirPath()
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != base+"/a/sub" {
		t.Errorf("the command ran in %s, want %s", got, base+"/a/sub")
	}
	for path, want := range map[string]any{
		"a/file.txt": new(*NotDirError),
		"a/dir-out":  new(*OutsideError),
	} {
		if _, err := r.Cwd(filepath.Join(base, path)); !errors.As(err, want) {
			t.Errorf("Cwd(%s): %v, want a %T", path, err, want)
		}
	}
}

func TestTreeWalksAndReadsInside(t *testing.T) {
	base := tree(t)
	r := mustRoots(t, base+"/a")
	if err := syscall.Mkfifo(base+"/a/sub/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := r.OpenTree(base + "/a/sub")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var names []string
	fs.WalkDir(tr.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		names = append(names, p)
		return err
	})
	if got := strings.Join(names, " "); got != ". fifo inner.txt up upup" {
		t.Errorf("walked %s", got)
	}
	if got, err := tr.ReadFile("inner.txt", 100); err != nil || string(got) != "a/sub/inner.txt" {
		t.Errorf("ReadFile(inner.txt) = %q, %v", got, err)
	}
	for _, bad := range []string{"fifo", "upup/outside/secret.txt", "up/link-out"} {
		if got, err := tr.ReadFile(bad, 100); err == nil {
			t.Errorf("ReadFile(%s) = %q, want an error", bad, got)
		}
	}
}

// TestParleyDirsAreProtected: with parley's configuration inside the workspace (parley
// started in $HOME), an agent may read it but not write it, through any name, nor run
// commands in it.
func TestParleyDirsAreProtected(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", home+"/.config")
	t.Setenv("XDG_DATA_HOME", home+"/.local/share")
	t.Setenv("XDG_STATE_HOME", home+"/.local/state")
	config := home + "/.config/parley"
	mustMkdir(t, config)
	if err := os.WriteFile(config+"/config.json", []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".config/parley", home+"/cfg"); err != nil {
		t.Fatal(err)
	}
	r := mustRoots(t, home)
	if got, err := r.ReadFile(config+"/config.json", 100); err != nil || string(got) != "{}" {
		t.Errorf("reading the configuration: %q, %v", got, err)
	}
	for _, p := range []string{
		config + "/config.json", home + "/cfg/config.json", config + "/new/x.json",
		home + "/.local/share/parley/permissions.db", home + "/.local/state/parley/logs/eliza.log",
	} {
		if err := r.WriteFile(p, []byte(`{"permissions":[{"tool":"*","action":"allow"}]}`)); !errors.As(err, new(*ProtectedError)) {
			t.Errorf("WriteFile(%s): %v, want a *ProtectedError", p, err)
		}
	}
	for _, p := range []string{config, home + "/cfg"} {
		if _, err := r.Cwd(p); !errors.As(err, new(*ProtectedError)) {
			t.Errorf("Cwd(%s): %v, want a *ProtectedError", p, err)
		}
	}
	// The directory renamed into the workspace under another name is still parley's.
	if err := os.Rename(config, home+"/innocent"); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile(home+"/innocent/config.json", []byte("{}")); !errors.As(err, new(*ProtectedError)) {
		t.Errorf("WriteFile into the renamed directory: %v, want a *ProtectedError", err)
	}
	if err := r.WriteFile(home+"/notes.txt", []byte("fine")); err != nil {
		t.Errorf("an ordinary write in $HOME: %v", err)
	}
}

func TestRemove(t *testing.T) {
	base := tree(t)
	r := mustRoots(t, base+"/a")
	if err := r.Remove(base + "/a/link-out"); err != nil { // the link, not the secret
		t.Fatalf("Remove(link-out): %v", err)
	}
	if _, err := os.Stat(base + "/outside/secret.txt"); err != nil {
		t.Errorf("removing a link removed its target: %v", err)
	}
	if err := r.Remove(base + "/a/file.txt"); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(base + "/a/file.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removing a missing file: %v", err)
	}
	for path, want := range map[string]any{
		"a/dir-out/secret.txt":    new(*OutsideError),
		"a/../outside/secret.txt": new(*OutsideError),
		"a":                       new(*NotRegularError),
	} {
		if err := r.Remove(filepath.Join(base, path)); !errors.As(err, want) {
			t.Errorf("Remove(%s): %v, want a %T", path, err, want)
		}
	}
}
