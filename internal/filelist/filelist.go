// Package filelist lists the files of a directory that git would not ignore: what parley's
// agent lists and searches, and what the record of changes (internal/changes) follows.
// Inside a git work tree git itself answers (`git ls-files -co --exclude-standard`:
// tracked and untracked files, honouring every ignore source: .gitignore files,
// .git/info/exclude, core.excludesFile); elsewhere a walk honours the .gitignore files from
// the workspace root down (go-git's matcher). .git is always skipped. Everything is looked
// at through a workspace.Tree, so nothing outside it is listed, whatever is swapped in
// meanwhile.
package filelist

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

// File is a file of the tree.
type File struct {
	Rel     string      // relative to the tree, with slashes
	Symlink bool        // a symbolic link: confine it before opening it
	Info    fs.FileInfo // as Lstat saw it while listing
}

// List lists the files under tree that git would not ignore (directories are not listed).
// base is the workspace root that holds the tree: outside a git work tree, the .gitignore
// files of the tree's ancestors from base down apply too (read through roots).
func List(ctx context.Context, roots *workspace.Roots, base string, tree *workspace.Tree) ([]File, error) {
	l, err := ListAll(ctx, roots, base, tree, Options{})
	return l.Files, err
}

// Options ask ListAll for more than the files.
type Options struct {
	// Ignored: list what the rules ignore too (Listing.Ignored).
	Ignored bool
	// Rules: keep the rules in force (Listing.Rules).
	Rules bool
}

// Listing is what ListAll found under a tree.
type Listing struct {
	Files []File
	// Repos are the directories git does not look into, other repositories (a nested
	// `git init`, a submodule): slash-separated, relative to the tree. Their files are not
	// in Files.
	Repos []string
	// Ignored (with Options.Ignored) are the files the rules ignore, and the directories
	// they ignore whole (with a final slash: what is under them is not listed).
	Ignored []string
	// Rules (with Options.Rules) are the ignore rules in force; nil when they could not
	// be read.
	Rules *Rules
}

// ListAll is List with the repositories inside the tree, and what opts asks for.
func ListAll(ctx context.Context, roots *workspace.Roots, base string, tree *workspace.Tree, opts Options) (Listing, error) {
	if l, ok := gitList(ctx, tree, opts); ok {
		return l, nil
	}
	return walk(ctx, roots, base, tree, opts)
}

func gitList(ctx context.Context, tree *workspace.Tree, opts Options) (Listing, bool) {
	if !InWorkTree(tree.Path()) {
		return Listing{}, false // starting git only to hear "not a git repository" costs milliseconds a snapshot
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return Listing{}, false
	}
	// What is ignored is a second walk of git's: it runs beside the first (the other
	// core), which costs its time only once.
	var ignored []byte
	var ignoredErr error
	done := make(chan struct{})
	if opts.Ignored {
		go func() {
			defer close(done)
			cmd := exec.CommandContext(ctx, git, append(GitReadOnly(tree.Path()), "ls-files", "-oi", "--exclude-standard", "--directory", "-z")...)
			cmd.Env = GitEnv()
			ignored, ignoredErr = cmd.Output()
		}()
	} else {
		close(done)
	}
	cmd := exec.CommandContext(ctx, git, append(GitReadOnly(tree.Path()), "ls-files", "-co", "--exclude-standard", "-z")...)
	cmd.Env = GitEnv()
	out, err := cmd.Output()
	<-done
	if err != nil || ignoredErr != nil {
		return Listing{}, false // not a work tree (or a broken one): walk instead
	}
	var l Listing
	var ignoreFiles []string
	for b := range bytes.SplitSeq(ignored, []byte{0}) {
		if len(b) > 0 {
			l.Ignored = append(l.Ignored, string(b))
			if path.Base(string(b)) == ".gitignore" {
				ignoreFiles = append(ignoreFiles, string(b)) // ignored itself, it applies all the same
			}
		}
	}
	seen := map[string]bool{}
	// Each directory is opened once (through the tree), and its files looked at in one
	// step each: git lists a directory's files together.
	var dir *workspace.Tree
	dirName := ""
	defer func() {
		if dir != nil {
			dir.Close()
		}
	}()
	for b := range bytes.SplitSeq(out, []byte{0}) {
		rel := string(b)
		if len(rel) == 0 || seen[rel] {
			continue // a tracked file with conflicts is listed once per stage
		}
		seen[rel] = true
		if strings.HasSuffix(rel, "/") { // a repository of its own: git does not look in
			l.Repos = append(l.Repos, strings.TrimSuffix(rel, "/"))
			continue
		}
		if d := path.Dir(rel); d != dirName || dir == nil {
			if dir != nil {
				dir.Close()
			}
			dirName = d
			if dir, err = tree.Sub(d); err != nil {
				dir = nil
				continue // gone meanwhile, or not a directory
			}
		}
		info, err := fs.Stat(dir.FS(), path.Base(rel)) // the tree's Stat does not follow a final symlink
		if err != nil {
			continue // deleted in the work tree, or not really under the tree
		}
		if info.IsDir() {
			l.Repos = append(l.Repos, rel) // a submodule
			continue
		}
		if path.Base(rel) == ".gitignore" {
			ignoreFiles = append(ignoreFiles, rel)
		}
		l.Files = append(l.Files, File{Rel: rel, Symlink: info.Mode()&fs.ModeSymlink != 0, Info: info})
	}
	if opts.Rules {
		l.Rules = gitRules(ctx, tree, ignoreFiles)
	}
	return l, true
}

