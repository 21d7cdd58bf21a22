package tui

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/sahilm/fuzzy"
)

// fileIndex is the list of the workspace's files that `@` completes: in a git work tree,
// what git itself lists (tracked and untracked, honouring every ignore rule); elsewhere a
// walk honouring the .gitignore files. It is built once, off the UI's goroutine.
type fileIndex struct {
	root  string
	files []string // slash-separated, relative to root
	err   error
}

// maxIndexedFiles bounds the index: a home directory must not cost minutes.
const maxIndexedFiles = 200_000

func buildFileIndex(ctx context.Context, root string) *fileIndex {
	idx := &fileIndex{root: root}
	if files, ok := gitFiles(ctx, root); ok {
		idx.files = files
		return idx
	}
	idx.files, idx.err = walkFiles(ctx, root)
	return idx
}

// gitFiles lists the work tree's files with git. Nothing the work tree configures may run
// a program: core.fsmonitor names one, and command-line options outrank every
// configuration file.
func gitFiles(ctx context.Context, root string) ([]string, bool) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, false
	}
	cmd := exec.CommandContext(ctx, git, "--no-pager", "-C", root, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"ls-files", "-co", "--exclude-standard", "-z")
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 && len(files) < maxIndexedFiles {
			files = append(files, string(f))
		}
	}
	return files, true
}

// walkFiles walks root, skipping what .gitignore files (root's and each directory's)
// exclude, hidden version-control directories and node_modules.
func walkFiles(ctx context.Context, root string) ([]string, error) {
	var files []string
	var patterns []gitignore.Pattern
	readIgnore := func(rel string) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel), ".gitignore"))
		if err != nil || len(data) > 1<<20 {
			return
		}
		var domain []string
		if rel != "." {
			domain = strings.Split(rel, "/")
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimRight(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			patterns = append(patterns, gitignore.ParsePattern(line, domain))
		}
	}
	readIgnore(".")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".hg" || d.Name() == ".svn" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if len(patterns) > 0 && gitignore.NewMatcher(patterns).Match(strings.Split(rel, "/"), d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			readIgnore(rel)
			return nil
		}
		if len(files) >= maxIndexedFiles {
			return filepath.SkipAll
		}
		files = append(files, rel)
		return nil
	})
	return files, err
}

// find returns the files that match q, best first, at most n. An empty q gives the
// first files in order.
func (idx *fileIndex) find(q string, n int) []string {
	if idx == nil {
		return nil
	}
	if q == "" {
		return idx.files[:min(n, len(idx.files))]
	}
	ms := fuzzy.Find(q, idx.files)
	out := make([]string, 0, min(n, len(ms)))
	for _, m := range ms {
		if len(out) == n {
			break
		}
		out = append(out, m.Str)
	}
	return out
}

// isImage says whether a file name is an image an agent may take.
func imageType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	}
	return ""
}
