package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonDecision is what a script reads of parley run --json's permission events.
type jsonDecision struct {
	Type         string `json:"type"`
	ID           string `json:"id"`
	Confirmation *struct {
		Outcome   string `json:"outcome"`
		DecidedBy string `json:"decidedBy"`
	} `json:"confirmation"`
}

// decisionsIn returns "outcome by decidedBy" for every decided permission event of a
// --json output, in order.
func decisionsIn(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for line := range strings.Lines(out) {
		var ev jsonDecision
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", line, err)
		}
		if ev.Type == "permission" && ev.Confirmation != nil && ev.Confirmation.Outcome != "" {
			got = append(got, ev.Confirmation.Outcome+" by "+ev.Confirmation.DecidedBy)
		}
	}
	return got
}

// A script must tell a refusal from an agent's failure: every decision parley makes on a
// permission request, asked or not, is a permission event that says who decided, and a
// turn in which parley refused a request without anyone answering exits 7.
func TestRunJSONReportsEveryPermissionDecision(t *testing.T) {
	w := newWorkspace(t)
	jsonRun := func(t *testing.T, script string, flags ...string) ([]string, result) {
		t.Helper()
		r := w.run(t, script, append([]string{"--json"}, flags...)...)
		return decisionsIn(t, r.stdout), r
	}
	check := func(name string, got []string, r result, want string, code int) {
		t.Helper()
		if len(got) != 1 || got[0] != want || r.code != code {
			t.Errorf("%s: decisions %q, exit %d; want [%q], exit %d\nstdout %s\nstderr %s", name, got, r.code, want, code, r.stdout, r.stderr)
		}
	}

	got, r := jsonRun(t, "ask deploy")
	check("no terminal", got, r, "reject_once by no_one_to_ask", 7)
	if !strings.Contains(r.stderr, `refused "deploy" without asking anyone`) {
		t.Errorf("no terminal: stderr %q; want the refusal named as the reason for the exit status", r.stderr)
	}
	got, r = jsonRun(t, "ask deploy", "--yolo")
	check("--yolo", got, r, "allow_once by yolo", 0)

	w.config(t, `{"permissions":[{"tool":"execute:deploy*","action":"reject"},{"tool":"execute:ship*","action":"allow"}]}`)
	got, r = jsonRun(t, "ask deploy", "--yolo")
	check("a rule that refuses", got, r, "reject_once by rule", 7)
	got, r = jsonRun(t, "ask ship it")
	check("a rule that allows", got, r, "allow_once by rule", 0)
}
