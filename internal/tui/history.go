package tui

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// history is what the user sent in one workspace, oldest first, kept across runs in a
// file of its own under parley's state directory (one JSON string per line, so a prompt
// of several lines is one entry). A failure to read or write it costs the history, never
// the chat.
type history struct {
	path    string
	entries []string
	pos     int    // while browsing: the entry shown; len(entries) is the draft
	draft   string // what was typed before browsing began
}

// maxHistory bounds what is loaded and kept: the file is rewritten without the oldest
// entries when it holds twice as many.
const maxHistory = 1000

// historyPath is the history file of a workspace: named by a hash of its path, so that
// nothing of the path needs escaping.
func historyPath(stateDir, workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(stateDir, "history", hex.EncodeToString(sum[:8])+".jsonl")
}

func loadHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.entries = append(h.entries, s)
		}
	}
	if len(h.entries) > 2*maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
		h.rewrite()
	} else if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	h.pos = len(h.entries)
	return h
}

// add records a sent prompt (not twice in a row).
func (h *history) add(s string) {
	h.pos = len(h.entries)
	if strings.TrimSpace(s) == "" || len(h.entries) > 0 && h.entries[len(h.entries)-1] == s {
		h.pos = len(h.entries)
		return
	}
	h.entries = append(h.entries, s)
	h.pos = len(h.entries)
	if h.path == "" {
		return
	}
	line, err := json.Marshal(s)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(h.path), 0o700) != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}

func (h *history) rewrite() {
	var b strings.Builder
	for _, e := range h.entries {
		line, err := json.Marshal(e)
		if err == nil {
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	tmp := h.path + ".tmp"
	if os.WriteFile(tmp, []byte(b.String()), 0o600) == nil {
		os.Rename(tmp, h.path)
	}
}

// prev returns the entry before the one shown (current is what the composer holds),
// and false at the oldest.
func (h *history) prev(current string) (string, bool) {
	if h.pos == 0 || len(h.entries) == 0 {
		return "", false
	}
	if h.pos == len(h.entries) {
		h.draft = current
	}
	h.pos--
	return h.entries[h.pos], true
}

// next returns the entry after the one shown, the draft after the newest, and false
// when not browsing.
func (h *history) next() (string, bool) {
	if h.pos >= len(h.entries) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.entries) {
		return h.draft, true
	}
	return h.entries[h.pos], true
}

// reset ends browsing.
func (h *history) reset() { h.pos = len(h.entries) }

// search returns the newest entry older than before (an index; len(entries) for all)
// that contains q, and its index, or -1.
func (h *history) search(q string, before int) (string, int) {
	lq := strings.ToLower(q)
	for i := min(before, len(h.entries)) - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(h.entries[i]), lq) {
			return h.entries[i], i
		}
	}
	return "", -1
}

// HistoryFile is where the prompts sent in workspace are kept, under parley's state
// directory.
func HistoryFile(stateDir, workspace string) string { return historyPath(stateDir, workspace) }
