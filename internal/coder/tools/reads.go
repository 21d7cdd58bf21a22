package tools

import (
	"crypto/sha256"
	"sync"
)

// ReadTracker remembers the content of each file as the model last saw it (read or
// written), so edit_file can insist on a read first and refuse to edit a file that changed
// since. It compares content, not mtimes, because the ACP client's fs/* may serve an
// editor's unsaved buffer. Safe for concurrent use.
type ReadTracker struct {
	mu   sync.Mutex
	seen map[string][sha256.Size]byte
}

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker { return &ReadTracker{seen: map[string][sha256.Size]byte{}} }

// Record notes that the model has seen content as the content of path.
func (t *ReadTracker) Record(path, content string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen[path] = sha256.Sum256([]byte(content))
}

// State reports whether path was read and, if so, whether content is what was seen.
func (t *ReadTracker) State(path, content string) (read, unchanged bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sum, ok := t.seen[path]
	return ok, ok && sum == sha256.Sum256([]byte(content))
}
