package tools

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// treeFile is a file list_files and search_workspace see, its path relative to the
// directory they were asked about, with slashes.
type treeFile struct {
	rel     string
	symlink bool // must be confined before it is opened
}

// listTree lists the files under dir that git would not ignore. Inside a git work tree git
// itself answers (`git ls-files -co --exclude-standard`: tracked and untracked, honouring
// every ignore source); elsewhere a walk honours the .gitignore files from base (the
// workspace root holding dir) down. .git is always skipped.
func listTree(ctx context.Context, base, dir string) ([]treeFile, error) {
	if files, ok := gitListTree(ctx, dir); ok {
		return files, nil
	}
	return walkTree(ctx, base, dir)
}

func gitListTree(ctx context.Context, dir string) ([]treeFile, bool) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, false
	}
	cmd := exec.CommandContext(ctx, git, append(gitReadOnly(dir), "ls-files", "-co", "--exclude-standard", "-z")...)
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
		info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(string(rel))))
		if err != nil || info.IsDir() {
			continue // deleted in the work tree, or a submodule
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

func walkTree(ctx context.Context, base, dir string) ([]treeFile, error) {
	var patterns []gitignore.Pattern
	if rel, err := filepath.Rel(base, dir); err == nil && !strings.HasPrefix(rel, "..") {
		// .gitignore files of dir's ancestors inside the workspace apply too.
		d := base
		for _, part := range append([]string{""}, splitPath(rel)...) {
			d = filepath.Join(d, part)
			if d != dir {
				patterns = append(patterns, readIgnore(base, d)...)
			}
		}
	} else {
		base = dir
	}
	var files []treeFile
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			return nil // unreadable: skip it
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if path != dir {
			if d.Name() == ".git" {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			rel, _ := filepath.Rel(base, path)
			if len(patterns) > 0 && gitignore.NewMatcher(patterns).Match(splitPath(rel), d.IsDir()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() {
			patterns = append(patterns, readIgnore(base, path)...)
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		files = append(files, treeFile{rel: filepath.ToSlash(rel), symlink: d.Type()&fs.ModeSymlink != 0})
		return nil
	})
	return files, err
}

// readIgnore parses dir/.gitignore with patterns scoped to dir (relative to base).
func readIgnore(base, dir string) []gitignore.Pattern {
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
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
