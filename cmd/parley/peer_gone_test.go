package main

import (
	"strings"
	"testing"
)

// A peer that goes away (an agent that exits, a page closed) is the ordinary end of a
// connection: parley's write to it failing is not a WARN line in the user's terminal.
func TestAPeerGoneIsNoWarning(t *testing.T) {
	r := parley(t, "", "run", "--agent-command", "true", "hi")
	if r.code != 1 || strings.Contains(r.stderr, "level=WARN") || !strings.Contains(r.stderr, "not an ACP agent") {
		t.Errorf("exit %d, stderr %q; want the agent named, and no warning about the connection", r.code, r.stderr)
	}
}
