package changes

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/workspace"
)

// The files inside .git that make git run a program are followed although .git is not:
// an agent that writes a hook, or core.fsmonitor into .git/config, has the user's next
// `git status` run its code, outside any turn and any permission. Their changes are
// listed, and flagged (Change.RunsCode).

// maxGitConfig bounds a git configuration file read to find core.hooksPath.
const maxGitConfig = 1 << 20

// gitControlFiles are the files that make git run code in the repositories of the tree
// (its own .git directory, and those of the repositories inside it, repos), relative to
// the tree: their configuration, attributes and excludes, their hooks (not the
// .sample ones git never runs), and the hooks of the directory core.hooksPath names when
// it is inside the tree.
func gitControlFiles(tree *workspace.Tree, repos []string) []string {
	var out []string
	for _, wt := range append([]string{"."}, repos...) {
		gd := path.Join(wt, ".git")
		if info, err := fs.Stat(tree.FS(), gd); err != nil || !info.IsDir() {
			continue // none, or a worktree's or submodule's .git file: its directory is elsewhere
		}
		for _, name := range []string{"config", "config.worktree", "info/attributes", "info/exclude"} {
			out = append(out, path.Join(gd, name))
		}
		out = append(out, hookFiles(tree, path.Join(gd, "hooks"))...)
		config, _ := tree.ReadFile(path.Join(gd, "config"), maxGitConfig)
		for _, hp := range hooksPaths(config, tree.Path(), wt) {
			if hp != path.Join(gd, "hooks") {
				out = append(out, hookFiles(tree, hp)...)
			}
		}
	}
	return out
}

// hookFiles are the files of a hooks directory git would run.
func hookFiles(tree *workspace.Tree, dir string) []string {
	entries, err := fs.ReadDir(tree.FS(), dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".sample") {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}

// hooksPaths are the directories core.hooksPath names in config, relative to the tree
// (root, its path) and inside it; wt is the work tree's directory in the tree, which a
// relative hooksPath is relative to.
func hooksPaths(config []byte, root, wt string) []string {
	var out []string
	for _, v := range gitConfig(config)["core.hookspath"] {
		if v == "" {
			continue
		}
		var rel string
		if filepath.IsAbs(v) {
			r, err := filepath.Rel(root, v)
			if err != nil {
				continue
			}
			rel = filepath.ToSlash(r)
		} else {
			rel = path.Join(wt, filepath.ToSlash(v))
		}
		rel = path.Clean(rel)
		if rel != ".." && !strings.HasPrefix(rel, "../") && !path.IsAbs(rel) {
			out = append(out, rel)
		}
	}
	return out
}

// gitConfig reads a git configuration file well enough to find its keys: each key
// (section.subsection.name, section and name in lower case) with its values in order. A
// value continued on the next line is cut there.
func gitConfig(data []byte) map[string][]string {
	out := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxGitConfig)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			inner := strings.TrimSpace(line[1:end])
			if name, sub, ok := strings.Cut(inner, " "); ok {
				section = strings.ToLower(name) + "." + strings.Trim(strings.TrimSpace(sub), `"`)
			} else {
				section = strings.ToLower(inner) // [section] or the old [section.subsection]
			}
			line = strings.TrimSpace(line[end+1:]) // a key may follow on the same line
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		key, value, _ := strings.Cut(line, "=")
		key = section + "." + strings.ToLower(strings.TrimSpace(key))
		out[key] = append(out[key], strings.Trim(strings.TrimSpace(value), `"`))
	}
	return out
}

// runsCodeKey reports whether a configuration key names a program git (or a command it
// runs, such as ssh, a pager, an editor) would start.
func runsCodeKey(key string) bool {
	k := strings.ToLower(key)
	switch k {
	case "core.fsmonitor", "core.pager", "core.editor", "core.sshcommand", "core.askpass", "core.hookspath",
		"core.gitproxy", "core.alternaterefscommand", "sequence.editor", "gpg.program",
		"diff.external", "credential.helper", "uploadpack.packobjectshook", "include.path", "web.browser",
		"interactive.difffilter", "sendemail.smtpserver", "sendemail.tocmd", "sendemail.cccmd", "sendemail.sendmailcmd":
		return true
	}
	section, rest, _ := strings.Cut(k, ".")
	name := rest[strings.LastIndexByte(rest, '.')+1:]
	sub := strings.Contains(rest, ".")
	switch section {
	case "alias", "pager":
		return true
	case "filter":
		return sub && (name == "clean" || name == "smudge" || name == "process")
	case "diff":
		return sub && (name == "textconv" || name == "command")
	case "merge":
		return sub && name == "driver"
	case "includeif":
		return sub && name == "path"
	case "credential":
		return name == "helper"
	case "gpg":
		return name == "program"
	case "remote":
		return sub && (name == "uploadpack" || name == "receivepack" || name == "vcs")
	case "difftool", "mergetool", "man", "browser":
		return sub && (name == "cmd" || name == "path")
	}
	return false
}

