package registry

import (
	"archive/tar"
	"archive/zip"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits of what one archive may unpack to: far above any agent's, far below a full disk.
const (
	maxUnpackedBytes = 4 << 30
	maxMembers       = 200_000
	maxLinkDepth     = 40
)

// archiveKind is how an archive is unpacked, from its URL's path.
func archiveKind(urlPath string) string {
	p := strings.ToLower(urlPath)
	switch {
	case strings.HasSuffix(p, ".zip"):
		return "zip"
	case strings.HasSuffix(p, ".tar.gz"), strings.HasSuffix(p, ".tgz"):
		return "tar.gz"
	case strings.HasSuffix(p, ".tar.bz2"), strings.HasSuffix(p, ".tbz2"):
		return "tar.bz2"
	}
	return "raw"
}

// unpacker writes an archive's members into dir, through an os.Root on it: a member can
// neither be written outside dir nor leave a link that leads outside it.
type unpacker struct {
	dir     string
	root    *os.Root
	written int64
	members int
	files   map[string]bool // regular files unpacked: what a hard link may name
	links   []string        // symbolic links unpacked, checked once everything is
}

// unpack unpacks the archive file into dir (which exists and is empty). kind is
// archiveKind's; for "raw", the file itself is the executable and is named rawName.
func unpack(archive, kind, dir, rawName string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	u := &unpacker{dir: dir, root: root, files: map[string]bool{}}
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	switch kind {
	case "zip":
		err = u.zip(f)
	case "tar.gz":
		var gz *gzip.Reader
		if gz, err = gzip.NewReader(f); err == nil {
			err = u.tar(gz)
		}
	case "tar.bz2":
		err = u.tar(bzip2.NewReader(f))
	default:
		err = u.file(rawName, f, 0o755)
	}
	if err != nil {
		return err
	}
	// A link's text was checked when it was made; resolving it now, with every other
	// link in place, catches one that leads outside through another.
	for _, l := range u.links {
		out, err := escapes(dir, l)
		if err != nil {
			return fmt.Errorf("the archive's link %s: %w", l, err)
		}
		if out {
			target, _ := root.Readlink(l)
			return fmt.Errorf("refusing the archive: its link %s -> %s leads outside the directory it is unpacked into", l, target)
		}
	}
	return nil
}

// memberName is a member's name made relative to the unpacking directory, or an error
// when it is absolute or climbs out of it. "" is the directory itself.
func memberName(name string) (string, error) {
	if name == "" {
		return "", errors.New("refusing the archive: a member has no name")
	}
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("refusing the archive: member %q has an absolute path", name)
	}
	if strings.Contains(name, `\`) {
		// A backslash separates names on Windows: "..\x" would climb out there.
		return "", fmt.Errorf("refusing the archive: member %q has a backslash in its name", name)
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", nil
	}
	if !filepath.IsLocal(filepath.FromSlash(clean)) {
		return "", fmt.Errorf("refusing the archive: member %q would be written outside the directory it is unpacked into", name)
	}
	return clean, nil
}

func (u *unpacker) count() error {
	u.members++
	if u.members > maxMembers {
		return fmt.Errorf("refusing the archive: more than %d members", maxMembers)
	}
	return nil
}

func (u *unpacker) tar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the archive: %w", err)
		}
		if err := u.count(); err != nil {
			return err
		}
		name, err := memberName(h.Name)
		if err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if name != "" {
				if err := u.root.MkdirAll(name, 0o755); err != nil {
					return fmt.Errorf("unpacking %s: %w", h.Name, err)
				}
			}
		case tar.TypeReg:
			if err := u.file(name, tr, fs.FileMode(h.Mode)); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := u.symlink(name, h.Linkname); err != nil {
				return err
			}
		case tar.TypeLink:
			if err := u.hardlink(name, h.Linkname); err != nil {
				return err
			}
		case tar.TypeXGlobalHeader, tar.TypeXHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
			// metadata, already applied by the reader
		default:
			// Devices, FIFOs and the like have no place in an agent's archive.
			return fmt.Errorf("refusing the archive: member %q is not a file, directory or link (type %q)", h.Name, h.Typeflag)
		}
	}
}

func (u *unpacker) zip(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return fmt.Errorf("reading the archive: %w", err)
	}
	for _, m := range zr.File {
		if err := u.count(); err != nil {
			return err
		}
		name, err := memberName(m.Name)
		if err != nil {
			return err
		}
		mode := m.Mode()
		switch {
		case mode.IsDir() || strings.HasSuffix(m.Name, "/"):
			if name != "" {
				if err := u.root.MkdirAll(name, 0o755); err != nil {
					return fmt.Errorf("unpacking %s: %w", m.Name, err)
				}
			}
		case mode&fs.ModeSymlink != 0:
			target, err := readSmall(m)
			if err != nil {
				return fmt.Errorf("reading the archive's link %s: %w", m.Name, err)
			}
			if err := u.symlink(name, target); err != nil {
				return err
			}
		case mode.IsRegular():
			rc, err := m.Open()
			if err != nil {
				return fmt.Errorf("reading %s from the archive: %w", m.Name, err)
			}
			err = u.file(name, rc, mode)
			rc.Close()
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("refusing the archive: member %q is not a file, directory or link", m.Name)
		}
	}
	return nil
}

func readSmall(m *zip.File) (string, error) {
	rc, err := m.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 4096))
	return string(b), err
}

// file writes a regular file: readable by all, executable when the archive says so,
// never set-id or writable by others.
func (u *unpacker) file(name string, r io.Reader, mode fs.FileMode) error {
	if name == "" {
		return errors.New("refusing the archive: a file member names the directory itself")
	}
	perm := fs.FileMode(0o644)
	if mode&0o111 != 0 {
		perm = 0o755
	}
	if dir := path.Dir(name); dir != "." {
		if err := u.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("unpacking %s: %w", name, err)
		}
	}
	// A member may repeat an earlier one; the later wins, as tar has it. Removing first
	// replaces a link by the file instead of writing through it.
	if err := u.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unpacking %s: %w", name, err)
	}
	f, err := u.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("unpacking %s: %w", name, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, maxUnpackedBytes-u.written+1))
	u.written += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unpacking %s: %w", name, err)
	}
	if u.written > maxUnpackedBytes {
		return fmt.Errorf("refusing the archive: it unpacks to more than %d GiB", maxUnpackedBytes>>30)
	}
	u.files[name] = true
	return nil
}

// symlink makes a symbolic link whose text stays inside the directory: relative, and not
// climbing above it from where the link is. unpack resolves it again at the end.
func (u *unpacker) symlink(name, target string) error {
	if name == "" {
		return errors.New("refusing the archive: a link member names the directory itself")
	}
	if target == "" || strings.HasPrefix(target, "/") || strings.HasPrefix(target, `\`) || filepath.IsAbs(target) || filepath.VolumeName(target) != "" || strings.Contains(target, `\`) {
		return fmt.Errorf("refusing the archive: its link %s -> %s points outside the directory it is unpacked into", name, target)
	}
	if !filepath.IsLocal(filepath.FromSlash(path.Join(path.Dir(name), target))) {
		return fmt.Errorf("refusing the archive: its link %s -> %s points outside the directory it is unpacked into", name, target)
	}
	if dir := path.Dir(name); dir != "." {
		if err := u.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("unpacking %s: %w", name, err)
		}
	}
	if err := u.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unpacking %s: %w", name, err)
	}
	if err := u.root.Symlink(target, name); err != nil {
		return fmt.Errorf("unpacking the link %s: %w", name, err)
	}
	u.links = append(u.links, name)
	return nil
}

// hardlink links name to a regular file the archive unpacked before it; anything else
// (a file outside, a directory, a name not unpacked) is refused.
func (u *unpacker) hardlink(name, target string) error {
	if name == "" {
		return errors.New("refusing the archive: a link member names the directory itself")
	}
	old, err := memberName(target)
	if err != nil || old == "" {
		return fmt.Errorf("refusing the archive: its hard link %s -> %s points outside the directory it is unpacked into", name, target)
	}
	if !u.files[old] {
		return fmt.Errorf("refusing the archive: its hard link %s -> %s names no file unpacked before it", name, target)
	}
	if dir := path.Dir(name); dir != "." {
		if err := u.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("unpacking %s: %w", name, err)
		}
	}
	if err := u.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unpacking %s: %w", name, err)
	}
	if err := u.root.Link(old, name); err != nil {
		return fmt.Errorf("unpacking the hard link %s: %w", name, err)
	}
	u.files[name] = true
	return nil
}

// escapes reports whether name, resolved inside dir the way the system resolves a path
// (following each symbolic link it meets, ".." after a link going up from the link's
// target), leads outside dir. Components that do not exist are taken as written.
func escapes(dir, name string) (bool, error) {
	todo := strings.Split(filepath.ToSlash(name), "/")
	var at []string // where the walk is, relative to dir
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(at) == 0 {
				return true, nil
			}
			at = at[:len(at)-1]
			continue
		}
		p := filepath.Join(append([]string{dir}, append(at, c)...)...)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			at = append(at, c)
			continue
		}
		if err != nil {
			return false, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			at = append(at, c)
			continue
		}
		links++
		if links > maxLinkDepth {
			return false, errors.New("too many levels of symbolic links")
		}
		target, err := os.Readlink(p)
		if err != nil {
			return false, err
		}
		if strings.HasPrefix(target, "/") || filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
			return true, nil
		}
		todo = append(strings.Split(filepath.ToSlash(target), "/"), todo...)
	}
	return false, nil
}
