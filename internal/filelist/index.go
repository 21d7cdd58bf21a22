package filelist

import (
	"context"
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/workspace"
	"github.com/sahilm/fuzzy"
)

// Index is a workspace's files as `@` mentions complete them (the terminal UI, the web
// chat): listed once as List lists them (what git would not ignore, nothing outside the
// roots), then searched fuzzily as the user types. It is not safe for concurrent use:
// its owner builds it off its own goroutine and searches it from one.
type Index struct {
	files     []string // slash-separated, relative to the root
	lower     []string // files in lower case, for the quick first pass of a search
	Truncated bool     // the workspace has more files than MaxIndexed: the rest are not listed
}

// MaxIndexed bounds an Index: a home directory must not cost minutes or gigabytes.
const MaxIndexed = 200_000

// NewIndex lists the files of the workspace whose first root is dir.
func NewIndex(ctx context.Context, dir string) (*Index, error) {
	roots, err := workspace.NewRoots(dir)
	if err != nil {
		return nil, err
	}
	tree, err := roots.OpenTree(roots.Dirs()[0])
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	defer tree.Close()
	files, err := List(ctx, roots, roots.Dirs()[0], tree)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var rels []string
	for _, f := range files {
		if !dependency(f.Rel) {
			rels = append(rels, f.Rel)
		}
	}
	return IndexOf(rels), nil
}

// IndexOf is an index of the files given (slash-separated, relative to the workspace).
func IndexOf(files []string) *Index {
	idx := &Index{}
	if len(files) > MaxIndexed {
		files, idx.Truncated = files[:MaxIndexed], true
	}
	idx.files = files
	idx.lower = make([]string, len(files))
	for i, f := range files {
		idx.lower[i] = strings.ToLower(f)
	}
	return idx
}

// dependency reports whether a file is inside installed dependencies or another version
// control system's internals: noise to a mention even where git does not ignore it.
func dependency(rel string) bool {
	for _, dir := range []string{"node_modules", ".hg", ".svn"} {
		if rel == dir || strings.HasPrefix(rel, dir+"/") || strings.Contains(rel, "/"+dir+"/") {
			return true
		}
	}
	return false
}

// Files are the files the index holds, in the order they were listed.
func (idx *Index) Files() []string { return idx.files }

// Len is how many files the index holds.
func (idx *Index) Len() int { return len(idx.files) }

// Match is a file Find found: its path and the byte offsets in it of the query's letters
// (for highlighting).
type Match struct {
	Path    string
	Matched []int
}

// Find returns the files that match q, best first, at most n. An empty q gives the first
// files in order.
func (idx *Index) Find(q string, n int) []Match {
	if idx == nil || n <= 0 {
		return nil
	}
	if q == "" {
		out := make([]Match, 0, min(n, len(idx.files)))
		for _, f := range idx.files[:min(n, len(idx.files))] {
			out = append(out, Match{Path: f})
		}
		return out
	}
	// A quick first pass keeps the files that hold the query's letters in order (what a
	// fuzzy match needs); only those are scored. On 50,000 files that is the difference
	// between a key that lags and one that does not.
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
	out := make([]Match, 0, min(n, len(ms)))
	for _, m := range ms {
		if len(out) == n {
			break
		}
		out = append(out, Match{Path: m.Str, Matched: m.MatchedIndexes})
	}
	return out
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
func (idx *Index) likeliest(cands []int, lq string) []int {
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
