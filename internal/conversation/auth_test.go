package conversation

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// TestAuthMethodsInEveryForm: ACP's agent and terminal methods, the older
// _meta["terminal-auth"] and environment variable forms, and a kind parley cannot carry
// out (left out).
func TestAuthMethodsInEveryForm(t *testing.T) {
	var init acp.InitializeResponse
	err := json.Unmarshal([]byte(`{"protocolVersion":1,"authMethods":[
		{"id":"agent","name":"Sign in"},
		{"id":"tui","name":"Terminal","type":"terminal","args":["--login"],"env":{"B":"2","A":"1"}},
		{"id":"old","name":"Old","_meta":{"terminal-auth":{"command":"claude","args":["/login"],"label":"Claude"}}},
		{"id":"key","name":"Key","type":"env_var","vars":[{"name":"K"},{"name":"L","secret":false,"optional":true}],"link":"https://x"},
		{"id":"bad","name":"Bad","type":"env_var","vars":[{"name":"A=B"}]},
		{"id":"future","name":"Future","type":"_quantum"},
		{"id":"tui","name":"Duplicate"}]}`), &init)
	if err != nil {
		t.Fatal(err)
	}
	got := authMethods([]string{"agent-cmd", "--acp"}, "/work", init.AuthMethods)
	want := []AuthMethod{
		{ID: "agent", Name: "Sign in", Kind: AuthAgent},
		{ID: "tui", Name: "Terminal", Kind: AuthTerminal, Command: []string{"agent-cmd", "--acp", "--login"}, EnvNames: []string{"A", "B"}},
		{ID: "old", Name: "Old", Kind: AuthTerminal, Command: []string{"claude", "/login"}},
		{ID: "key", Name: "Key", Kind: AuthEnvVar, Link: "https://x", Vars: []AuthVar{{Name: "K", Secret: true}, {Name: "L", Optional: true}}},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(AuthMethod{}, "Run")); diff != "" {
		t.Errorf("methods (-want +got):\n%s", diff)
	}
	runs := []TerminalRun{
		{Program: "agent-cmd", Args: []string{"--acp", "--login"}, Env: []string{"A=1", "B=2"}, Dir: "/work"},
		{Program: "claude", Args: []string{"/login"}, Dir: "/work", Named: true},
	}
	for i, m := range []AuthMethod{got[1], got[2]} {
		if m.Run == nil {
			t.Fatalf("%s has no Run", m.ID)
		}
		if diff := cmp.Diff(runs[i], *m.Run, cmpopts.IgnoreFields(TerminalRun{}, "Path")); diff != "" {
			t.Errorf("%s runs (-want +got):\n%s", m.ID, diff)
		}
	}
}

// TestSignInRefusesVariablesThatRunCode: a terminal method (either form) that sets one of
// safety.CodeVariable's variables, in any case, or a name that is not one, is refused
// with the variable named; so is an environment variable method asking for one. A
// harmless one is not.
func TestSignInRefusesVariablesThatRunCode(t *testing.T) {
	for _, name := range []string{"BASH_ENV", "ENV", "PROMPT_COMMAND", "BASH_FUNC_ls%%", "SHELLOPTS", "BASHOPTS", "PS4",
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_FRAMEWORK_PATH", "NODE_OPTIONS", "NODE_PATH",
		"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
		"GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_ASKPASS", "GIT_CONFIG_COUNT",
		"GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "EDITOR", "VISUAL", "PAGER", "IFS", "PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
		"ZDOTDIR", "bash_env", "A=B"} {
		env, _ := json.Marshal(map[string]string{name: "/home/u/x", "HARMLESS": "1"})
		var init acp.InitializeResponse
		err := json.Unmarshal([]byte(`{"protocolVersion":1,"authMethods":[
			{"id":"std","name":"Std","type":"terminal","args":["--login"],"env":`+string(env)+`},
			{"id":"old","name":"Old","_meta":{"terminal-auth":{"command":"bash","args":["-c","true"],"env":`+string(env)+`}}},
			{"id":"key","name":"Key","type":"env_var","vars":[{"name":"HARMLESS"},{"name":`+strconv.Quote(name)+`}]}]}`), &init)
		if err != nil {
			t.Fatal(err)
		}
		got := authMethods([]string{"agent"}, "", init.AuthMethods)
		if name == "A=B" {
			got = got[:2] // the older variable form leaves out a method with such a name
		}
		for _, m := range got {
			if !strings.Contains(m.Refused, visible(name)) && !strings.Contains(m.Refused, quoteArg(name)) {
				t.Errorf("%s with %s: refused %q", m.ID, name, m.Refused)
			}
		}
	}
	var init acp.InitializeResponse
	json.Unmarshal([]byte(`{"protocolVersion":1,"authMethods":[{"id":"std","name":"Std","type":"terminal","env":{"FAKE_LOGIN_MODE":"tty","LANG":"C"}}]}`), &init)
	if got := authMethods([]string{"agent"}, "", init.AuthMethods); got[0].Refused != "" {
		t.Errorf("a harmless variable: refused %q", got[0].Refused)
	}
}