// GitReadOnly is how parley starts git to read a work tree in dir: nothing the workspace
// configures may run a program. A checkout's .git/config (or a file it includes) can name
// a program for core.fsmonitor, which `git ls-files` runs on every call; options given on
// the command line outrank every configuration file, so these turn it off. Hooks are
// pointed at nothing as well (ls-files runs none today), and git never pages.
func GitReadOnly(dir string) []string {
	return []string{"--no-pager", "-C", dir, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"}
}

// GitEnv is the environment of those git runs: parley's own, without the variables that
// would point git at another repository or index, and without optional locks (a listing
// must not block the user's own git, nor rewrite their index).
func GitEnv() []string {
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

func walk(ctx context.Context, roots *workspace.Roots, base string, tree *workspace.Tree, opts Options) (Listing, error) {
	dir := tree.Path()
	var patterns []gitignore.Pattern
	var ancestorIgnores []string // the .gitignore files read above dir
	prefix := ""                 // dir relative to base, with a slash, for the patterns
	if rel, err := filepath.Rel(base, dir); err == nil && !strings.HasPrefix(rel, "..") {
		// .gitignore files of dir's ancestors inside the workspace apply too.
		d := base
		for _, part := range append([]string{""}, splitPath(rel)...) {
			d = filepath.Join(d, part)
			if d != dir {
				ancestorIgnores = append(ancestorIgnores, filepath.Join(d, ".gitignore"))
				data, _ := roots.ReadFile(filepath.Join(d, ".gitignore"), maxIgnoreFile)
				patterns = append(patterns, parseIgnore(data, base, d)...)
			}
		}
		if rel != "." {
			prefix = filepath.ToSlash(rel) + "/"
		}
	} else {
		base = dir
	}
	var l Listing
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
					if opts.Ignored {
						l.Ignored = append(l.Ignored, p+"/")
					}
					return filepath.SkipDir
				}
				if opts.Ignored {
					l.Ignored = append(l.Ignored, p)
				}
				return nil
			}
		}
		if d.IsDir() {
			data, _ := tree.ReadFile(path.Join(p, ".gitignore"), maxIgnoreFile)
			patterns = append(patterns, parseIgnore(data, base, filepath.Join(dir, filepath.FromSlash(p)))...)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // gone meanwhile
		}
		l.Files = append(l.Files, File{Rel: p, Symlink: d.Type()&fs.ModeSymlink != 0, Info: info})
		return nil
	})
	if opts.Rules {
		l.Rules = &Rules{prefix: splitPath(strings.TrimSuffix(prefix, "/")), ps: patterns}
	}
	return l, err
}

// parseIgnore parses the content of dir/.gitignore with patterns scoped to dir (relative
// to base).
func parseIgnore(data []byte, base, dir string) []gitignore.Pattern {
	if len(data) == 0 {
		return nil
	}
	rel, _ := filepath.Rel(base, dir)
	return parseIgnoreIn(data, splitPath(rel))
}

// parseIgnoreIn parses ignore patterns scoped to domain (nil: everywhere).
func parseIgnoreIn(data []byte, domain []string) []gitignore.Pattern {
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

// InWorkTree reports whether dir may be in a git work tree: it or one of its ancestors
// holds a .git (a directory, or the file of a worktree or submodule). Git decides the
// rest (a bare repository, GIT_DIR); without a .git it would only say no.
func InWorkTree(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return os.Getenv("GIT_DIR") != ""
		}
		dir = parent
	}
}
