package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// Confined access. Every method first checks the path as Resolve or ResolveForWrite do
// (which gives the clear errors), then does the operation through an os.Root opened at the
// root that holds the resolved path. The root refuses to leave itself at every step, so a
// directory swapped for a symlink to outside between the check and the use makes the
// operation fail instead of escaping: what is checked is what is used.

// MaxReadBytes is the most a whole-file read returns, whoever reads: the ACP host (a larger
// answer would not fit a protocol line any peer accepts) and the agent's local tools.
const MaxReadBytes = 50 << 20

// Open opens an existing regular file inside the roots for reading. It refuses anything
// else (a directory, a FIFO, a device: *NotRegularError) and a file with more than one
// hard link (*HardLinkError): its other names may be outside, and nothing can prove they
// are not.
func (r *Roots) Open(path string) (*os.File, error) {
	root, rel, err := r.locate(path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, readFlags, 0)
	if err != nil {
		return nil, r.changed(path, err)
	}
	if err := checkReadable(path, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile returns the content of a regular file inside the roots (see Open), refusing
// one larger than limit bytes with a *TooLargeError.
func (r *Roots) ReadFile(path string, limit int64) ([]byte, error) {
	f, err := r.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(path, f, limit)
}

// Stat describes an existing file or directory inside the roots (symlinks followed).
func (r *Roots) Stat(path string) (fs.FileInfo, error) {
	root, rel, err := r.locate(path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	info, err := root.Stat(rel)
	if err != nil {
		return nil, r.changed(path, err)
	}
	return info, nil
}

// WriteFile replaces the content of a file inside the roots, creating it and its missing
// parent directories. The content goes to a temporary file in the same directory that is
// then renamed over the file, so a reader sees the old content or the new, never a mix,
// and a hard link to the file is replaced rather than written through. An existing file
// keeps its permissions; a new one gets 0666 less the umask. A symlink to the file stays a
// symlink (the file it points to, inside the roots, is replaced). parley's own directories
// are refused (*ProtectedError), and so is a path that is a directory or not a regular file.
func (r *Roots) WriteFile(path string, content []byte) error {
	resolved, err := r.ResolveForWrite(path)
	if err != nil {
		return err
	}
	if err := r.protect.checkName(path, resolved); err != nil {
		return err
	}
	root, rel, err := r.openRoot(resolved)
	if err != nil {
		return err
	}
	defer root.Close()
	if rel == "." {
		return &NotRegularError{Path: path, Mode: fs.ModeDir}
	}
	parent, name := filepath.Dir(rel), filepath.Base(rel)
	if err := root.MkdirAll(parent, 0o777); err != nil {
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
			return &NotDirError{Path: filepath.Dir(path), Parent: true}
		}
		return r.changed(path, err)
	}
	dir, err := root.OpenRoot(parent)
	if err != nil {
		return r.changed(path, err)
	}
	defer dir.Close()
	if err := r.protect.checkDir(path, dir); err != nil {
		return err
	}
	var keepMode *fs.FileMode
	if info, err := dir.Lstat(name); err == nil {
		switch {
		case info.Mode().IsRegular():
			keepMode = new(info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink == 0: // a symlink swapped in is replaced, inside dir
			return &NotRegularError{Path: path, Mode: info.Mode()}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := replaceIn(dir, name, content, keepMode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Chmod sets the permission bits of the regular file path names, inside the roots (what
// an undo restores: a turn's `chmod +x`). parley's own directories are refused, and so is
// anything but a regular file (a symlink is not followed).
func (r *Roots) Chmod(path string, mode fs.FileMode) error {
	resolved, err := r.Resolve(path)
	if err != nil {
		return err
	}
	if err := r.protect.checkName(path, resolved); err != nil {
		return err
	}
	dir, err := r.openParent(path, filepath.Dir(resolved))
	if err != nil {
		return err
	}
	defer dir.Close()
	name := filepath.Base(resolved)
	info, err := dir.Lstat(name)
	if err != nil {
		return r.changed(path, err)
	}
	if !info.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: info.Mode()}
	}
	if err := dir.Chmod(name, mode.Perm()); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", path, err)
	}
	return nil
}

// Remove removes the file (or empty directory) path names, inside the roots; a final
// symlink is removed, not what it points to. parley's own directories are refused. A
// missing file is an error matching fs.ErrNotExist.
func (r *Roots) Remove(path string) error {
	clean, err := r.absolute(path)
	if err != nil {
		return err
	}
	if slices.Contains(r.dirs, clean) {
		return &NotRegularError{Path: path, Mode: fs.ModeDir} // a root itself
	}
	parent, err := r.Resolve(filepath.Dir(clean))
	if err != nil {
		return err
	}
	resolved := filepath.Join(parent, filepath.Base(clean))
	if err := r.protect.checkName(path, resolved); err != nil {
		return err
	}
	dir, err := r.openParent(path, parent)
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := dir.Remove(filepath.Base(clean)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &notExistError{path: path, err: err}
		}
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}

// replaceIn writes content to a new file in dir and renames it to name.
func replaceIn(dir *os.Root, name string, content []byte, keepMode *fs.FileMode) error {
	tmp, file, err := createTemp(dir, name)
	if err != nil {
		return err
	}
	defer dir.Remove(tmp) // fails harmlessly once renamed
	_, err = file.Write(content)
	if err == nil && keepMode != nil {
		err = file.Chmod(*keepMode)
	}
	if err == nil {
		err = file.Sync()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return dir.Rename(tmp, name)
}

// createTemp creates a new file beside name. Unlike os.CreateTemp it creates it with mode
// 0666 less the umask, which is what a new file should get.
func createTemp(dir *os.Root, name string) (string, *os.File, error) {
	for range 100 {
		tmp := "." + name + ".parley-" + strconv.FormatUint(rand.Uint64()%1e12, 36)
		file, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return tmp, file, err
	}
	return "", nil, errors.New("cannot create a temporary file beside it")
}

// locate resolves path (which must exist) and opens the root that holds it: see openRoot.
func (r *Roots) locate(path string) (*os.Root, string, error) {
	resolved, err := r.Resolve(path)
	if err != nil {
		return nil, "", err
	}
	return r.openRoot(resolved)
}

// openDir opens the directory path, already resolved, as a root of its own.
func (r *Roots) openDir(path, resolved string) (*os.Root, error) {
	root, rel, err := r.openRoot(resolved)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	sub, err := root.OpenRoot(rel)
	if err != nil {
		if info, serr := root.Stat(rel); serr == nil && !info.IsDir() {
			return nil, &NotDirError{Path: path}
		}
		return nil, r.changed(path, err)
	}
	return sub, nil
}

// openRoot opens the root that holds resolved (a path Resolve or ResolveForWrite
// returned) and returns resolved relative to it.
func (r *Roots) openRoot(resolved string) (*os.Root, string, error) {
	for _, d := range r.dirs {
		if !within(d, resolved) {
			continue
		}
		rel, err := filepath.Rel(d, resolved)
		if err != nil {
			continue
		}
		root, err := os.OpenRoot(d)
		if err != nil {
			return nil, "", fmt.Errorf("opening the workspace root %s: %w", d, err)
		}
		return root, rel, nil
	}
	return nil, "", &OutsideError{Path: resolved, Resolved: resolved, Roots: r.Dirs()}
}

// changed explains an error of an operation through a root on a path that had just been
// checked: the path changed in between (a symlink swapped in, a file removed). The check
// is made again, so that the error says what the path is now.
func (r *Roots) changed(path string, err error) error {
	if _, rerr := r.Resolve(path); rerr != nil {
		return rerr
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &notExistError{path: path, err: err}
	}
	return fmt.Errorf("%s changed while it was being opened; try again (%w)", path, err)
}

// checkReadable refuses what Open must not return.
func checkReadable(path string, f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: info.Mode()}
	}
	if n := linkCount(f, info); n > 1 {
		return &HardLinkError{Path: path, Links: n}
	}
	return nil
}

// readLimited reads f whole, refusing more than limit bytes.
func readLimited(path string, f *os.File, limit int64) ([]byte, error) {
	var size int64
	if info, err := f.Stat(); err == nil {
		size = info.Size()
	}
	if size > limit {
		return nil, &TooLargeError{Path: path, Size: size, Limit: limit}
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead) // room to see the end without growing
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(buf.Len()) > limit {
		return nil, &TooLargeError{Path: path, Size: -1, Limit: limit}
	}
	return buf.Bytes(), nil
}

// NotRegularError reports a path that is not a regular file where one is needed.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	if e.Mode.IsDir() {
		return e.Path + " is a directory"
	}
	return fmt.Sprintf("%s is not a regular file (%s)", e.Path, e.Mode.Type())
}

// HardLinkError reports a file with more than one name. A hard link placed in the
// workspace may be another name of a file outside it, and a link count cannot tell where
// the other names are, so such files are never read.
type HardLinkError struct {
	Path  string
	Links uint64
}

func (e *HardLinkError) Error() string {
	return fmt.Sprintf("%s has %d hard links; parley reads only files with one name, since the others may be outside the workspace (make a copy to read it)", e.Path, e.Links)
}

// TooLargeError reports a file larger than the caller's limit.
type TooLargeError struct {
	Path  string
	Size  int64 // -1 when it grew while being read
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s; read part of it", e.Path, byteSize(e.Limit))
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// openParent opens parent, the resolved directory that holds path, through the root it is
// in, and checks that it is none of parley's own directories.
func (r *Roots) openParent(path, parent string) (*os.Root, error) {
	root, rel, err := r.openRoot(parent)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	dir, err := root.OpenRoot(rel)
	if err != nil {
		return nil, r.changed(path, err)
	}
	if err := r.protect.checkDir(path, dir); err != nil {
		dir.Close()
		return nil, err
	}
	return dir, nil
}
