//go:build linux

package realagents

import (
	"bufio"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// runContinue: a run, then parley run --continue: the conversation goes on in the
// agent's own session (session/resume or session/load, where the agent offers them) or
// in a new one seeded with the transcript, as parley says, and parley sessions keeps it.
func runContinue(t *testing.T, sb *sandbox) {
	if r := sb.runParley(t, markPlain+" Say hello."); r.exitStatus() != 0 {
		t.Fatalf("the first run: exit %d\n%s", r.exitStatus(), r)
	}
	r := sb.runParley(t, "--continue", "--json", markPlain+" Say hello again.")
	if code := r.exitStatus(); code != 0 || !strings.Contains(r.out.String(), "the scripted model.") {
		t.Fatalf("--continue: exit %d; want 0 and the model's reply\n%s", code, r)
	}
	var how string
	sc := bufio.NewScanner(strings.NewReader(r.out.String()))
	for sc.Scan() {
		var ev struct{ Type, How, Why string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "carried" {
			how = ev.How
			if ev.Why != "" {
				t.Logf("the agent's own way failed: %s", ev.Why)
			}
		}
	}
	t.Logf("--continue went on by %q", how)
	frames := sb.recordedFrames(t)
	reopened := false
	for _, f := range frames {
		reopened = reopened || f.Dir == "to-agent" && (f.Msg.Method == "session/resume" || f.Msg.Method == "session/load")
	}
	switch how {
	case "resume", "load":
		if !reopened {
			t.Errorf("parley says %s, but sent neither session/resume nor session/load", how)
		}
	case "seeded", "summarised":
	default:
		t.Errorf("--continue: no carried event (or an unknown way %q)\n%s", how, r)
	}
	out, errOut, code := sb.parleyCommand(t, "sessions", "--json")
	lines := strings.Count(out, "\n")
	if code != 0 || (how == "resume" || how == "load") && lines != 1 || (how == "seeded" && lines != 2) {
		t.Errorf("parley sessions: exit %d, %d conversations\n%s%s", code, lines, out, errOut)
	}
}
