//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Every access goes through the Windows name check when it is on: names that are ordinary
// files on Unix (file.txt:stream, CON, notes.txt.) are refused by all of them. (On
// Windows these names cannot be created as the files they look like.)
func TestWindowsNamesAreCheckedOnEveryAccess(t *testing.T) {
	base := t.TempDir()
	for _, name := range []string{"file.txt:stream", "CON", "notes.txt."} {
		if err := os.WriteFile(filepath.Join(base, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := mustRoots(t, base)
	r.windowsNames = true
	dir := r.Dirs()[0]
	for _, name := range []string{"file.txt:stream", "CON", "notes.txt."} {
		path := filepath.Join(dir, name)
		ops := map[string]error{}
		_, ops["Resolve"] = r.Resolve(path)
		_, ops["ResolveForWrite"] = r.ResolveForWrite(path)
		_, ops["Open"] = r.Open(path)
		_, ops["Stat"] = r.Stat(path)
		ops["WriteFile"] = r.WriteFile(path, []byte("y"))
		ops["Remove"] = r.Remove(path)
		_, ops["Cwd"] = r.Cwd(path)
		_, ops["OpenTree"] = r.OpenTree(path)
		for op, err := range ops {
			var nameErr *NameError
			if !errors.As(err, &nameErr) {
				t.Errorf("%s(%q) = %v, want a *NameError", op, name, err)
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(base, "file.txt:stream")); err != nil || string(data) != "x" {
		t.Errorf("the file changed: %q, %v", data, err)
	}
}
