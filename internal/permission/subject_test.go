package permission

import (
	"context"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/store"
)

func execute(rawInput, name, title string) acp.ToolCallUpdate {
	tc := acp.ToolCallUpdate{ToolCallID: "call_1", Kind: acp.ToolKindExecute, Name: name, Title: title}
	if rawInput != "" {
		tc.RawInput = []byte(rawInput)
	}
	return tc
}

func TestSubject(t *testing.T) {
	p := &Policy{Workspace: workspace, Home: "/home/u"}
	for _, tc := range []struct {
		name        string
		tc          acp.ToolCallUpdate
		command     string // what runs, as shown
		key, always string
		tier        safety.Tier
	}{
		{"a command string", execute(`{"command":"rm -f build.log"}`, "Bash", "ls"),
			"rm -f build.log", "execute:medium rm -f build.log", "exactly `rm -f build.log`", safety.Medium},
		{"argv", execute(`{"command":["git","status"]}`, "", ""),
			"git status", "execute:none git status", "exactly `git status`", safety.None},
		{"sh -c in argv", execute(`{"command":["/bin/bash","-lc","rm -rf ~"]}`, "", ""),
			"/bin/bash -lc 'rm -rf ~'", "execute:critical /bin/bash -lc 'rm -rf ~'", "exactly `/bin/bash -lc 'rm -rf ~'`", safety.Critical},
		{"files left open", execute(`{"command":"cat README.md"}`, "", ""),
			"cat README.md", "execute:none cat <files>", "`cat README.md` and the same command with other files in the workspace", safety.None},
		{"the title is not what runs", execute(``, "Bash", "`rm -rf /`"),
			"", "execute:rm -rf /", "", safety.Critical},
		{"a title in words is not a command", execute(``, "", "Delete the build directory"),
			"", "execute:Delete the build directory", "", safety.None},
		{"a title in lower case reads as one", execute(``, "", "rm -rf build"),
			"", "execute:rm -rf build", "", safety.High},
		{"a tool that is not a command", acp.ToolCallUpdate{Kind: acp.ToolKindEdit, Name: "Write", Title: "Write /w/main.go"},
			"", "edit:Write", "every `edit` call of the agent's `Write` tool in this workspace", safety.None},
		{"no kind is other", acp.ToolCallUpdate{Title: "Think hard"}, "", "other:Think", "every `other` call of the agent's `Think` tool in this workspace", safety.None},
		{"nothing at all", acp.ToolCallUpdate{}, "", "other:?", "every `other` call of the agent's tool in this workspace", safety.None},
	} {
		s := p.Subject(tc.tc)
		if s.Command != tc.command || s.Key != tc.key || s.Always != tc.always || s.Tier() != tc.tier {
			t.Errorf("%s: command %q key %q always %q tier %s; want %q %q %q %s", tc.name, s.Command, s.Key, s.Always, s.Tier(), tc.command, tc.key, tc.always, tc.tier)
		}
	}
}

// Rules match what runs: each command through its wrappers, in sh -c and the like
// (issue 12, case 2).
func TestRulesMatchTheParsedCommand(t *testing.T) {
	cmd := func(line string) acp.ToolCallUpdate {
		return execute(`{"command":`+jsonString(line)+`}`, "Bash", line)
	}
	for _, tc := range []struct {
		rules []Rule
		lines map[string]Action
	}{
		{[]Rule{{"execute:*git push*", ActionAsk}}, map[string]Action{
			"git push": ActionAsk, "git -C . push": ActionAsk, "git --no-pager push origin": ActionAsk, "env git push": ActionAsk,
			"timeout 60 git push": ActionAsk, "sh -c 'git push'": ActionAsk, "cd x && git push": ActionAsk, "git status": "",
		}},
		{[]Rule{{"execute:*", ActionAsk}, {"execute:git status", ActionAllow}}, map[string]Action{
			"git status": ActionAllow, "sudo git status": ActionAsk, "git status; rm -rf x": ActionAsk, "git status | sh": ActionAsk,
		}},
		{[]Rule{{"execute:curl *", ActionReject}, {"execute:timeout *", ActionAllow}}, map[string]Action{
			"timeout 5 curl http://x": ActionReject, "timeout 5 ls": ActionAllow, "curl -s x | jq .": ActionReject,
		}},
		{[]Rule{{"execute:cd src && make", ActionAllow}}, map[string]Action{ // a rule for a whole line
			"cd src && make": ActionAllow, "cd src && make install": "",
		}},
		{[]Rule{{"*", ActionAllow}, {"execute:rm *", ActionReject}}, map[string]Action{
			"ls": ActionAllow, "xargs rm -f": ActionReject, "find . -exec rm {} +": ActionReject,
		}},
	} {
		p := &Policy{Workspace: workspace, Rules: tc.rules}
		for line, want := range tc.lines {
			if got := p.configured(p.Subject(cmd(line))); got != want {
				t.Errorf("rules %v: %q is %q, want %q", tc.rules, line, got, want)
			}
		}
	}
}

