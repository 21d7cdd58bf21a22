package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/parley-acp/parley/internal/xdg"
)

// parley's own directories (configuration, data, state) are never written through a
// workspace, nor used as a command's working directory, whatever the workspace: an agent
// working in $HOME must not grant itself permissions by rewriting parley's configuration.
// Reading them is allowed.
//
// They are recognised twice: by name, on the resolved path (which catches a directory that
// does not exist yet), and by identity, on the directory actually opened and each of its
// ancestors (which catches a symlink swapped in after the name was checked, and the
// directory itself renamed into the workspace).

// fileID is a file's identity: its device and inode on Unix, its volume serial number and
// file index on Windows (identity_*.go).
type fileID struct{ dev, ino uint64 }

type protectedDir struct {
	path string // resolved
	id   fileID // when it existed at NewRoots
	ok   bool
}

type protection []protectedDir

// parleyDirs returns parley's directories as this process sees them.
func parleyDirs() protection {
	var p protection
	for _, d := range xdg.OwnDirs() {
		resolved, err := resolveMissing(filepath.Clean(d), 0)
		if err != nil {
			resolved = filepath.Clean(d)
		}
		pd := protectedDir{path: resolved}
		pd.id, pd.ok = idOfPath(resolved)
		p = append(p, pd)
	}
	return p
}

// checkName refuses a resolved path inside one of the directories.
func (p protection) checkName(path, resolved string) error {
	for _, d := range p {
		if pathWithin(d.path, resolved, filepath.Separator, protectFoldsCase) {
			return &ProtectedError{Path: path, Dir: d.path}
		}
	}
	return nil
}

// protectFoldsCase: on the file systems macOS and Windows create by default, a name in
// another case is the same file. Ignoring case only refuses more; the identity check
// below catches a directory in a case-sensitive file system anyway.
const protectFoldsCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// checkDir refuses an opened directory that is one of the directories or lies below one.
func (p protection) checkDir(path string, dir *os.Root) error {
	if len(p) == 0 {
		return nil
	}
	ids := map[fileID]string{}
	for _, d := range p {
		if d.ok {
			ids[d.id] = d.path
		}
		if id, ok := idOfPath(d.path); ok { // it may have been created since
			ids[id] = d.path
		}
	}
	if len(ids) == 0 {
		return nil
	}
	f, err := dir.Open(".") // the very directory dir holds, not a name looked up again
	if err != nil {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	defer f.Close()
	holder, err := ancestorIn(f, ids)
	if err != nil {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	if holder != "" {
		return &ProtectedError{Path: path, Dir: holder}
	}
	return nil
}

// within reports whether the clean absolute path p is dir or below it (whole components:
// /srv/ab is not inside /srv/a). On Windows, case is ignored, as Windows ignores it (and
// filepath.Rel, which turns the path into one relative to its root, ignores it too).
func within(dir, p string) bool {
	return pathWithin(dir, p, filepath.Separator, runtime.GOOS == "windows")
}

// ProtectedError reports a write to, or a command started in, one of parley's own
// directories.
type ProtectedError struct {
	Path string
	Dir  string // the protected directory
}

func (e *ProtectedError) Error() string {
	return fmt.Sprintf("%s is in parley's own directory %s, which agents may not change or run commands in", e.Path, e.Dir)
}
