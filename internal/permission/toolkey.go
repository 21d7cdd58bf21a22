package permission

import (
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// ToolKey is what an "always" decision remembers and what a configured rule matches: the
// tool call's kind, a colon, and what it acts with.
//
//   - For execute calls it is the command, so that "always allow go test" does not also
//     allow rm: the program and its first argument unless that is a flag ("execute:go
//     test", "execute:ls"). A command line with anything a shell would act on (; & | < >
//     $ ` ( ) quotes, globs, a VAR=value prefix, a newline) is kept whole, so that
//     "always allow cd src" never covers "cd src && rm -rf ~". The command comes from
//     rawInput.command (a string, or an argv array; "sh -c SCRIPT" counts as SCRIPT),
//     else from the title. Without either it is the tool's name.
//   - For every other kind it is the agent's tool name ("edit:Write", "fetch:WebFetch"),
//     else the first word of the title ("read:Read"): one decision covers that tool in
//     that workspace, as "always allow edits" does elsewhere.
//
// An absent kind is "other", as in ACP.
func ToolKey(tc acp.ToolCallUpdate) string {
	kind := string(tc.Kind)
	if kind == "" {
		kind = string(acp.ToolKindOther)
	}
	if tc.Kind == acp.ToolKindExecute {
		if cmd := commandLine(tc); cmd != "" {
			return kind + ":" + commandKey(cmd)
		}
	}
	if tc.Name != "" {
		return kind + ":" + tc.Name
	}
	if fields := strings.Fields(unquoteTitle(tc.Title)); len(fields) > 0 {
		return kind + ":" + fields[0]
	}
	return kind + ":?"
}

// commandLine returns the command an execute call runs, as one line.
func commandLine(tc acp.ToolCallUpdate) string {
	if raw := json.Member(tc.RawInput, "command"); raw != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return strings.TrimSpace(s)
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
			if script, ok := shellScript(argv); ok {
				return strings.TrimSpace(script)
			}
			return strings.Join(argv, " ")
		}
	}
	return strings.TrimSpace(unquoteTitle(tc.Title))
}

// shellScript returns SCRIPT for an argv of the form [sh -c SCRIPT] (also bash -lc and
// the like), the way codex-acp reports commands.
func shellScript(argv []string) (string, bool) {
	if len(argv) != 3 || !strings.HasPrefix(argv[1], "-") || !strings.HasSuffix(argv[1], "c") {
		return "", false
	}
	shell := argv[0][strings.LastIndexByte(argv[0], '/')+1:]
	switch shell {
	case "sh", "bash", "zsh", "dash", "ksh", "fish":
		return argv[2], true
	}
	return "", false
}

// shellSpecial are the characters that make a command line more than one simple command.
const shellSpecial = ";&|<>$`()\"'\\*?[]{}~!#\n\r"

func commandKey(cmd string) string {
	fields := strings.Fields(cmd)
	if strings.ContainsAny(cmd, shellSpecial) || strings.Contains(fields[0], "=") {
		return cmd
	}
	if len(fields) > 1 && !strings.HasPrefix(fields[1], "-") {
		return fields[0] + " " + fields[1]
	}
	return fields[0]
}

// unquoteTitle strips the backticks agents put around a command in a title.
func unquoteTitle(title string) string {
	title = strings.TrimSpace(title)
	if len(title) >= 2 && title[0] == '`' && title[len(title)-1] == '`' && strings.Count(title, "`") == 2 {
		return title[1 : len(title)-1]
	}
	return title
}

// matchKey reports whether pattern matches key as a whole. In a pattern, * matches any
// run of characters (slashes and colons included) and ? any one character; everything
// else matches itself.
func matchKey(pattern, key string) bool {
	p, k := []rune(pattern), []rune(key)
	// Iterative wildcard matching with one backtrack point: linear in practice.
	pi, ki, star, mark := 0, 0, -1, 0
	for ki < len(k) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == k[ki]):
			pi++
			ki++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ki
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ki = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
