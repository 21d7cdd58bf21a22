package acpserver

import (
	"fmt"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
)

// What the agent changed, as the page reads it: each turn's files (_parley/changes after
// every turn; _parley/changes_list for all of them), a file's diff (_parley/diff), and
// undo and keep (_parley/undo, _parley/keep), which every view hears of.

type changeWire struct {
	Path     string `json:"path"`
	Rel      string `json:"rel"`
	Kind     string `json:"kind"` // A created, M modified, D deleted
	Added    int    `json:"added"`
	Removed  int    `json:"removed"`
	Status   string `json:"status"` // pending, undone, kept
	Undoable bool   `json:"undoable"`
	// RunsCode: how the change makes git run a program (a hook, core.fsmonitor...).
	RunsCode string `json:"runsCode,omitempty"`
	// Mode: the permission bits before and after, when the turn changed them ("644 → 755").
	Mode string `json:"mode,omitempty"`
}

type turnWire struct {
	Turn    int          `json:"turn"`
	Label   string       `json:"label"`
	Undo    bool         `json:"undo,omitempty"`
	Started string       `json:"started,omitempty"`
	Ended   string       `json:"ended,omitempty"`
	Changes []changeWire `json:"changes"`
}

func wireTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func wireTurn(t changes.Turn) turnWire {
	w := turnWire{Turn: t.Number, Label: t.Label, Undo: t.Undo, Started: wireTime(t.Started), Ended: wireTime(t.Ended), Changes: []changeWire{}}
	for _, c := range t.Changes {
		cw := changeWire{Path: c.Path, Rel: c.Rel, Kind: string(c.Kind), Added: c.Added, Removed: c.Removed, Status: string(c.Status),
			Undoable: c.Undoable(), RunsCode: c.RunsCode}
		if c.ModeChanged() {
			cw.Mode = fmt.Sprintf("%03o → %03o", c.Before.Mode.Perm(), c.After.Mode.Perm())
		}
		w.Changes = append(w.Changes, cw)
	}
	return w
}

type turnChangesNotification struct {
	SessionID acp.SessionID `json:"sessionId"`
	PromptID  int           `json:"promptId"`
	turnWire
	Error string `json:"error,omitempty"`
}

type changesEventNotification struct {
	SessionID acp.SessionID `json:"sessionId"`
	What      string        `json:"what"` // undone, kept
	Files     []string      `json:"files"`
}

type changesRequest struct {
	SessionID acp.SessionID `json:"sessionId"`
	Turn      int           `json:"turn,omitempty"`
	Path      string        `json:"path,omitempty"`
	Paths     []string      `json:"paths,omitempty"`
	Since     bool          `json:"since,omitempty"`
	Rewind    bool          `json:"rewind,omitempty"`
}

type diffWire struct {
	Turn         int     `json:"turn"`
	Path         string  `json:"path"`
	Unified      string  `json:"unified"`
	Note         string  `json:"note,omitempty"`
	ChangedSince bool    `json:"changedSince,omitempty"`
	Old          *string `json:"old"`
	New          *string `json:"new"`
}
