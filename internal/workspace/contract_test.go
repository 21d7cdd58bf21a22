package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The confinement contract, written with the system's own paths (no Unix names, no
// FIFOs) so that it runs unchanged on every platform: what it refuses here on Linux, it
// refuses on macOS and Windows. The Unix-only cases (FIFOs, symlink races, every kind of
// symlink) are in the _unix and _linux tests.
func TestConfinementContract(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	mustMkdir(t, filepath.Join(ws, "sub"))
	mustMkdir(t, outside)
	secret := filepath.Join(outside, "secret.txt")
	for path, content := range map[string]string{filepath.Join(ws, "file.txt"): "mine", secret: "secret"} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(ws, "cfg")) // parley's configuration, inside the workspace
	r := mustRoots(t, ws)

	accepted := []string{filepath.Join(ws, "file.txt"), filepath.Join(ws, "sub", "..", "file.txt")}
	for _, path := range accepted {
		if data, err := r.ReadFile(path, 1<<10); err != nil || string(data) != "mine" {
			t.Errorf("ReadFile(%s) = %q, %v", path, data, err)
		}
	}
	refused := map[string]error{
		secret: new(OutsideError),
		filepath.Join(ws, "..", "outside", "secret.txt"):         new(OutsideError),
		filepath.Join(ws, "sub", "..", "..", "outside", "x.txt"): new(OutsideError),
		"file.txt":                             new(RelativeError),
		filepath.Join("sub", "..", "file.txt"): new(RelativeError),
	}
	if err := os.Link(secret, filepath.Join(ws, "hardlink.txt")); err == nil {
		refused[filepath.Join(ws, "hardlink.txt")] = new(HardLinkError)
	} else {
		t.Logf("no hard links here (%v): that case is not checked", err)
	}
	if err := os.Symlink(secret, filepath.Join(ws, "link.txt")); err == nil {
		refused[filepath.Join(ws, "link.txt")] = new(OutsideError)
	} else {
		t.Logf("no symlinks here (%v): that case is not checked", err)
	}
	for path, want := range refused {
		if _, err := r.ReadFile(path, 1<<10); !errorIsKind(err, want) {
			t.Errorf("ReadFile(%s): %v, want a %T", path, err, want)
		}
		if _, ok := want.(*HardLinkError); ok {
			continue // writing replaces the link, inside the workspace
		}
		if err := r.WriteFile(path, []byte("overwritten")); !errorIsKind(err, want) {
			t.Errorf("WriteFile(%s): %v, want a %T", path, err, want)
		}
	}
	if err := r.WriteFile(filepath.Join(ws, "cfg", "parley", "config.json"), []byte("{}")); !errors.As(err, new(*ProtectedError)) {
		t.Errorf("writing parley's configuration: %v, want a *ProtectedError", err)
	}
	if _, err := r.Cwd(filepath.Join(ws, "cfg", "parley")); err == nil {
		t.Error("parley's configuration directory was accepted as a command's directory")
	}
	if data, err := os.ReadFile(secret); err != nil || string(data) != "secret" {
		t.Errorf("the file outside changed: %q, %v", data, err)
	}
}

// errorIsKind reports whether err is of want's type.
func errorIsKind(err error, want error) bool {
	switch want.(type) {
	case *OutsideError:
		return errors.As(err, new(*OutsideError))
	case *RelativeError:
		return errors.As(err, new(*RelativeError))
	case *HardLinkError:
		return errors.As(err, new(*HardLinkError))
	}
	return false
}

func mustMkdir(t testing.TB, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustRoots(t testing.TB, dirs ...string) *Roots {
	t.Helper()
	r, err := NewRoots(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
