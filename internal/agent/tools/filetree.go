package tools

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/parley-acp/parley/internal/workspace"
)

// treeFile is a file list_files and search_workspace see, its path relative to the
// directory they were asked about, with slashes.
type treeFile struct {
	rel     string
	symlink bool // must be confined before it is opened
}

// listTree lists the files under tree that git would not ignore. Inside a git work tree git
// itself answers (`git ls-files -co --exclude-standard`: tracked and untracked, honouring
// every ignore source); elsewhere a walk honours the .gitignore files from base (the
// workspace root holding the tree) down. .git is always skipped. Everything is looked at
// through the tree, so nothing outside it is listed, whatever is swapped in meanwhile.
func listTree(ctx context.Context, s *Session, base string, tree *workspace.Tree) ([]treeFile, error) {
	if files, ok := gitListTree(ctx, tree); ok {
		return files, nil
	}
	return walkTree(ctx, s, base, tree)
}

func gitListTree(ctx context.Context, tree *workspace.Tree) ([]treeFile, bool) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, false
	}
	cmd := exec.CommandContext(ctx, git, append(gitReadOnly(tree.Path()), "ls-files", "-co", "--exclude-standard", "-z")...)
	cmd.Env = gitEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, false // not a work tree (or a broken one): walk instead
	}
	var files []treeFile
	seen := map[string]bool{}
	for rel := range bytes.SplitSeq(out, []byte{0}) {
		if len(rel) == 0 || seen[string(rel)] {
			continue // -co lists a modified tracked file twice... only with -m, but be safe
		}
		seen[string(rel)] = true
		info, err := fs.Stat(tree.FS(), string(rel)) // the tree's Stat does not follow a final symlink
		if err != nil || info.IsDir() {
			continue // deleted in the work tree, a submodule, or not really under the tree
		}
		files = append(files, treeFile{rel: string(rel), symlink: info.Mode()&fs.ModeSymlink != 0})
	}
	return files, true
}

// gitReadOnly is how the read-only tools start git in dir: nothing the workspace
// configures may run a program. A checkout's .git/config (or a file it includes) can
// name a program for core.fsmonitor, which `git ls-files` runs on every call; options
// given on the command line outrank every configuration file, so these turn it off.
// Hooks are pointed at nothing as well (ls-files runs none today), and git never pages.
func gitReadOnly(dir string) []string {
	return []string{"--no-pager", "-C", dir, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"}
}

// gitEnv is the environment of those git runs: the agent's own, without the variables
// that would point git at another repository or index, and without optional locks (a
// listing must not block the user's own git).
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0")
}

// maxIgnoreFile bounds a .gitignore file read.
const maxIgnoreFile = 1 << 20

func walkTree(ctx context.Context, s *Session, base string, tree *workspace.Tree) ([]treeFile, error) {
	dir := tree.Path()
	var patterns []gitignore.Pattern
	prefix := "" // dir relative to base, with a slash, for the patterns
	if rel, err := filepath.Rel(base, dir); err == nil && !strings.HasPrefix(rel, "..") {
		// .gitignore files of dir's ancestors inside the workspace apply too.
		d := base
		for _, part := range append([]string{""}, splitPath(rel)...) {
			d = filepath.Join(d, part)
			if d != dir {
				data, _ := s.Roots.ReadFile(filepath.Join(d, ".gitignore"), maxIgnoreFile)
				patterns = append(patterns, parseIgnore(data, base, d)...)
			}
		}
		if rel != "." {
			prefix = filepath.ToSlash(rel) + "/"
		}
	} else {
		base = dir
	}
	var files []treeFile
	err := fs.WalkDir(tree.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // unreadable: skip it
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p != "." {
			if d.Name() == ".git" {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if len(patterns) > 0 && gitignore.NewMatcher(patterns).Match(splitPath(prefix+p), d.IsDir()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() {
			data, _ := tree.ReadFile(path.Join(p, ".gitignore"), maxIgnoreFile)
			patterns = append(patterns, parseIgnore(data, base, filepath.Join(dir, filepath.FromSlash(p)))...)
			return nil
		}
		files = append(files, treeFile{rel: p, symlink: d.Type()&fs.ModeSymlink != 0})
		return nil
	})
	return files, err
}

// parseIgnore parses the content of dir/.gitignore with patterns scoped to dir (relative
// to base).
func parseIgnore(data []byte, base, dir string) []gitignore.Pattern {
	if len(data) == 0 {
		return nil
	}
	rel, _ := filepath.Rel(base, dir)
	domain := splitPath(rel)
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

func splitPath(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}
