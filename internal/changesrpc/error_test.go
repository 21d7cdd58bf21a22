package changesrpc

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// One set of codes for both servers: a conflict carries its files, what the request asked
// that cannot be done is invalid params, a failure of the record is internal; the message
// is made visible.
func TestErrorCodes(t *testing.T) {
	conflict := &changes.ConflictError{Conflicts: []changes.Conflict{{Path: "/w/a.txt", Rel: "a.txt", Turn: 2, Reason: "it changed since", Since: true}}}
	for _, tt := range []struct {
		err  error
		code int64
	}{
		{fmt.Errorf("undoing: %w", conflict), parleyapi.CodeUndoConflict},
		{fmt.Errorf("turn 9: %w", changes.ErrNoChange), parleyapi.CodeInvalidParams},
		{changes.ErrNothingToUndo, parleyapi.CodeInvalidParams},
		{changes.ErrTurnRunning, parleyapi.CodeInvalidParams},
		{conversation.ErrNotRecorded, parleyapi.CodeInvalidParams},
		{errors.New("disk I/O error\x1b[2J"), parleyapi.CodeInternal},
	} {
		e, ok := errors.AsType[*jsonrpc2.Error](Error(tt.err))
		if !ok || e.Code != tt.code {
			t.Errorf("%v: %v, want code %d", tt.err, e, tt.code)
			continue
		}
		if tt.code == parleyapi.CodeInternal && e.Message != "disk I/O error␛[2J" {
			t.Errorf("message %q, want the escape made visible", e.Message)
		}
		if tt.code != parleyapi.CodeUndoConflict {
			if e.Data != nil {
				t.Errorf("%v carries data %s", tt.err, e.Data)
			}
			continue
		}
		var data parleyapi.ConflictData
		if json.Unmarshal(e.Data, &data) != nil || len(data.Conflicts) != 1 || data.Conflicts[0].Rel != "a.txt" || !data.Conflicts[0].Since || data.Partial != nil {
			t.Errorf("conflict data %s, want a.txt changed since", e.Data)
		}
	}
}
