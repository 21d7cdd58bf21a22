package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Dir is a directory inside the roots, opened, for a command to start in. Starting a
// process in it by its name would look the name up again, and a symlink swapped in
// meanwhile would lead the command outside; ChdirPath names the open directory itself.
type Dir struct {
	f    *os.File
	path string
}

// Cwd opens the directory path (inside the roots, not one of parley's own directories)
// for a command to start in. Close it once the command has started.
func (r *Roots) Cwd(path string) (*Dir, error) {
	resolved, err := r.Resolve(path)
	if err != nil {
		return nil, err
	}
	if err := r.protect.checkName(path, resolved); err != nil {
		return nil, err
	}
	sub, err := r.openDir(path, resolved)
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	if err := r.protect.checkDir(path, sub); err != nil {
		return nil, err
	}
	f, err := sub.Open(".")
	if err != nil {
		return nil, r.changed(path, err)
	}
	return &Dir{f: f, path: resolved}, nil
}

// Path is the directory's resolved name, as it was checked: for messages and $PWD.
func (d *Dir) Path() string { return d.path }

// Close closes the directory.
func (d *Dir) Close() error { return d.f.Close() }

// NotDirError reports a path that is not a directory where one is needed.
type NotDirError struct {
	Path   string
	Parent bool // it, or one of its parents, is not a directory
}

func (e *NotDirError) Error() string {
	if e.Parent {
		return e.Path + ", or one of its parents, is not a directory"
	}
	return e.Path + " is not a directory"
}

// Tree is a directory inside the roots opened for listing and reading what is under it:
// every name is opened through it, so nothing under a symlink swapped in can be reached.
type Tree struct {
	root *os.Root
	path string
}

// OpenTree opens the directory path inside the roots. Close it when done.
func (r *Roots) OpenTree(path string) (*Tree, error) {
	resolved, err := r.Resolve(path)
	if err != nil {
		return nil, err
	}
	sub, err := r.openDir(path, resolved)
	if err != nil {
		return nil, err
	}
	return &Tree{root: sub, path: resolved}, nil
}

// Path is the tree's resolved name.
func (t *Tree) Path() string { return t.path }

// Sub opens the directory rel (slash-separated, relative to the tree) as a tree of its
// own, through the tree: what walks many files of one directory opens it once, then names
// each file in one step. Close it when done.
func (t *Tree) Sub(rel string) (*Tree, error) {
	if rel == "." || rel == "" {
		sub, err := t.root.OpenRoot(".")
		if err != nil {
			return nil, err
		}
		return &Tree{root: sub, path: t.path}, nil
	}
	sub, err := t.root.OpenRoot(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	return &Tree{root: sub, path: filepath.Join(t.path, filepath.FromSlash(rel))}, nil
}

// Close closes the tree.
func (t *Tree) Close() error { return t.root.Close() }

// FS is the tree as an fs.FS (with ReadDir and Stat), for fs.WalkDir. Its opens never
// block: a FIFO swapped in for a directory is an error, not a hang.
func (t *Tree) FS() fs.FS { return treeFS{t.root} }

// ReadFile reads the regular file rel (slash-separated, relative to the tree), refusing
// what Roots.Open refuses and anything larger than limit.
func (t *Tree) ReadFile(rel string, limit int64) ([]byte, error) {
	f, err := t.root.OpenFile(rel, readFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkReadable(rel, f); err != nil {
		return nil, err
	}
	return readLimited(rel, f, limit)
}

type treeFS struct{ root *os.Root }

func (t treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return t.root.OpenFile(name, readFlags, 0)
}

func (t treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	f, err := t.root.OpenFile(name, dirFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if err != nil {
		return entries, fmt.Errorf("listing %s: %w", name, err)
	}
	return entries, nil
}

func (t treeFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return t.root.Lstat(name)
}