// TestTerminalRunShowsEverything: every argument, variable and the directory, a control,
// invisible or line-breaking character made visible, an argument's spaces in quotes.
func TestTerminalRunShowsEverything(t *testing.T) {
	r := TerminalRun{Program: "bash", Path: "/usr/bin/bash", Args: []string{"-c", "echo hi\nrm -rf ~ \x1b[2K", "", " trailing "},
		Env: []string{"MODE=a b", "RLO=\u202eexe"}, Dir: "/srv/my dir", Named: true}
	want := []string{
		"program:   bash  (/usr/bin/bash)  — named by the agent",
		"arguments: -c 'echo hi⏎rm -rf ~ ␛[2K' '' ' trailing '",
		"variables: MODE='a b' RLO='<U+202E>exe'",
		"directory: '/srv/my dir'",
	}
	if diff := cmp.Diff(want, r.Lines()); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if got := r.Line(); got != "MODE='a b' RLO='<U+202E>exe' bash -c 'echo hi⏎rm -rf ~ ␛[2K' '' ' trailing '" {
		t.Errorf("line %q", got)
	}
	cmd := r.command([]string{"CONFIGURED=1"})
	if cmd.Path != "/usr/bin/bash" || strings.Join(cmd.Args, "|") != "bash|-c|echo hi\nrm -rf ~ \x1b[2K|| trailing " || cmd.Dir != "/srv/my dir" {
		t.Errorf("runs %s %q in %s", cmd.Path, cmd.Args, cmd.Dir)
	}
	if env := strings.Join(cmd.Env, "\n"); !strings.HasSuffix(env, "CONFIGURED=1\nMODE=a b\nRLO=\u202eexe") {
		t.Errorf("env ends %q", env[max(0, len(env)-60):])
	}
}

func TestEnvForNamesWhatIsMissingNeverAValue(t *testing.T) {
	m := AuthMethod{Kind: AuthEnvVar, Vars: []AuthVar{{Name: "PARLEY_TEST_K1"}, {Name: "PARLEY_TEST_K2"}, {Name: "PARLEY_TEST_K3", Optional: true}}}
	_, err := envFor(m, map[string]string{"PARLEY_TEST_K1": "v1"}, nil)
	if err == nil || !strings.Contains(err.Error(), "PARLEY_TEST_K2") || strings.Contains(err.Error(), "v1") || strings.Contains(err.Error(), "K3") {
		t.Errorf("error %v", err)
	}
	env, err := envFor(m, map[string]string{"PARLEY_TEST_K1": "v1"}, []string{"PARLEY_TEST_K2=v2"})
	if err != nil || strings.Join(env, " ") != "PARLEY_TEST_K1=v1 PARLEY_TEST_K2=v2" {
		t.Errorf("env %v, %v", env, err)
	}
}

// TestSettings: every option type and category, groups flattened with their names, an
// option of an unknown type left out, the legacy models listed only without a model
// option; CheckSetting lists what would do.
func TestSettings(t *testing.T) {
	var resp acp.NewSessionResponse
	err := json.Unmarshal([]byte(`{"sessionId":"s","configOptions":[
		{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"a","options":[{"value":"a","name":"A"},{"value":"b","name":"B"}]},
		{"id":"effort","name":"Effort","category":"thought_level","type":"select","currentValue":"lo","options":[{"group":"g","name":"Group","options":[{"value":"lo","name":"Low"},{"value":"hi","name":"High"}]}]},
		{"id":"fast","name":"Fast","type":"boolean","currentValue":true},
		{"id":"vol","name":"Volume","type":"slider","currentValue":3}],
		"models":{"currentModelId":"m1","availableModels":[{"modelId":"m1","name":"M1"}]},
		"modes":{"currentModeId":"a","availableModes":[{"id":"a","name":"A"}]}}`), &resp)
	if err != nil {
		t.Fatal(err)
	}
	s := Session{Config: resp.ConfigOptions, Models: resp.Models, Modes: resp.Modes}
	var ids []string
	for _, st := range s.Settings() {
		ids = append(ids, st.ID+"="+st.Current)
	}
	if diff := cmp.Diff([]string{"mode=a", "effort=lo", "fast=true", "model=m1"}, ids); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	effort, _ := s.Setting("effort")
	if effort.Values[1].Group != "Group" || effort.Category != acp.SessionConfigOptionCategoryThoughtLevel {
		t.Errorf("effort %+v", effort)
	}
	for _, tc := range []struct{ id, value, err string }{
		{"vol", "4", "mode, effort, fast, model"},
		{"effort", "mid", "lo, hi"},
		{"fast", "perhaps", "true, false"},
	} {
		if _, _, err := s.CheckSetting(tc.id, tc.value); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s=%s: %v", tc.id, tc.value, err)
		}
	}
	if _, v, err := s.CheckSetting("fast", "off"); err != nil || v != "false" {
		t.Errorf("fast=off: %q %v", v, err)
	}
}

// A terminal sign-in's command line quotes, as a shell would need, a single quote, a $
// and a leading assignment, after making every character visible (a newline shows as ⏎,
// not as $'\n'; a word that is then plain stays unquoted).
func TestTerminalRunQuotesAwkwardWords(t *testing.T) {
	r := TerminalRun{Program: "login-tool", Path: "login-tool", Args: []string{"it's", "$HOME", "`id`", "a\nb"}, Env: []string{"K=it's $X"}, Dir: "/srv"}
	if got, want := r.Line(), `K="it's \$X" login-tool "it's" '$HOME' '`+"`id`"+`' a⏎b`; got != want {
		t.Errorf("line %s, want %s", got, want)
	}
	if got, want := quoteLine([]string{"A=b", "c"}), "'A=b' c"; got != want {
		t.Errorf("quoteLine = %s, want %s (a leading NAME=value would be an assignment)", got, want)
	}
	if got, want := quoteArgs([]string{"A=b", "c"}), "A=b c"; got != want {
		t.Errorf("quoteArgs = %s, want %s (an argument is no assignment)", got, want)
	}
}
