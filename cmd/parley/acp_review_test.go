package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// The review of a turn's changes through `parley acp`, as the page asks for it: the diff
// has the same shape as vscodelm's lm/diff (before and after, rel, kind; no old/new), an
// undo that would overwrite a hand edit made since is its own error code with the files in
// its data (not -32602 with text), and the hand edit stays; a session parley does not know
// and params that do not decode have their own codes.
func TestACPReviewDiffShapeAndUndoConflict(t *testing.T) {
	w := newWorkspace(t)
	conn, _, _ := startParleyACP(t, w, acp.ClientCapabilities{Meta: acp.Meta{"parley": json.RawMessage(`{}`)}})
	s, err := conn.NewSession(t.Context(), &acp.NewSessionRequest{Cwd: w.dir, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := promptACP(t, conn, s.SessionID, acp.TextBlock("write file notes.txt with hello")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.dir, "notes.txt")
	var list parleyapi.ChangesResult
	if err := conn.CallExtension(t.Context(), parleyapi.MethodChanges, parleyapi.ChangesParams{SessionID: s.SessionID}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Turns) != 1 || len(list.Turns[0].Files) != 1 || list.Turns[0].Files[0].Path != path {
		t.Fatalf("_parley/changes %+v, want one turn that created notes.txt", list)
	}
	turn := list.Turns[0].Number

	var raw json.RawMessage
	if err := conn.CallExtension(t.Context(), parleyapi.MethodDiff, parleyapi.DiffParams{SessionID: s.SessionID, Path: "notes.txt", Turn: turn}, &raw); err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"after", "before", "kind", "path", "rel", "turn", "unified"}; !slices.Equal(keys, want) {
		t.Errorf("_parley/diff answered the fields %q, want %q (lm/diff's shape): %s", keys, want, raw)
	}
	var d parleyapi.DiffResult
	json.Unmarshal(raw, &d)
	if d.Path != path || d.Rel != "notes.txt" || d.Kind != "A" || d.Turn != turn || d.Before != nil || d.After == nil || *d.After != "hello\n" {
		t.Errorf("_parley/diff %s, want notes.txt created with hello", raw)
	}

	if err := os.WriteFile(path, []byte("a hand edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = conn.CallExtension(t.Context(), parleyapi.MethodUndo, parleyapi.UndoParams{SessionID: s.SessionID, Turn: turn}, nil)
	var e *acp.Error
	if !errors.As(err, &e) || e.Code != parleyapi.CodeUndoConflict {
		t.Fatalf("_parley/undo over a hand edit: %v, want code %d", err, parleyapi.CodeUndoConflict)
	}
	var conflict parleyapi.ConflictData
	if json.Unmarshal(e.Data, &conflict) != nil || len(conflict.Conflicts) != 1 || conflict.Conflicts[0].Path != path || !conflict.Conflicts[0].Since {
		t.Errorf("the conflict's data %s, want notes.txt changed since the turn", e.Data)
	}
	if got, _ := os.ReadFile(path); string(got) != "a hand edit\n" {
		t.Errorf("notes.txt holds %q after the refused undo, want the hand edit", got)
	}
	if err := conn.CallExtension(t.Context(), parleyapi.MethodDiff, parleyapi.DiffParams{SessionID: s.SessionID, Path: path, Turn: turn, Since: true}, &d); err != nil {
		t.Fatal(err)
	}
	if !d.ChangedSince || !strings.Contains(d.Unified, "+a hand edit") {
		t.Errorf("the diff since the turn %+v, want the hand edit", d)
	}

	for _, tt := range []struct {
		what   string
		params any
		code   int64
	}{
		{"a session parley does not know", parleyapi.UndoParams{SessionID: "no-such-session", Turn: turn}, parleyapi.CodeUnknownSession},
		{"params that do not decode", map[string]any{"sessionId": s.SessionID, "turn": "one"}, parleyapi.CodeInvalidParams},
		{"a turn that changed nothing", parleyapi.UndoParams{SessionID: s.SessionID, Turn: turn + 5}, parleyapi.CodeInvalidParams},
	} {
		err := conn.CallExtension(t.Context(), parleyapi.MethodUndo, tt.params, nil)
		if !errors.As(err, &e) || e.Code != tt.code {
			t.Errorf("_parley/undo with %s: %v, want code %d", tt.what, err, tt.code)
		}
	}
}
