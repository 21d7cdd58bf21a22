package main

import (
	"strings"
	"testing"
)

// A program that is not an ACP agent is named as such, whatever it does with parley's
// initialize: cat sends it back (parley's own "method not found" then comes back as the
// answer), true exits at once, another writes lines that are not JSON.
func TestAgentCommandThatIsNoAgentIsNamed(t *testing.T) {
	for _, c := range []struct{ command, why string }{
		{"cat", "it has no initialize method"},
		{"true", "before it answered initialize"},
		{"sh -c 'echo hello world; exec cat'", "not ACP"},
	} {
		r := parley(t, "", "run", "--agent-command", c.command, "hi")
		if r.code != 1 || !strings.Contains(r.stderr, " is not an ACP agent") || !strings.Contains(r.stderr, c.why) {
			t.Errorf("--agent-command %s: exit %d, stderr %q; want it named not an ACP agent (%s)", c.command, r.code, r.stderr, c.why)
		}
	}
}
