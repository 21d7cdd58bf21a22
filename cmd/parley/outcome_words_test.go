package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A refused request is worded as one refusal everywhere: "not run: refused" and by
// whom, never "failed", never the text the agent wrote for its model (Claude Code
// reports a refused call failed, "The user rejected this command…", when nobody was
// asked), and parley run --json says it in the call's "outcome".
func TestRunWordsARefusalAsNotRunWhateverTheAgentReports(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)

	r := w.run(t, "tool-ask rm -rf ../victim")
	out := r.stdout + r.stderr
	if !strings.Contains(out, "`rm -rf ../victim` — not run: refused (no one to ask)") {
		t.Errorf("the refusal is not worded as one; output:\n%s", out)
	}
	for _, bad := range []string{"failed", "rejected this command", "Error:"} {
		if strings.Contains(out, bad) {
			t.Errorf("the output says %q of a call that was refused:\n%s", bad, out)
		}
	}

	outcomes := func(t *testing.T, r result) []string {
		t.Helper()
		var got []string
		for line := range strings.Lines(r.stdout) {
			var ev struct {
				Type, Outcome, OutcomeText string
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("not a JSON line: %q (%v)", line, err)
			}
			if ev.Outcome != "" {
				got = append(got, ev.Type+" "+ev.Outcome+" ("+ev.OutcomeText+")")
			}
		}
		return got
	}
	r = w.run(t, "tool-ask rm -rf ../victim", "--json")
	got := strings.Join(outcomes(t, r), "\n")
	if !strings.Contains(got, "permission no_one_to_ask (not run: refused (no one to ask))") || strings.Contains(got, "failed") {
		t.Errorf("--json outcomes:\n%s\nwant the permission event and the call to say no_one_to_ask, never failed", got)
	}
	if !strings.HasSuffix(got, "tool_call no_one_to_ask (not run: refused (no one to ask))") {
		t.Errorf("--json outcomes:\n%s\nwant the call's last event (the agent's \"failed\") still to read no_one_to_ask", got)
	}

	w.config(t, `{"permissions":[{"tool":"execute:rm*","action":"reject"}]}`)
	r = w.run(t, "tool-ask rm -rf ../victim", "--json")
	if got := outcomes(t, r); len(got) == 0 || got[len(got)-1] != "tool_call refused_by_rule (not run: refused by a rule)" {
		t.Errorf("--json outcomes with a rule that refuses: %q", got)
	}

	r = w.run(t, "tool-ask echo hi", "--yolo", "--json")
	if got := outcomes(t, r); len(got) != 1 || got[0] != "tool_call done (done)" {
		t.Errorf("--json outcomes of an allowed call: %q; want one done", got)
	}
}
