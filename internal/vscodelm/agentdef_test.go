package vscodelm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-acp/parley/internal/json"
)

func TestParseAgent(t *testing.T) {
	stdio := AgentKey{Kind: AgentStdio, Command: "/bin/parley", args: `["eliza","--x"]`, env: `["A=1","B=2"]`}
	for _, tt := range []struct {
		name, in string
		want     AgentDef
	}{
		{"eliza tagged", `{"eliza":{"deterministic":true}}`, AgentDef{Key: AgentKey{Kind: AgentEliza, Deterministic: true}, Name: "Eliza"}},
		{"eliza default", `{"eliza":{}}`, AgentDef{Key: AgentKey{Kind: AgentEliza}, Name: "Eliza"}},
		{"mcp_server tagged", `{"mcp_server":{"name":"p","command":"/bin/parley","args":["eliza","--x"],"env":[{"name":"B","value":"2"},{"name":"A","value":"1"}]}}`,
			AgentDef{Key: stdio, Name: "p"}},
		{"flat", `{"id":"elizacp","name":"ElizACP","command":"/bin/parley","args":["eliza","--x"],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}`,
			AgentDef{Key: stdio, ID: "elizacp", Name: "ElizACP"}},
		{"flat explicit stdio", ` {"type":"stdio","name":"n","command":"/bin/parley","args":["eliza","--x"],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}`,
			AgentDef{Key: stdio, Name: "n"}},
		{"flat without args and env", `{"command":"/bin/agent"}`, AgentDef{Key: AgentKey{Kind: AgentStdio, Command: "/bin/agent"}}},
		{"eliza with labels", `{"id":"x","name":"X","eliza":{"deterministic":true}}`,
			AgentDef{Key: AgentKey{Kind: AgentEliza, Deterministic: true}, ID: "x", Name: "X"}},
		{"mcp_server with labels", `{"id":"y","mcp_server":{"name":"p","command":"/bin/parley","args":["eliza","--x"],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},"color":7}`,
			AgentDef{Key: stdio, ID: "y", Name: "p"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAgent(json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(AgentKey{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseAgentShapesShareAKey(t *testing.T) {
	tagged, err1 := ParseAgent(json.RawMessage(`{"mcp_server":{"name":"x","command":"/a","args":["1","2"],"env":[]}}`))
	flat, err2 := ParseAgent(json.RawMessage(`{"id":"y","name":"z","command":"/a","args":["1","2"]}`))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if tagged.Key != flat.Key {
		t.Errorf("tagged key %v != flat key %v", tagged.Key, flat.Key)
	}
	if diff := cmp.Diff([]string{"1", "2"}, flat.Key.Args()); diff != "" {
		t.Errorf("Args (-want +got):\n%s", diff)
	}
	other, _ := ParseAgent(json.RawMessage(`{"command":"/a","args":["2","1"]}`))
	if other.Key == flat.Key {
		t.Error("argument order is not part of the key")
	}
}

func TestAgentLabel(t *testing.T) {
	for in, want := range map[string]string{
		`{"id":"x","name":"X","eliza":{}}`:           "x",
		`{"eliza":{}}`:                               "eliza",
		`{"name":"Mine","command":"/opt/bin/agent"}`: "Mine",
		`{"command":"/opt/bin/agent"}`:               "agent",
	} {
		def, err := ParseAgent(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := def.Label(); got != want {
			t.Errorf("%s: label %q, want %q", in, got, want)
		}
	}
}

func TestParseAgentErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"missing", ``, "missing"},
		{"null", `null`, "missing"},
		{"unit variant", `"claude_code"`, `"claude_code" is not supported`},
		{"number", `42`, "want an object"},
		{"array", `[]`, "want an object"},
		{"empty object", `{}`, "unrecognised members"},
		{"unknown tag", `{"gpt":{}}`, "unrecognised members gpt"},
		{"http flat", `{"type":"http","name":"h","url":"http://x","headers":[],"command":"/a"}`, `not "http"`},
		{"sse tagged", `{"mcp_server":{"type":"sse","name":"h","url":"http://x","headers":[]}}`, `not "sse"`},
		{"empty command", `{"command":""}`, "empty command"},
		{"bad args", `{"command":"/a","args":"x"}`, "args"},
		{"eliza not object", `{"eliza":true}`, "eliza: want an object"},
		{"malformed", `{"command":`, "malformed"},
		{"two variants", `{"eliza":{},"mcp_server":{"command":"/a"}}`, "both eliza and mcp_server"},
		{"variant and command", `{"eliza":{},"command":"/a"}`, "both eliza and command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAgent(json.RawMessage(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalidParams) {
				t.Errorf("error %v does not wrap ErrInvalidParams", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || !strings.Contains(msg, "accepted shapes") {
				t.Errorf("error %q does not name %q and the accepted shapes", msg, tt.want)
			}
		})
	}
}
