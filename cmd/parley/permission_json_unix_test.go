//go:build !windows

package main

import "testing"

// On a terminal the user's answer is a decision by "user"; the "always" given is the
// decision of the next run, which asks nobody.
func TestRunJSONSaysTheUserDecided(t *testing.T) {
	w := newWorkspace(t)
	term := startTerminalIn(t, w.dir, w.env, "run", "--json", "--agent-command", fakeAgentCommand(t, "scripted"), "ask git tag v1.0")
	// The question's own text, not the JSON event before it: what is typed before the
	// question is shown is ignored.
	term.expect("The agent asks permission")
	term.typeLine("a")
	term.expect(`"outcome":"allow_always","decidedBy":"user"`)
	term.wait(t, 0)

	r := w.run(t, "ask git tag v1.0", "--json")
	if got := decisionsIn(t, r.stdout); len(got) != 1 || got[0] != "allow_always by always" || r.code != 0 {
		t.Errorf("the next run: decisions %q, exit %d; want [allow_always by always], exit 0\n%s", got, r.code, r.stderr)
	}
}
