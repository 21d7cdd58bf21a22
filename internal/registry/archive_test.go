package registry

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// member is one entry of an archive a test builds.
type member struct {
	name string
	typ  byte // tar.TypeReg, TypeDir, TypeSymlink, TypeLink
	body string
	link string
	mode int64
}

func file(name, body string) member {
	return member{name: name, typ: tar.TypeReg, body: body, mode: 0o644}
}
func exe(name, body string) member {
	return member{name: name, typ: tar.TypeReg, body: body, mode: 0o755}
}
func dir(name string) member { return member{name: name, typ: tar.TypeDir, mode: 0o755} }
func symlink(name, to string) member {
	return member{name: name, typ: tar.TypeSymlink, link: to, mode: 0o777}
}
func hardlink(name, to string) member { return member{name: name, typ: tar.TypeLink, link: to} }

func tarGz(t testing.TB, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		h := &tar.Header{Name: m.name, Typeflag: m.typ, Linkname: m.link, Mode: m.mode, Size: int64(len(m.body))}
		if m.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if m.typ == tar.TypeReg {
			tw.Write([]byte(m.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func zipOf(t testing.TB, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
		switch m.typ {
		case tar.TypeDir:
			h.Name = strings.TrimSuffix(m.name, "/") + "/"
			h.SetMode(fs.ModeDir | 0o755)
		case tar.TypeSymlink:
			h.SetMode(fs.ModeSymlink | 0o777)
		default:
			h.SetMode(fs.FileMode(m.mode))
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if m.typ == tar.TypeSymlink {
			w.Write([]byte(m.link))
		} else {
			w.Write([]byte(m.body))
		}
	}
	zw.Close()
	return buf.Bytes()
}

// unpackInto writes data to a file and unpacks it into a fresh directory inside a
// "sandbox" directory that holds nothing else, so that anything written outside the
// unpacking directory shows.
func unpackInto(t *testing.T, kind string, data []byte) (sandbox, into string, err error) {
	t.Helper()
	sandbox = t.TempDir()
	archive := filepath.Join(t.TempDir(), "archive")
	if err := os.WriteFile(archive, data, 0o600); err != nil {
		t.Fatal(err)
	}
	into = filepath.Join(sandbox, "a", "b", "into")
	if err := os.MkdirAll(into, 0o755); err != nil {
		t.Fatal(err)
	}
	return sandbox, into, unpack(archive, kind, into, "agent")
}

// outside lists what exists in sandbox but outside into.
func outside(t *testing.T, sandbox, into string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(sandbox, func(p string, d fs.DirEntry, err error) error {
		if p == into {
			return filepath.SkipDir
		}
		if p != sandbox && p != filepath.Join(sandbox, "a") && p != filepath.Join(sandbox, "a", "b") {
			found = append(found, p)
		}
		return nil
	})
	return found
}

func TestUnpackKeepsWhatStaysInside(t *testing.T) {
	members := []member{
		dir("pkg/"), dir("pkg/bin"), exe("pkg/bin/agent", "#!/bin/sh\n"), file("pkg/lib/data.txt", "data"),
		symlink("pkg/run", "bin/agent"), symlink("pkg/bin/data", "../lib/data.txt"), hardlink("pkg/again", "pkg/lib/data.txt"),
	}
	for _, kind := range []string{"tar.gz", "zip"} {
		t.Run(kind, func(t *testing.T) {
			data := tarGz(t, members...)
			if kind == "zip" {
				data = zipOf(t, members[:6]...) // zip has no hard links
			}
			_, into, err := unpackInto(t, kind, data)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(filepath.Join(into, "pkg/bin/agent"))
			if err != nil || st.Mode().Perm()&0o111 == 0 {
				t.Errorf("pkg/bin/agent: %v, mode %v", err, st)
			}
			if target, err := os.Readlink(filepath.Join(into, "pkg/run")); err != nil || target != "bin/agent" {
				t.Errorf("the link pkg/run: %q, %v", target, err)
			}
			if b, err := os.ReadFile(filepath.Join(into, "pkg/bin/data")); err != nil || string(b) != "data" {
				t.Errorf("through the link pkg/bin/data: %q, %v", b, err)
			}
			if kind == "tar.gz" {
				if b, err := os.ReadFile(filepath.Join(into, "pkg/again")); err != nil || string(b) != "data" {
					t.Errorf("the hard link: %q, %v", b, err)
				}
			}
		})
	}
}

func TestUnpackRefusesWhatLeadsOutside(t *testing.T) {
	absolute := filepath.Join(t.TempDir(), "escaped-absolute") // an absolute member's target, made for this run
	for _, tc := range []struct {
		name    string
		members []member
		want    string
	}{
		{"dot-dot path", []member{file("ok", "x"), file("../../escaped", "x")}, "outside the directory"},
		{"dot-dot inside a path", []member{file("pkg/../../../escaped", "x")}, "outside the directory"},
		{"absolute path", []member{file(absolute, "x")}, "absolute path"},
		{"backslash path", []member{file(`..\..\escaped`, "x")}, "backslash"},
		{"symlink outside", []member{symlink("out", "../../../escaped")}, "points outside"},
		{"absolute symlink", []member{symlink("out", "/etc")}, "points outside"},
		{"file through a symlink outside", []member{symlink("out", ".."), file("out/escaped", "x")}, "outside"},
		// Each link's text stays inside, but d/x resolves through d/up (the top) to
		// the top's parent.
		{"symlink outside through another", []member{dir("d"), symlink("d/up", ".."), symlink("d/x", "up/..")}, "leads outside"},
		// The same pair, then a file written through d/x: the os.Root refuses it even
		// before the links are resolved at the end.
		{"file through links that lead outside", []member{dir("d"), symlink("d/up", ".."), symlink("d/x", "up/.."), file("d/x/escaped", "x")}, "unpacking d/x/escaped"},
		{"hard link outside", []member{hardlink("passwd", "../../../etc/passwd")}, "outside"},
		{"absolute hard link", []member{hardlink("passwd", "/etc/passwd")}, "outside"},
		{"hard link to nothing unpacked", []member{hardlink("h", "missing")}, "names no file"},
	} {
		for _, kind := range []string{"tar.gz", "zip"} {
			hasHard := false
			for _, m := range tc.members {
				hasHard = hasHard || m.typ == tar.TypeLink
			}
			if kind == "zip" && hasHard {
				continue
			}
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				data := tarGz(t, tc.members...)
				if kind == "zip" {
					data = zipOf(t, tc.members...)
				}
				sandbox, into, err := unpackInto(t, kind, data)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("got %v, want an error saying %q", err, tc.want)
				} else {
					t.Log(err)
				}
				if found := outside(t, sandbox, into); len(found) > 0 {
					t.Errorf("written outside: %v", found)
				}
				if _, err := os.Lstat(absolute); err == nil {
					t.Error("an absolute member was written")
				}
			})
		}
	}
}

func TestUnpackRaw(t *testing.T) {
	_, into, err := unpackInto(t, "raw", []byte("#!/bin/sh\necho hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(into, "agent"))
	if err != nil || st.Mode().Perm()&0o111 == 0 {
		t.Errorf("raw executable: %v %v", st, err)
	}
}

func TestArchiveKind(t *testing.T) {
	for p, want := range map[string]string{
		"/a/agent.zip": "zip", "/a/agent.TAR.GZ": "tar.gz", "/a/agent.tgz": "tar.gz",
		"/a/agent.tar.bz2": "tar.bz2", "/a/agent.tbz2": "tar.bz2", "/a/agent": "raw", "/a/agent.exe": "raw",
	} {
		if got := archiveKind(p); got != want {
			t.Errorf("%s: %s, want %s", p, got, want)
		}
	}
}
