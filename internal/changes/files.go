package changes

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
)

// fileStat is what is compared to tell whether a file changed without reading it.
type fileStat struct {
	size         int64
	mtime, ctime int64 // Unix nanoseconds
	inode        uint64
	mode         uint32
	links        uint64
}

func (s fileStat) sig() string { return store.FormatSig(s.size, s.mtime, s.ctime, s.inode) }

func (s fileStat) same(o fileStat) bool {
	return s.size == o.size && s.mtime == o.mtime && s.ctime == o.ctime && s.inode == o.inode && s.mode == o.mode
}

// State is a file as Files found it.
type State struct {
	Exists bool
	// Content is the file's content; nil when it is larger than the limit it was read
	// with (Large).
	Content []byte
	Large   bool
	Size    int64
	// Linked: the file has other names (hard links), which may be outside the workspace:
	// its content is hashed, never kept (an undo must not copy it to a name an agent may
	// read).
	Linked bool
	stat   fileStat // zero when Files cannot tell
}

// Files is how the record reads what a file holds now and how an undo writes. The record
// of a conversation uses the workspace's confined access (RootsFiles); parley's own
// agent passes the access its tools use (the client's fs/* where offered).
type Files interface {
	// Read returns the file's state: Exists false when there is no file. It reads at
	// most limit bytes of content (a larger file is Large).
	Read(ctx context.Context, path string, limit int64) (State, error)
	// Write replaces the file's content, creating it (and its missing directories).
	Write(ctx context.Context, path string, content []byte) error
	// Remove deletes the file.
	Remove(ctx context.Context, path string) error
}

// modeFiles is Files that can also set a file's permission bits: the workspace's own
// access can; an editor's fs/* cannot (and tells no mode, so none is recorded).
type modeFiles interface {
	Chmod(ctx context.Context, path string, mode fs.FileMode) error
}

// RootsFiles is Files through the workspace's confined access: every read and write goes
// through an os.Root at a workspace root, so a directory swapped for a symlink since the
// turn cannot lead an undo outside the workspace.
func RootsFiles(roots *workspace.Roots) Files { return rootsFiles{roots} }

type rootsFiles struct{ roots *workspace.Roots }

func (r rootsFiles) Read(ctx context.Context, path string, limit int64) (State, error) {
	tree, err := r.roots.OpenTree(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, err
	}
	defer tree.Close()
	return readIn(tree.FS(), filepath.Base(path), path, limit)
}

func (r rootsFiles) Write(ctx context.Context, path string, content []byte) error {
	return r.roots.WriteFile(path, content)
}

func (r rootsFiles) Remove(ctx context.Context, path string) error { return r.roots.Remove(path) }

func (r rootsFiles) Chmod(ctx context.Context, path string, mode fs.FileMode) error {
	return r.roots.Chmod(path, mode)
}

// readIn reads name in dir (an fs of a workspace.Tree, which opens without following a
// link out of it and without blocking): a symbolic link or anything else that is not a
// regular file is an error, not a state.
func readIn(dir fs.FS, name, display string, limit int64) (State, error) {
	info, err := fs.Stat(dir, name) // the tree's Stat does not follow a final symlink
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, err
	}
	if !info.Mode().IsRegular() {
		return State{}, fmt.Errorf("%s is not a regular file (%s)", display, info.Mode().Type())
	}
	f, err := dir.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, err
	}
	defer f.Close()
	info, err = f.Stat() // what was opened: its state goes with the content read
	if err != nil {
		return State{}, err
	}
	if !info.Mode().IsRegular() {
		return State{}, fmt.Errorf("%s is not a regular file (%s)", display, info.Mode().Type())
	}
	st := statOf(info)
	s := State{Exists: true, Size: info.Size(), Linked: st.links > 1, stat: st}
	if info.Size() > limit {
		s.Large = true
		return s, nil
	}
	content, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return State{}, fmt.Errorf("reading %s: %w", display, err)
	}
	if int64(len(content)) > limit { // it grew meanwhile
		s.Large = true
		return s, nil
	}
	s.Content, s.Size = content, int64(len(content))
	return s, nil
}

// A version is one side of a change: what a file was before a turn, or after it.
type version struct {
	kind string // kindNone, kindText, kindBinary, kindLarge
	hash string // "" for none and large
	size int64
	sig  string
	mode uint32 // permission bits; 0: not known (Files that tell none, records made before modes were)
}

const (
	kindNone   = "none"
	kindText   = "text"
	kindBinary = "binary"
	kindLarge  = "large"
)

var none = version{kind: kindNone}

func (v version) exists() bool { return v.kind != kindNone && v.kind != "" }

// same reports whether two versions are the same file: the same content (by hash when
// both were read, else by size, times and inode: a file too large to read on one side)
// and the same permission bits where both sides know them (`chmod +x` alone is a change).
func (v version) same(o version) bool {
	return v.sameContent(o) && v.sameMode(o)
}

func (v version) sameContent(o version) bool {
	if !v.exists() || !o.exists() {
		return v.exists() == o.exists()
	}
	if v.hash != "" && o.hash != "" {
		return v.hash == o.hash
	}
	return v.sig != "" && v.sig == o.sig
}

func (v version) sameMode(o version) bool {
	return !v.exists() || !o.exists() || v.mode == 0 || o.mode == 0 || v.mode == o.mode
}

func (v version) stored() store.ChangeVersion {
	return store.ChangeVersion{Kind: v.kind, Hash: v.hash, Size: v.size, Sig: v.sig, Mode: v.mode}
}

func versionOf(s store.ChangeVersion) version {
	return version{kind: s.Kind, hash: s.Hash, size: s.Size, sig: s.Sig, mode: s.Mode}
}

// permOf is the permission bits a snapshot records of a file's mode (as fs.FileMode
// stores them): what an undo restores.
func permOf(mode uint32) uint32 { return uint32(fs.FileMode(mode).Perm()) }

// versionOfState is the version of what Files read, with its content when the record
// may keep it.
func versionOfState(s State) (version, []byte) {
	if !s.Exists {
		return none, nil
	}
	v := version{size: s.Size}
	if s.stat != (fileStat{}) {
		v.sig = s.stat.sig()
		v.mode = permOf(s.stat.mode)
	}
	if s.Large || s.Content == nil && s.Size > 0 {
		v.kind = kindLarge
		return v, nil
	}
	v.hash = hashOf(s.Content)
	v.kind = kindText
	if isBinary(s.Content) {
		v.kind = kindBinary
	}
	return v, s.Content
}

func hashOf(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// isBinary is git's test: a NUL byte in the first 8000 bytes.
func isBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), 8000)], 0) >= 0
}
