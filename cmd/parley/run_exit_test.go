package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// /dev/null is a character device, but no terminal: parley run must not ask it a
// permission question, it refuses as it does with no terminal at all.
func TestRunWithStdinFromDevNullRefusesWithoutAsking(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r := parleyFrom(t, w.dir, w.env, null, "run", "--agent-command", fakeAgentCommand(t, "scripted"), "ask deploy")
	if strings.Contains(r.stderr, "asks permission") {
		t.Errorf("parley asked /dev/null a question:\n%s", r.stderr)
	}
	if r.stdout != "chose reject_once\n" || !strings.Contains(r.stderr, "no terminal to ask") {
		t.Errorf("stdout %q, stderr %q; want a refusal that says there is no terminal", r.stdout, r.stderr)
	}
}

// stopGraceBeforeTheFix is how long parley waited, after closing an agent's stdin, before
// it signalled the agent.
const stopGraceBeforeTheFix = 2 * time.Second

// Some agents ignore the end of their input and only a signal ends them. Once parley
// run's turn is over it must not wait its whole grace period for them: the run ends well
// before that period, and the agent is gone with it.
func TestRunEndsAnAgentThatIgnoresEOFSoon(t *testing.T) {
	// Not parallel: it bounds how long the run takes (wall-clock).
	w := newWorkspace(t)
	start := time.Now()
	r := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", fakeAgentCommand(t, "scripted-ignoring-eof"), "--yolo", "ask deploy")
	took := time.Since(start)
	if r.code != 0 || r.stdout != "chose allow_once\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if took >= stopGraceBeforeTheFix {
		t.Errorf("parley run took %v with an agent that ignores EOF; want it to end the agent well before %v", took, stopGraceBeforeTheFix)
	}
}

// An agent that ends its turn cancelled because parley refused its request (codex-acp
// does) did not get a Ctrl-C from the user: parley says what happened and does not exit
// 130, the status of the user's cancel.
func TestRunReportsAnAgentThatGivesUpAfterARefusal(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", fakeAgentCommand(t, "scripted"), "ask-or-give-up deploy")
	if r.code == 130 || r.code == 0 {
		t.Errorf("exit %d; want a failure that is not the user's cancel (130)", r.code)
	}
	if !strings.Contains(r.stderr, `after parley refused "deploy"`) || strings.Contains(r.stderr, "the turn was cancelled") {
		t.Errorf("stderr %q: want the refusal named as the reason the turn ended", r.stderr)
	}
}
