package conversation

import (
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
	got := authMethods([]string{"agent-cmd", "--acp"}, init.AuthMethods)
	want := []AuthMethod{
		{ID: "agent", Name: "Sign in", Kind: AuthAgent},
		{ID: "tui", Name: "Terminal", Kind: AuthTerminal, Command: []string{"agent-cmd", "--acp", "--login"}, EnvNames: []string{"A", "B"}},
		{ID: "old", Name: "Old", Kind: AuthTerminal, Command: []string{"claude", "/login"}},
		{ID: "key", Name: "Key", Kind: AuthEnvVar, Link: "https://x", Vars: []AuthVar{{Name: "K", Secret: true}, {Name: "L", Optional: true}}},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(AuthMethod{})); diff != "" {
		t.Errorf("methods (-want +got):\n%s", diff)
	}
	if got[1].command != "agent-cmd" || strings.Join(got[1].args, " ") != "--acp --login" {
		t.Errorf("the terminal method runs %s %v", got[1].command, got[1].args)
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
