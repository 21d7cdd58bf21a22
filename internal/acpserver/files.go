package acpserver

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/parley-acp/parley/internal/filelist"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// fileIndex is a session's workspace for @ mentions (internal/filelist: the files git would
// not ignore, nothing outside the roots, searched fuzzily), kept for a few seconds so that
// each key typed does not list the tree again.
type fileIndex struct {
	mu  sync.Mutex
	idx *filelist.Index
	at  time.Time
}

const fileIndexTTL = 10 * time.Second

// search returns the files that match the query, best first, at most limit; truncated
// says the workspace has more files than the index holds.
func (ix *fileIndex) search(ctx context.Context, dir, query string, limit int) (found []parleyapi.FileMatch, truncated bool, err error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.idx == nil || time.Since(ix.at) >= fileIndexTTL {
		idx, err := filelist.NewIndex(ctx, dir)
		if err != nil {
			return nil, false, err
		}
		ix.idx, ix.at = idx, time.Now()
	}
	found = []parleyapi.FileMatch{} // never null on the wire
	for _, m := range ix.idx.Find(query, limit) {
		found = append(found, parleyapi.FileMatch{Path: m.Path, Matches: runePositions(m.Path, m.Matched)})
	}
	return found, ix.idx.Truncated, nil
}

// runePositions turns byte offsets in s into rune positions (what the page counts in).
func runePositions(s string, offsets []int) []int {
	out := make([]int, 0, len(offsets))
	for _, o := range offsets {
		if o <= len(s) {
			out = append(out, utf8.RuneCountInString(s[:o]))
		}
	}
	return out
}