// configRunsCode lists the keys of after that name a program and that before did not
// have with the same values.
func configRunsCode(before, after []byte) []string {
	b, a := gitConfig(before), gitConfig(after)
	var keys []string
	for k, vs := range a {
		if runsCodeKey(k) && !slices.Equal(vs, b[k]) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// attributesRunCode lists the lines of after that give files a filter, diff or merge
// driver (which git runs when it reads or writes them) and that before did not have.
func attributesRunCode(before, after []byte) []string {
	old := map[string]bool{}
	for _, l := range driverLines(before) {
		old[l] = true
	}
	var out []string
	for _, l := range driverLines(after) {
		if !old[l] {
			out = append(out, l)
		}
	}
	return out
}

func driverLines(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxGitConfig)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		for _, f := range strings.Fields(line)[1:] {
			if strings.HasPrefix(f, "filter=") || strings.HasPrefix(f, "diff=") || strings.HasPrefix(f, "merge=") {
				out = append(out, strings.Join(strings.Fields(line), " "))
				break
			}
		}
	}
	return out
}

// flagRunsCode says, for each change of the turn that makes git run a program, how.
func (r *Record) flagRunsCode(ctx context.Context, t *Turn) {
	var hookDirs []string // slash-separated, absolute: core.hooksPath as the configuration says now
	hooksRead := false
	for i := range t.Changes {
		c := &t.Changes[i]
		if !c.After.Exists {
			continue // a deletion runs nothing
		}
		p := filepath.ToSlash(c.Path)
		dir, base := path.Split(p)
		switch {
		case strings.HasSuffix(dir, "/.git/hooks/") && !strings.HasSuffix(base, ".sample"):
			c.RunsCode = "a git hook: git runs it"
		case strings.HasSuffix(p, "/.git/config") || strings.HasSuffix(p, "/.git/config.worktree"):
			before, after, ok := r.sides(ctx, *c)
			if !ok {
				c.RunsCode = "git's configuration changed, and what it holds is not kept: look at it before running git"
			} else if keys := configRunsCode(before, after); len(keys) > 0 {
				c.RunsCode = "sets " + strings.Join(keys, ", ")
			}
		case strings.HasSuffix(p, "/.git/info/attributes") || base == ".gitattributes":
			before, after, ok := r.sides(ctx, *c)
			if !ok {
				c.RunsCode = "attributes changed, and what they hold is not kept: look for filter and diff drivers"
			} else if lines := attributesRunCode(before, after); len(lines) > 0 {
				c.RunsCode = "gives files a filter or diff driver: " + strings.Join(lines, "; ")
			}
		default:
			if !hooksRead {
				hookDirs, hooksRead = r.hookDirs(ctx, *t), true
			}
			for _, d := range hookDirs {
				if dir == d+"/" {
					c.RunsCode = "a git hook (core.hooksPath): git runs it"
				}
			}
		}
	}
}

// sides returns the content of both sides of a change, when kept.
func (r *Record) sides(ctx context.Context, c Change) (before, after []byte, ok bool) {
	before, ok1 := r.content(ctx, versionOf(storedOf(c.Before)))
	after, ok2 := r.content(ctx, versionOf(storedOf(c.After)))
	return before, after, ok1 && ok2
}

// hookDirs are the directories core.hooksPath names in the workspace's repository: in
// its configuration now, and as the turn left it.
func (r *Record) hookDirs(ctx context.Context, t Turn) []string {
	root := r.roots.Dirs()[0]
	config := filepath.Join(root, ".git", "config")
	var configs [][]byte
	if s, err := r.files.Read(ctx, config, maxGitConfig); err == nil && s.Content != nil {
		configs = append(configs, s.Content)
	}
	if c, ok := t.Change(config); ok {
		if after, ok := r.content(ctx, versionOf(storedOf(c.After))); ok {
			configs = append(configs, after)
		}
	}
	var out []string
	for _, data := range configs {
		for _, rel := range hooksPaths(data, root, ".") {
			out = append(out, path.Join(filepath.ToSlash(root), rel))
		}
	}
	return out
}
