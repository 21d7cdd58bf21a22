package permission

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/store"
)

func command(line string) acp.ToolCallUpdate {
	return execute(`{"command":`+strconv.Quote(line)+`}`, "Bash", "")
}

// A rule that refuses or asks is not evaded by a spelling only known when the command
// runs: such a command is asked about, never allowed on --yolo's word (issue 16).
func TestRunTimeSpellingsAsk(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string // "refused" without asking, "asked", "allowed" without asking
	}{
		{"git push", "refused"},
		{"git -C . push", "refused"},
		{"git -c alias.p=push p", "refused"}, // the alias is visible: it is git push
		{"git p", "asked"},                   // an alias from the configuration
		{"$GIT push", "asked"},
		{"G=git; $G push", "asked"},
		{"eval \"$CMD\"", "asked"},
		{"sh -c \"$CMD\"", "asked"},
		{"echo push | xargs git", "asked"},
		{"git $SUB", "asked"},
		{"git status", "allowed"},
		{"ls $DIR", "asked"}, // the rule matches anywhere in the text: $DIR could be "git push"
		{"ls src", "allowed"},
	} {
		var asked int
		p := &Policy{Workspace: workspace, Home: "/home/u", Yolo: true, Rules: []Rule{{"execute:*git push*", ActionReject}},
			Ask: func(context.Context, *Question) (Answer, error) { asked++; return AllowOnce, nil }}
		resp, _ := p.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: command(tc.line), Options: codexLike})
		got := "allowed"
		switch {
		case asked > 0:
			got = "asked"
		case outcome(resp) != "approved":
			got = "refused"
		}
		if got != tc.want {
			t.Errorf("%s under a rule refusing *git push*: %s (%s), want %s", tc.line, got, outcome(resp), tc.want)
		}
	}
}

// An allow rule is not widened by a run-time spelling either: only reject and ask rules
// make such a command ask.
func TestRunTimeSpellingsOnlyMeetRefusals(t *testing.T) {
	p := &Policy{Workspace: workspace, Rules: []Rule{{"execute:npm *", ActionAsk}}}
	if a := p.configured(p.Subject(command("ls $DIR"))); a != "" {
		t.Errorf("ls $DIR under an ask rule for npm: %q", a)
	}
	if a := p.configured(p.Subject(command("$TOOL publish"))); a != ActionAsk {
		t.Errorf("$TOOL publish under an ask rule for npm: %q, want ask", a)
	}
}

func TestPatternsMeet(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"execute:*git push*", "execute:*", true},
		{"execute:*git push*", "execute:* push", true},
		{"execute:*git push*", "execute:git *", true},
		{"execute:*git push*", "execute:ls *", true}, // "ls git push"
		{"execute:git push*", "execute:ls *", false},
		{"execute:rm -rf*", "execute:rm -f *", false},
		{"execute:rm -rf*", "execute:rm *", true},
		{"edit:*", "execute:*", false},
		{"*", "execute:git p", true},
		{"execute:git ?ush", "execute:git *", true},
	} {
		if got := patternsMeet(tc.a, tc.b); got != tc.want {
			t.Errorf("patternsMeet(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// A command that runs code from a file the agent can change is never allowed on an
// "always": it is not offered, and one remembered (by an older parley) does not count.
func TestEditableCodeIsNotCoveredByAlways(t *testing.T) {
	s, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, line := range []string{"sh build.sh", "make", "./run.sh", "npm test", "python3 tool.py", "go test ./..."} {
		p := &Policy{Store: s, Agent: agent, Workspace: workspace}
		subject := p.Subject(command(line))
		if !subject.NoAlwaysAllow {
			t.Errorf("%s: always allow is offered", line)
		}
		if err := s.Remember(t.Context(), storeRule(subject.Key)); err != nil {
			t.Fatal(err)
		}
		var answers []Answer
		p.Ask = func(_ context.Context, q *Question) (Answer, error) { answers = q.Answers; return RejectOnce, nil }
		resp, _ := p.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: command(line), Options: codexLike})
		if o := outcome(resp); o == "approved" || o == "accept_execpolicy_amendment" || answers == nil {
			t.Errorf("%s with a remembered allow: %s, asked %v; want asked and refused", line, outcome(resp), answers != nil)
		}
		if containsAnswer(answers, AllowAlways) || !containsAnswer(answers, RejectAlways) {
			t.Errorf("%s: offered %v", line, answers)
		}
	}
}

// While the store cannot be read (another process holds it locked), --yolo allows
// nothing a remembered rejection might refuse: it asks, or refuses with nobody to ask.
func TestStoreUnavailableFailsClosed(t *testing.T) {
	locked := errors.New("database is locked")
	p := &Policy{StoreErr: locked, Agent: agent, Workspace: workspace, Yolo: true}
	resp, err := p.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: command("rm -f build.log"), Options: codexLike})
	if outcome(resp) == "approved" || !errors.Is(err, locked) {
		t.Errorf("nobody to ask: %s, %v; want a refusal that says why", outcome(resp), err)
	}
	asked := false
	p.Ask = func(context.Context, *Question) (Answer, error) { asked = true; return AllowOnce, nil }
	if resp, _ := p.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: command("rm -f build.log"), Options: codexLike}); !asked || outcome(resp) != "approved" {
		t.Errorf("with someone to ask: asked %v, %s", asked, outcome(resp))
	}
	// A lookup that fails is the same.
	s, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	broken := &Policy{Store: s, Agent: agent, Workspace: workspace, Yolo: true}
	if resp, _ := broken.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: command("rm -f build.log"), Options: codexLike}); outcome(resp) == "approved" {
		t.Error("a failed lookup let --yolo allow")
	}
}

// terminal/create's environment is judged with the command.
func TestDecideTerminalJudgesTheEnvironment(t *testing.T) {
	p := &Policy{Workspace: workspace, Home: "/home/u"}
	d := p.DecideTerminal(t.Context(), "s", []string{"git", "fetch"}, []acp.EnvVariable{{Name: "GIT_SSH_COMMAND", Value: "rm -rf ~"}}, "")
	if d.Allowed {
		t.Error("GIT_SSH_COMMAND='rm -rf ~' git fetch ran with nobody to ask")
	}
	if d := p.DecideTerminal(t.Context(), "s", []string{"git", "fetch"}, []acp.EnvVariable{{Name: "LANG", Value: "C"}}, ""); !d.Allowed {
		t.Errorf("LANG=C git fetch: %+v", d)
	}
}