func jsonString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// A critical command is asked about whatever allows it otherwise, and "always allow" is
// not offered for it.
func TestCriticalAlwaysAsks(t *testing.T) {
	critical := execute(`{"command":"rm -rf ~"}`, "Bash", "clean up")
	s := openStore(t, t.TempDir()+"/parley.db")
	p0 := &Policy{Workspace: workspace, Home: "/home/u"}
	if err := s.Remember(t.Context(), storeRule(p0.Subject(critical).Key)); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*Policy{
		"yolo":               {Workspace: workspace, Home: "/home/u", Yolo: true},
		"a configured allow": {Workspace: workspace, Home: "/home/u", Rules: []Rule{{"*", ActionAllow}}},
		"a remembered allow": {Workspace: workspace, Home: "/home/u", Store: s, Agent: agent},
	} {
		var offered []Answer
		p.Ask = func(_ context.Context, q *Question) (Answer, error) {
			offered = q.Answers
			return RejectOnce, nil
		}
		resp, _ := p.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: critical, Options: codexLike})
		if got := outcome(resp); got != "decline" || offered == nil {
			t.Errorf("%s: outcome %s, asked %v; want a question", name, got, offered != nil)
		}
		for _, a := range offered {
			if a == AllowAlways {
				t.Errorf("%s: always allow offered for a critical command", name)
			}
		}
		p.Ask = nil
		if resp, _ := p.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: critical, Options: codexLike}); outcome(resp) != "decline" {
			t.Errorf("%s, nobody to ask: %s, want a refusal", name, outcome(resp))
		}
	}
}

// Options that share an id are refused without asking (issue 12, case 7).
func TestDuplicateOptionIDs(t *testing.T) {
	p := &Policy{Yolo: true, Ask: func(context.Context, *Question) (Answer, error) {
		t.Error("asked about ambiguous options")
		return AllowOnce, nil
	}}
	for _, tc := range []struct {
		options []acp.PermissionOption
		want    string
	}{
		{[]acp.PermissionOption{opt("x", allowOnce, "Yes"), opt("x", rejectOnce, "No")}, "cancelled"},
		{[]acp.PermissionOption{opt("x", allowOnce, "Yes"), opt("x", rejectOnce, "No"), opt("n", rejectAlways, "Never")}, "n"},
		{[]acp.PermissionOption{opt("y", allowOnce, "Yes"), opt("y", allowAlways, "Always"), opt("n", rejectOnce, "No")}, "n"},
	} {
		resp, err := p.Decide(t.Context(), &acp.RequestPermissionRequest{ToolCall: goTest, Options: tc.options})
		if got := outcome(resp); got != tc.want || err == nil || !strings.Contains(err.Error(), "same id") {
			t.Errorf("%v: %s, %v; want %s and an error", ids(tc.options), got, err, tc.want)
		}
	}
}

// terminal/create obeys the rules, asks about critical commands, and is not asked about
// twice right after the user allowed the same command (issue 12, case 8).
func TestDecideTerminal(t *testing.T) {
	var asked []string
	p := &Policy{Workspace: workspace, Home: "/home/u", Yolo: true,
		Rules: []Rule{{"execute:cat *", ActionReject}, {"execute:*git push*", ActionAsk}},
		Ask: func(_ context.Context, q *Question) (Answer, error) {
			asked = append(asked, q.Subject.Command)
			return RejectOnce, nil
		}}
	decide := func(argv ...string) TerminalDecision {
		return p.DecideTerminal(t.Context(), "s1", argv, nil, "")
	}
	if d := decide("cat", "/etc/passwd"); d.Allowed || !strings.Contains(d.Reason, "rule") || len(asked) != 0 {
		t.Errorf("a rejected command: %+v, asked %q", d, asked)
	}
	if d := decide("ls", "-la"); !d.Allowed || d.Request != nil {
		t.Errorf("a command no rule names: %+v", d)
	}
	if d := decide("bash", "-lc", "rm -rf ~"); d.Allowed || len(asked) != 1 || d.Request == nil {
		t.Errorf("a critical command: %+v, asked %q", d, asked)
	}
	if d := decide("git", "-C", ".", "push"); d.Allowed || len(asked) != 2 {
		t.Errorf("an ask rule: %+v, asked %q", d, asked)
	}
	// Allowed through request_permission (as a line), then run as argv: asked once only.
	p.Ask = func(context.Context, *Question) (Answer, error) { return AllowOnce, nil }
	resp, _ := p.Decide(t.Context(), &acp.RequestPermissionRequest{SessionID: "s1", ToolCall: execute(`{"command":"git push origin main"}`, "Bash", ""), Options: codexLike})
	if outcome(resp) != "approved" {
		t.Fatalf("request_permission: %s", outcome(resp))
	}
	p.Ask = nil // nobody to ask: only the approval can let it run
	if d := p.DecideTerminal(t.Context(), "s2", []string{"git", "push", "origin", "main"}, nil, ""); d.Allowed {
		t.Error("another session used the approval")
	}
	if d := decide("bash", "-c", "git push origin main"); !d.Allowed {
		t.Errorf("the approved command: %+v", d)
	}
	if d := decide("git", "push", "origin", "main"); d.Allowed {
		t.Errorf("the approval was used twice: %+v", d)
	}
}

func storeRule(key string) store.Rule {
	return store.Rule{Agent: agent, Workspace: workspace, ToolKey: key, Decision: store.Allow}
}

func TestMatchKey(t *testing.T) {
	for _, tc := range []struct {
		pattern, key string
		want         bool
	}{
		{"*", "execute:go test", true},
		{"*", "", true},
		{"execute:*", "execute:go test", true},
		{"execute:*", "edit:Write", false},
		{"execute:go *", "execute:go test", true},
		{"execute:go *", "execute:go", false},
		{"execute:go*", "execute:gofmt", true},
		{"*:Write", "edit:Write", true},
		{"edit:Writ?", "edit:Write", true},
		{"edit:Write", "edit:Writer", false},
		{"edit:Write", "edit:write", false},
		{"execute:*rm*", "execute:cd x && rm -rf /", true},
		{"*/*", "execute:./bin/x", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"", "", true},
		{"", "x", false},
	} {
		if got := matchKey(tc.pattern, tc.key); got != tc.want {
			t.Errorf("matchKey(%q, %q) = %v, want %v", tc.pattern, tc.key, got, tc.want)
		}
	}
}
