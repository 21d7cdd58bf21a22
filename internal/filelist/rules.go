package filelist

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/parley-acp/parley/internal/workspace"
)

// Rules are the ignore rules of a tree as they were when it was listed, kept to judge
// later which files they would have ignored: the record of changes (internal/changes)
// judges the files an agent's turn created by the rules in force when the turn began, so
// that a rule the agent adds during the turn (*.sh in .gitignore, .git/info/exclude,
// core.excludesFile) hides nothing from that turn's review.
type Rules struct {
	prefix []string // the tree relative to the directory the patterns are relative to
	ps     []gitignore.Pattern
	// inputs are the files outside the tree that the listing the rules came with depends
	// on (absolute; some may not exist): see Inputs.
	inputs []string
}

// Inputs are the files outside the listed tree whose content or presence decided the
// listing these rules came with, besides the tree's directories and their .gitignore
// files: git's index and configuration (the repository's, the user's, the system's), the
// repository's info/exclude, the excludes file, the .gitignore files above the tree, and
// a .git in each of the tree's ancestors (a `git init` above it). A caller that finds
// all of them, and the tree's directories, as they were when it listed can reuse the
// listing (internal/changes does). Nil for nil Rules.
func (r *Rules) Inputs() []string {
	if r == nil {
		return nil
	}
	return r.inputs
}

// Ignored reports whether the rules ignore rel (slash-separated, relative to the tree):
// a file, or a directory when dir. A nil Rules ignores nothing.
func (r *Rules) Ignored(rel string, dir bool) bool {
	if r == nil || len(r.ps) == 0 {
		return false
	}
	return gitignore.NewMatcher(r.ps).Match(append(slices.Clone(r.prefix), splitPath(rel)...), dir)
}

// With returns the rules with those of a .gitignore file in dir (relative to the tree)
// added, deeper than all the others.
func (r *Rules) With(dir string, gitignoreContent []byte) *Rules {
	out := &Rules{}
	if r != nil {
		out.prefix, out.ps = r.prefix, slices.Clone(r.ps)
	}
	domain := append(slices.Clone(out.prefix), splitPath(dir)...)
	out.ps = append(out.ps, parseIgnoreIn(gitignoreContent, domain)...)
	return out
}

// gitRules gathers the rules git applies in the work tree that holds tree, read as they
// are now: the excludes file (core.excludesFile, else git's default), the repository's
// info/exclude, and the .gitignore files from the top of the work tree down to the tree
// and, in it, those listed (ignore holds the .gitignore files the listing saw, relative
// to the tree). Files above the tree are read directly (git reads them too); those in it
// through the tree.
func gitRules(ctx context.Context, tree *workspace.Tree, ignoreFiles []string) *Rules {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, git, append(GitReadOnly(tree.Path()), "rev-parse", "--path-format=absolute",
		"--show-toplevel", "--git-path", "info/exclude", "--git-path", "index", "--git-path", "config",
		"--git-path", "config.worktree", "--show-prefix")...)
	cmd.Env = GitEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 5 {
		return nil
	}
	top, exclude := lines[0], lines[1]
	prefix := ""
	if len(lines) > 5 {
		prefix = strings.TrimSuffix(lines[5], "/")
	}
	excludes := excludesFile(ctx, git, tree.Path())
	inputs := append([]string{excludes, exclude, lines[2], lines[3], lines[4]}, gitConfigFiles()...)
	inputs = append(inputs, ancestorGits(tree.Path())...)
	var ps []gitignore.Pattern
	ps = append(ps, parseIgnoreIn(readOutside(excludes), nil)...)
	ps = append(ps, parseIgnoreIn(readOutside(exclude), nil)...)
	// The .gitignore files above the tree, from the top down.
	d := top
	for _, part := range append([]string{""}, splitPath(prefix)...) {
		d = filepath.Join(d, part)
		if d != filepath.Clean(tree.Path()) {
			inputs = append(inputs, filepath.Join(d, ".gitignore"))
			ps = append(ps, parseIgnore(readOutside(filepath.Join(d, ".gitignore")), top, d)...)
		}
	}
	// Those in the tree, shallower first: a deeper one has the last word.
	files := slices.Clone(ignoreFiles)
	slices.SortFunc(files, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	for _, rel := range files {
		data, _ := tree.ReadFile(rel, maxIgnoreFile)
		ps = append(ps, parseIgnoreIn(data, splitPath(path.Join(prefix, path.Dir(rel))))...)
	}
	return &Rules{prefix: splitPath(prefix), ps: ps, inputs: inputs}
}

// gitConfigFiles are the configuration files git reads besides the repository's: the
// user's and the system's (core.excludesFile may be set in any).
func gitConfigFiles() []string {
	var out []string
	for _, v := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		if f := os.Getenv(v); f != "" {
			out = append(out, f)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		out = append(out, filepath.Join(x, "git", "config"))
	}
	return append(out, "/etc/gitconfig")
}

// ancestorGits are the .git of dir's ancestors: one appearing there changes which work
// tree dir is in.
func ancestorGits(dir string) []string {
	var out []string
	for d := filepath.Dir(filepath.Clean(dir)); ; d = filepath.Dir(d) {
		out = append(out, filepath.Join(d, ".git"))
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// excludesFile is the file core.excludesFile names, or git's default for it.
func excludesFile(ctx context.Context, git, dir string) string {
	cmd := exec.CommandContext(ctx, git, append(GitReadOnly(dir), "config", "--path", "--get", "core.excludesFile")...)
	cmd.Env = GitEnv()
	if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		name := strings.TrimSpace(string(out))
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name) // as git opens it: from where it runs
		}
		return name
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "git", "ignore")
	}
	return ""
}

// readOutside reads an ignore file that may lie outside the workspace (the excludes file,
// the repository's, a .gitignore above the workspace): at most maxIgnoreFile bytes, and
// nothing when it is not a regular file.
func readOutside(name string) []byte {
	if name == "" {
		return nil
	}
	if info, err := os.Stat(name); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	return data
}
