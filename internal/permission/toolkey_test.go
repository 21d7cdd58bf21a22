package permission

import (
	"testing"

	"github.com/parley-acp/parley/acp"
)

func TestToolKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		tc   acp.ToolCallUpdate
		want string
	}{
		{"named tool", acp.ToolCallUpdate{Kind: acp.ToolKindEdit, Name: "Write", Title: "Write /w/main.go"}, "edit:Write"},
		{"title's first word without a name", acp.ToolCallUpdate{Kind: acp.ToolKindRead, Title: "Read /w/go.mod"}, "read:Read"},
		{"no kind is other", acp.ToolCallUpdate{Title: "Think hard"}, "other:Think"},
		{"nothing at all", acp.ToolCallUpdate{}, "other:?"},
		{"command string: program and subcommand", execute(`{"command":"go test ./..."}`, "Bash", ""), "execute:go test"},
		{"a flag is not a subcommand", execute(`{"command":"ls -la"}`, "Bash", ""), "execute:ls"},
		{"a lone program", execute(`{"command":"  make "}`, "", ""), "execute:make"},
		{"argv", execute(`{"command":["git","status","--short"]}`, "", ""), "execute:git status"},
		{"sh -c script", execute(`{"command":["/bin/bash","-lc","go vet ./..."]}`, "", ""), "execute:go vet"},
		{"a chain is kept whole", execute(`{"command":"cd src && rm -rf ~"}`, "Bash", ""), "execute:cd src && rm -rf ~"},
		{"a chain inside sh -c", execute(`{"command":["bash","-lc","cd src; make"]}`, "", ""), "execute:cd src; make"},
		{"a pipe", execute(`{"command":"cat x | sh"}`, "", ""), "execute:cat x | sh"},
		{"a substitution", execute(`{"command":"echo $(id)"}`, "", ""), "execute:echo $(id)"},
		{"an env prefix", execute(`{"command":"GOFLAGS=-x go test"}`, "", ""), "execute:GOFLAGS=-x go test"},
		{"a glob", execute(`{"command":"rm *.go"}`, "", ""), "execute:rm *.go"},
		{"the title when there is no rawInput", execute(``, "Bash", "`go build ./...`"), "execute:go build"},
		{"the name when there is no command at all", execute(`{"timeout":5}`, "Bash", ""), "execute:Bash"},
		{"a program path is kept as is", execute(`{"command":"./go test"}`, "", ""), "execute:./go test"},
	} {
		if got := ToolKey(tc.tc); got != tc.want {
			t.Errorf("%s: ToolKey = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func execute(rawInput, name, title string) acp.ToolCallUpdate {
	tc := acp.ToolCallUpdate{ToolCallID: "call_1", Kind: acp.ToolKindExecute, Name: name, Title: title}
	if rawInput != "" {
		tc.RawInput = []byte(rawInput)
	}
	return tc
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
