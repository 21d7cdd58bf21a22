package parleyapi

import "github.com/parley-acp/parley/acp"

// What the agent changed: each turn's files (_parley/changes after every turn, and as a
// request for all of them), a file's diff (_parley/diff), undo and keep (_parley/undo,
// _parley/keep), which every view hears of (_parley/changes_changed). vscodelm's lm/changes,
// lm/diff and lm/undo answer with the same types; their params name a conversation instead
// of a session.

// ChangedTurn is one turn of the record of changes: a turn that changed files, or an undo.
type ChangedTurn struct {
	Number  int           `json:"number"`
	Label   string        `json:"label"` // the prompt, or what the undo undid
	Undo    bool          `json:"undo,omitempty"`
	Started string        `json:"started,omitempty"` // RFC 3339, UTC
	Ended   string        `json:"ended,omitempty"`   // RFC 3339, UTC
	Files   []ChangedFile `json:"files"`
}

// ChangedFile is a file a turn created (kind A), changed (M) or deleted (D).
type ChangedFile struct {
	Path    string `json:"path"` // absolute: what diff and undo take
	Rel     string `json:"rel"`  // as the user sees it
	Kind    string `json:"kind"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Status  string `json:"status"` // pending, undone, kept, expired
	// Undoable: an undo can bring back what the file was (whether it changed since is only
	// known when undoing).
	Undoable bool `json:"undoable"`
	// Note says why the content is not kept (large or binary), when it is not.
	Note string `json:"note,omitempty"`
	// RunsCode: how the change makes git run a program (a hook, core.fsmonitor...), when it
	// does; a change to look at before running git in the workspace again.
	RunsCode string `json:"runsCode,omitempty"`
	// Mode: the permission bits before and after, when the turn changed them ("644 → 755").
	Mode string `json:"mode,omitempty"`
}

// TurnChangesNotification is the params of the notification _parley/changes: what the turn
// of PromptID changed (Error: the record is incomplete, and why).
type TurnChangesNotification struct {
	SessionID acp.SessionID `json:"sessionId"`
	PromptID  int           `json:"promptId"`
	ChangedTurn
	Error string `json:"error,omitempty"`
}

// ChangesChangedNotification is the params of _parley/changes_changed: a view undid or kept
// Files (as the user sees them: relative to the workspace); the front-end reads the changes again.
type ChangesChangedNotification struct {
	SessionID acp.SessionID `json:"sessionId"`
	What      string        `json:"what"` // undone, kept
	Files     []string      `json:"files"`
}

// ChangesParams is the params of the request _parley/changes.
type ChangesParams struct {
	SessionID acp.SessionID `json:"sessionId"`
}

// ChangesResult is the result of _parley/changes (and lm/changes): the turns that changed
// files, and the undos, oldest first.
type ChangesResult struct {
	Turns []ChangedTurn `json:"turns"`
}

// DiffParams is the params of _parley/diff: the diff of a file a turn changed (Turn 0: the
// last turn that changed it), or, with Since, how it changed after the turn. A relative
// Path is in the session's workspace.
type DiffParams struct {
	SessionID acp.SessionID `json:"sessionId"`
	Path      string        `json:"path"`
	Turn      int           `json:"turn,omitempty"`
	Since     bool          `json:"since,omitempty"`
}

// DiffResult is a file's diff (_parley/diff, lm/diff): the unified diff, and the two texts
// for a side-by-side view (null: no file, or its content is not kept or not text, Note
// saying why).
type DiffResult struct {
	Path         string  `json:"path"`
	Rel          string  `json:"rel"`
	Turn         int     `json:"turn"`
	Kind         string  `json:"kind"`
	Unified      string  `json:"unified"`
	Note         string  `json:"note,omitempty"`
	ChangedSince bool    `json:"changedSince,omitempty"` // the diff is of what changed after the turn
	Before       *string `json:"before"`
	After        *string `json:"after"`
}

// UndoParams is the params of _parley/undo: a turn (0: the last with something to undo),
// some of its files (absolute, or relative to the workspace), or every turn back to it
// (Rewind). A file changed since is CodeUndoConflict.
type UndoParams struct {
	SessionID acp.SessionID `json:"sessionId"`
	Turn      int           `json:"turn,omitempty"`
	Paths     []string      `json:"paths,omitempty"`
	Rewind    bool          `json:"rewind,omitempty"`
}

// UndoResult is what an undo did (_parley/undo, lm/undo); the undo is a turn of its own
// (Record), which can be undone in turn.
type UndoResult struct {
	Turns  []int        `json:"turns"`
	Files  []UndoneFile `json:"files"`
	Record *ChangedTurn `json:"record,omitempty"`
}

// UndoneFile is what an undo did with one file: restored, deleted, recreated, or already
// as it was.
type UndoneFile struct {
	Path string `json:"path"`
	Rel  string `json:"rel"`
	Did  string `json:"did"`
}

// ConflictData is the data of a CodeUndoConflict error.
type ConflictData struct {
	Conflicts []Conflict  `json:"conflicts"`
	Partial   *UndoResult `json:"partial,omitempty"` // what was undone before the undo stopped
}

// Conflict is a file an undo would not touch, and why.
type Conflict struct {
	Path   string `json:"path"`
	Rel    string `json:"rel"`
	Turn   int    `json:"turn"`
	Reason string `json:"reason"`
	Since  bool   `json:"since,omitempty"` // it changed after the turn: a diff with since shows how
}

// KeepParams is the params of _parley/keep: a turn's changes (Turn 0: every turn's), or
// some of its files, kept: they can no longer be undone.
type KeepParams struct {
	SessionID acp.SessionID `json:"sessionId"`
	Turn      int           `json:"turn,omitempty"`
	Paths     []string      `json:"paths,omitempty"`
}

// KeepResult is the result of _parley/keep: how many files were kept.
type KeepResult struct {
	Kept int `json:"kept"`
}
