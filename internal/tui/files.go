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
	lower []string // files in lower case, for the quick first pass of a search
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
	var matcher gitignore.Matcher
	readIgnore := func(rel string) {
		defer func() {
			if len(patterns) > 0 {
				matcher = gitignore.NewMatcher(patterns)
			}
		}()
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
		if matcher != nil && matcher.Match(strings.Split(rel, "/"), d.IsDir()) {
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
	// A quick first pass keeps the files that hold the query's letters in order (what
	// a fuzzy match needs); only those are scored. On 50,000 files that is the
	// difference between a key that lags and one that does not.
	if len(idx.lower) != len(idx.files) {
		idx.lower = make([]string, len(idx.files))
		for i, f := range idx.files {
			idx.lower[i] = strings.ToLower(f)
		}
	}
	lq := strings.ToLower(q)
	var cands []int
	for i, f := range idx.lower {
		if subsequence(lq, f) {
			cands = append(cands, i)
		}
	}
	if len(cands) > maxScored {
		cands = idx.likeliest(cands, lq)
	}
	strs := make([]string, len(cands))
	for i, c := range cands {
		strs[i] = idx.files[c]
	}
	ms := fuzzy.Find(q, strs)
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

// subsequence reports whether the bytes of q appear in s in order.
func subsequence(q, s string) bool {
	j := 0
	for i := 0; i < len(s) && j < len(q); i++ {
		if s[i] == q[j] {
			j++
		}
	}
	return j == len(q)
}

// maxScored bounds how many files a search scores: a query that most files match (the
// first letter or two) would cost a frame's time many times over.
const maxScored = 2000

// likeliest keeps maxScored of the files, those most likely to score best first: the
// ones whose name holds the query as it is typed, then those whose path does, then the
// rest (in the index's order within each group: a full sort would cost what it saves).
func (idx *fileIndex) likeliest(cands []int, lq string) []int {
	var groups [3][]int
	for _, i := range cands {
		lf := idx.lower[i]
		r := 2
		if j := strings.Index(lf, lq); j >= 0 {
			r = 1
			if !strings.Contains(lf[j:], "/") {
				r = 0 // in the file's own name
			}
		}
		if len(groups[r]) < maxScored {
			groups[r] = append(groups[r], i)
		}
	}
	out := append(append(groups[0], groups[1]...), groups[2]...)
	return out[:maxScored]
}
