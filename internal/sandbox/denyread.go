package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Landlock only grants: a process it confines reads what some rule lets it read, and
// nothing else. So "everything but ~/.ssh" is said as a rule for each of the entries
// beside the path that leads to ~/.ssh: readGrants walks from / down every path to a
// denied one and grants each entry it passes that is neither a denied path nor on the way
// to one. What the walk costs is one rule per entry of each directory on those ways (/,
// /home, the home directory, ~/.config, ~/.local/share…): a few hundred rules, opened
// and added at each start (see BenchmarkAgentStart).
//
// Two consequences, said to the user (Notes):
//   - a file or directory created later in a directory on the way (a new file in the
//     home directory, a new ~/.config/app) is not readable by the process until its next
//     start: no rule names it;
//   - listing stays allowed everywhere (one rule on / grants it, as Landlock's rights
//     hold for a whole tree): the names in ~/.ssh can be listed, not its files read.
//
// Symbolic links on the way are not granted: a rule on a link would grant what it
// points to, and wherever that is, it has a rule of its own unless it is denied.

// grant is one path readGrants lets be read (and run), and whether it is a directory.
type grant struct {
	path string
	dir  bool
}

// readGrants returns what to grant read on so that everything under top's entries but
// the denied paths can be read: the entries of top but skip (which the caller rules
// itself, like /dev), each walked down where it leads to a denied path.
func readGrants(top string, skip func(name string, typ fs.FileMode) bool, denied []string) ([]grant, error) {
	onWay := map[string]bool{} // directories strictly above a denied path
	isDenied := map[string]bool{}
	for _, d := range denied {
		d = resolveExisting(d, filepath.EvalSymlinks)
		isDenied[d] = true
		for dir := filepath.Dir(d); dir != "/" && dir != "."; dir = filepath.Dir(dir) {
			onWay[dir] = true
		}
	}
	var out []grant
	var walk func(dir string, skip func(string, fs.FileMode) bool) error
	walk = func(dir string, skip func(string, fs.FileMode) bool) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if dir != top && (os.IsNotExist(err) || os.IsPermission(err)) {
				return nil // gone since, or not ours to read: nothing to grant there
			}
			return err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			typ := e.Type()
			switch {
			case skip != nil && skip(e.Name(), typ):
			case typ&fs.ModeSymlink != 0: // its target has its own rule
			case isDenied[p]:
			case onWay[p] && typ.IsDir():
				if err := walk(p, nil); err != nil {
					return err
				}
			default:
				out = append(out, grant{path: p, dir: typ.IsDir()})
			}
		}
		return nil
	}
	return out, walk(top, skip)
}

// Within reports whether path is dir or inside it.
func Within(path, dir string) bool {
	path, dir = filepath.Clean(path), filepath.Clean(dir)
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// unenforceable are the denied paths a grant of write covers (a workspace in the home
// directory holds ~/.ssh): Landlock cannot take back what a rule grants.
func unenforceable(denied, write []string) []string {
	var out []string
	for _, d := range denied {
		if slices.ContainsFunc(write, func(w string) bool { return Within(d, w) }) {
			out = append(out, d)
		}
	}
	return out
}
