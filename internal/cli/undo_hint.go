package cli

import (
	"strconv"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/safety"
)

// undoOthersHint is what parley undo says after a conflict: the command that undoes the
// other files of the undo asked for, those nothing stopped, with the same choice of turn
// and conversation.
func undoOthersHint(ce *changes.ConflictError, session string, turn, to int) string {
	if len(ce.Undoable) == 0 {
		return "No other file of it can be undone."
	}
	argv := []string{"parley", "undo"}
	if session != "" {
		argv = append(argv, "--session", session)
	}
	switch {
	case to != 0:
		argv = append(argv, "--to", strconv.Itoa(to))
	case turn != 0:
		argv = append(argv, "--turn", strconv.Itoa(turn))
	}
	return "To undo the other files alone: " + safety.JoinArgv(append(argv, ce.Undoable...))
}
