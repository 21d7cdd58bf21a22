// Package workspace is parley's one confinement of file access: whether a path an agent or
// a model names lies inside a session's workspace roots, and the only way to read, write,
// list, or start a command in what it names. The ACP client host uses it for fs/* and
// terminal/create, the coding agent's tools for every path they touch.
//
// A path is accepted only when it is absolute and, once `..` is cleaned away and every
// symlink in it is resolved (intermediate ones, chains, and a dangling final one), it lies
// inside one of the roots. On Windows it must also mean what it says (winpath.go): device
// names (CON, NUL…), alternate data streams (file:stream), device and object namespaces
// and names Win32 would rewrite are refused, a verbatim \\?\C:\ path is taken in its plain
// form, and case is ignored when a path is compared with a root. The access methods (Open, ReadFile, WriteFile, Stat, Cwd,
// OpenTree) then reach it through an os.Root at that root, which refuses to leave the root
// at every step: a symlink swapped in after the check cannot lead outside. parley's own
// configuration, data and state directories are never written to nor used as a command's
// working directory, whatever the roots.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
)

// Roots is a session's workspace: the directories paths must stay inside. It is immutable
// and safe for concurrent use.
type Roots struct {
	dirs    []string // absolute, symlinks resolved, no duplicates, in the order given
	protect protection
	// windowsNames applies checkWindowsPath to every path: set where GOOS is windows (and
	// by tests elsewhere, to see that every access goes through it).
	windowsNames bool
}

// NewRoots checks dirs (absolute, existing directories) and resolves their symlinks, so that
// a symlinked root (macOS's /tmp, say) still contains the paths that resolve into it.
func NewRoots(dirs ...string) (*Roots, error) {
	if len(dirs) == 0 {
		return nil, errors.New("a workspace needs at least one root directory")
	}
	r := &Roots{protect: parleyDirs(), windowsNames: runtime.GOOS == "windows"}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("workspace root %q is not an absolute path", d)
		}
		resolved, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("workspace root %s: %w", d, err)
		}
		info, err := os.Stat(resolved)
		if err != nil {
			return nil, fmt.Errorf("workspace root %s: %w", d, err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("workspace root %s is not a directory", d)
		}
		if !slices.Contains(r.dirs, resolved) {
			r.dirs = append(r.dirs, resolved)
		}
	}
	return r, nil
}

// Dirs returns the roots, resolved, in the order given; the first is the session's cwd.
func (r *Roots) Dirs() []string { return append([]string(nil), r.dirs...) }

// Resolve returns the real path of an existing file or directory inside the roots. Errors:
// *RelativeError, *OutsideError, or one that matches fs.ErrNotExist. A missing path
// outside the roots is reported as outside: whether it exists is none of the caller's
// business.
func (r *Roots) Resolve(path string) (string, error) {
	clean, err := r.absolute(path)
	if err != nil {
		return "", err
	}
	resolved, evalErr := filepath.EvalSymlinks(clean)
	if evalErr == nil {
		return resolved, r.check(path, resolved)
	}
	lenient, err := resolveMissing(clean, 0)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	if err := r.check(path, lenient); err != nil {
		return "", err
	}
	if errors.Is(evalErr, fs.ErrNotExist) || errors.Is(evalErr, syscall.ENOTDIR) {
		return "", &notExistError{path: path, err: evalErr}
	}
	return "", fmt.Errorf("resolving %s: %w", path, evalErr)
}

// ResolveForWrite returns the real path a write to path would create or replace. The file
// and some of its parent directories may be missing: their nearest existing ancestor is
// resolved and the missing names appended, so the writer may create them (they are inside
// the roots). A final symlink is followed, dangling or not: a write goes where the link
// points, and that must be inside too.
func (r *Roots) ResolveForWrite(path string) (string, error) {
	clean, err := r.absolute(path)
	if err != nil {
		return "", err
	}
	resolved, err := resolveMissing(clean, 0)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	return resolved, r.check(path, resolved)
}

func (r *Roots) absolute(path string) (string, error) {
	plain := path
	if r.windowsNames {
		var err error
		if plain, err = checkWindowsPath(path); err != nil {
			return "", err
		}
	}
	if !filepath.IsAbs(plain) {
		return "", &RelativeError{Path: path, Roots: r.Dirs()}
	}
	clean := filepath.Clean(plain)
	if strings.IndexByte(clean, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte", path)
	}
	return clean, nil
}

func (r *Roots) check(path, resolved string) error {
	if r.contains(resolved) {
		return nil
	}
	return &OutsideError{Path: path, Resolved: resolved, Roots: r.Dirs()}
}

// contains reports whether resolved is one of the roots or below one. It compares whole
// components: /srv/ab is not inside /srv/a.
func (r *Roots) contains(resolved string) bool {
	return slices.ContainsFunc(r.dirs, func(d string) bool { return within(d, resolved) })
}

// maxLinks bounds the dangling symlinks resolveMissing follows by hand (Linux allows 40 in
// one lookup).
const maxLinks = 40

// resolveMissing is filepath.EvalSymlinks for a clean absolute path whose end may not
// exist: the nearest existing ancestor is resolved (following it by hand when it is a
// dangling symlink) and the missing names are appended. The result has no symlink in its
// existing part.
func resolveMissing(p string, links int) (string, error) {
	if resolved, err := filepath.EvalSymlinks(p); err == nil {
		return resolved, nil
	}
	existing, missing := p, []string(nil)
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return "", fmt.Errorf("no ancestor of %s exists", p)
		}
		missing = append(missing, filepath.Base(existing))
		existing = parent
	}
	base, err := filepath.EvalSymlinks(existing)
	if err != nil {
		// existing is there but does not resolve: a symlink whose chain ends nowhere.
		info, lerr := os.Lstat(existing)
		if lerr != nil || info.Mode()&fs.ModeSymlink == 0 {
			return "", err
		}
		if links >= maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", p)
		}
		target, err := os.Readlink(existing)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(existing))
			if err != nil {
				return "", err
			}
			target = filepath.Join(dir, target)
		}
		if base, err = resolveMissing(filepath.Clean(target), links+1); err != nil {
			return "", err
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		base = filepath.Join(base, missing[i])
	}
	return base, nil
}

// OutsideError reports a path that, resolved, lies outside every root.
type OutsideError struct {
	Path     string   // as given
	Resolved string   // after cleaning and resolving symlinks
	Roots    []string // the workspace roots
}

func (e *OutsideError) Error() string {
	msg := fmt.Sprintf("%s is outside the workspace (%s)", e.Path, strings.Join(e.Roots, ", "))
	if e.Resolved != filepath.Clean(e.Path) {
		msg += ": it resolves to " + e.Resolved
	}
	return msg
}

// RelativeError reports a relative path. It is never joined to a directory silently: which
// directory was meant is the caller's to say.
type RelativeError struct {
	Path  string
	Roots []string
}

func (e *RelativeError) Error() string {
	return fmt.Sprintf("%q is a relative path; give an absolute path inside the workspace (%s)", e.Path, strings.Join(e.Roots, ", "))
}

// notExistError reports a missing path inside the roots; it matches fs.ErrNotExist.
type notExistError struct {
	path string
	err  error
}

func (e *notExistError) Error() string {
	if errors.Is(e.err, syscall.ENOTDIR) {
		return e.path + ": a parent of it is not a directory"
	}
	return e.path + ": no such file or directory"
}

func (e *notExistError) Is(target error) bool { return target == fs.ErrNotExist }
func (e *notExistError) Unwrap() error        { return e.err }
