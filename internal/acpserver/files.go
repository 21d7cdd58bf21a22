package acpserver

import (
	"context"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// fileIndex lists a session's workspace for @ mentions: the names of its files (walked
// through an os.Root, so nothing outside is listed), kept for a few seconds so that
// each key typed does not walk the tree again.
type fileIndex struct {
	mu        sync.Mutex
	files     []string
	truncated bool
	at        time.Time
}

const (
	maxIndexedFiles = 100000
	fileIndexTTL    = 10 * time.Second
)

// skippedDirs are never listed: version control internals and installed dependencies.
var skippedDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true, "__pycache__": true, ".venv": true}

// fileMatch is one file found: its path relative to the workspace, and the positions (in
// runes) of the query's letters in it, for highlighting.
type fileMatch struct {
	Path    string `json:"path"`
	Matches []int  `json:"matches,omitempty"`
	score   int
}

func (ix *fileIndex) list(ctx context.Context, dir string) ([]string, bool, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.files != nil && time.Since(ix.at) < fileIndexTTL {
		return ix.files, ix.truncated, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, false, err
	}
	defer root.Close()
	files := []string{}
	truncated := false
	err = fs.WalkDir(root.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable directory is left out
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if path != "." && skippedDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if len(files) >= maxIndexedFiles {
			truncated = true
			return fs.SkipAll
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	ix.files, ix.truncated, ix.at = files, truncated, time.Now()
	return files, truncated, nil
}

// search returns the files that hold the query's letters in order, best first.
func (ix *fileIndex) search(ctx context.Context, dir, query string, limit int) ([]fileMatch, bool, error) {
	files, truncated, err := ix.list(ctx, dir)
	if err != nil {
		return nil, false, err
	}
	q := []rune(strings.ToLower(query))
	var found []fileMatch
	for _, f := range files {
		if m, ok := fuzzyMatch(f, q); ok {
			found = append(found, m)
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].score != found[j].score {
			return found[i].score > found[j].score
		}
		if len(found[i].Path) != len(found[j].Path) {
			return len(found[i].Path) < len(found[j].Path)
		}
		return found[i].Path < found[j].Path
	})
	if len(found) > limit {
		found = found[:limit]
	}
	return found, truncated, nil
}

// fuzzyMatch matches q's letters in order in path, preferring letters that follow each
// other, that start a word (after / _ - . or a space), and that are in the file's name.
func fuzzyMatch(path string, q []rune) (fileMatch, bool) {
	m := fileMatch{Path: path}
	if len(q) == 0 {
		return m, true
	}
	lower := []rune(strings.ToLower(path))
	base := utf8.RuneCountInString(path[:strings.LastIndex(path, "/")+1])
	qi, prev := 0, -2
	for i, r := range lower {
		if qi == len(q) {
			break
		}
		if r != q[qi] {
			continue
		}
		score := 1
		if i == prev+1 {
			score += 5
		}
		if i == 0 || strings.ContainsRune("/_-. ", lower[i-1]) {
			score += 3
		}
		if i >= base {
			score += 2
		}
		m.score += score
		m.Matches = append(m.Matches, i)
		prev = i
		qi++
	}
	if qi < len(q) {
		return fileMatch{}, false
	}
	return m, true
}
