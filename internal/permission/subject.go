package permission

import (
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/safety"
)

// Subject is what a permission request is about, as parley judges it: for an execute
// call, the command that will run (from the call's rawInput, never only its title) and
// how risky it is; the key rules and remembered decisions use; and what an "always"
// answer would cover, in words.
type Subject struct {
	Kind acp.ToolKind
	// Command is the command line the call runs, as one shell line; "" when the agent
	// did not say (then only its title tells).
	Command string
	// Analysis judges Command; nil without one.
	Analysis *safety.Analysis
	// Key is what a decision about the call is remembered under: "execute:" and the
	// command's shape for commands (see safety.Shape), kind:tool otherwise (ToolKey).
	Key string
	// Always says what an "always" answer covers; "" when none is offered (a critical
	// command can only be rejected for always; a command the agent did not show, not
	// at all).
	Always string
	// NoAlwaysAllow is set when "allow always" is not offered, and a remembered allow
	// does not count: critical commands always ask, and a command that runs code from
	// files the agent can change (a script, a makefile, the project's tests) may run
	// other code next time with the same words.
	NoAlwaysAllow bool
}

// RunsEditableCode reports whether the command runs code from files the agent can
// change (see safety.Analysis.CodeFiles).
func (s Subject) RunsEditableCode() bool { return s.Analysis != nil && len(s.Analysis.CodeFiles) > 0 }

// Tier is the command's tier (None for a call that is not a command).
func (s Subject) Tier() safety.Tier {
	if s.Analysis == nil {
		return safety.None
	}
	return s.Analysis.Tier
}

// Critical reports whether the call runs a critical command: it is always asked about.
func (s Subject) Critical() bool { return s.Tier() == safety.Critical }

// Subject judges a tool call.
func (p *Policy) Subject(tc acp.ToolCallUpdate) Subject {
	s := Subject{Kind: tc.Kind}
	if s.Kind == "" {
		s.Kind = acp.ToolKindOther
	}
	if s.Kind != acp.ToolKindExecute {
		s.Key = ToolKey(tc)
		s.Always = "every `" + string(s.Kind) + "` call of the agent's " + toolName(s.Key) + " in this workspace"
		return s
	}
	argv, line, dir := commandOf(tc)
	switch {
	case argv != nil || line != "":
		s.Analysis = JudgeCommand(line, argv, p.context(dir))
	default:
		// The agent did not say what it runs. A title that reads as a command is
		// judged (a critical one still always asks) but is not shown as what runs,
		// and nothing about it is remembered; a title in words ("Delete the build
		// directory") is not a command: judged, it would be a program named Delete.
		if title, ok := commandInTitle(tc.Title); ok {
			s.Analysis = JudgeCommand(title, nil, p.context(dir))
		}
		s.Key = ToolKey(tc)
		return s
	}
	s.Command = s.Analysis.Line
	s.Key = CommandKey(s.Analysis)
	s.Always = CommandCovers(s.Analysis)
	s.NoAlwaysAllow = s.Critical() || s.RunsEditableCode()
	return s
}

// context is where a command runs, for the classifier: dir ("" for the first root) in
// the workspace.
func (p *Policy) context(dir string) safety.Context {
	roots := p.Roots
	if len(roots) == 0 && p.Workspace != "" {
		roots = []string{p.Workspace}
	}
	if dir != "" && !filepath.IsAbs(dir) {
		dir = ""
	}
	return safety.Context{Workspace: roots, Dir: dir, Home: p.Home}
}

// commandOf returns what an execute call runs: rawInput.command as an argument vector
// (codex's ["bash", "-lc", "..."]) or as a line, else nothing; and rawInput.cwd.
func commandOf(tc acp.ToolCallUpdate) (argv []string, line, dir string) {
	if raw := json.Member(tc.RawInput, "cwd"); raw != nil {
		json.Unmarshal(raw, &dir)
	}
	raw := json.Member(tc.RawInput, "command")
	if raw == nil {
		return nil, "", dir
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return nil, strings.TrimSpace(s), dir
	}
	if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		return argv, "", dir
	}
	return nil, "", dir
}

// toolName names the tool of a kind:name key for a sentence.
func toolName(key string) string {
	_, name, _ := strings.Cut(key, ":")
	if name == "" || name == "?" {
		return "tool"
	}
	return "`" + name + "` tool"
}

// ToolKey is the key of a call that is not a command (or a command the agent did not
// show): its kind, a colon, and the agent's tool name ("edit:Write", "fetch:WebFetch"),
// else the first word of the title ("read:Read"), else "?". An "always" about it
// covers that tool in that workspace. An absent kind is "other", as in ACP.
func ToolKey(tc acp.ToolCallUpdate) string {
	kind := string(tc.Kind)
	if kind == "" {
		kind = string(acp.ToolKindOther)
	}
	if tc.Kind == acp.ToolKindExecute {
		if title := unquoteTitle(tc.Title); title != "" {
			return kind + ":" + title
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

// commandInTitle is the command a title reads as: one in backticks ("`rm -rf /`"), or
// a title whose first word does not start with a capital letter ("rm -rf build",
// "/bin/rm x"); a sentence ("Delete the build directory", "Run tests") is none. Program
// names are lower case; an agent's prose title starts as a sentence does.
func commandInTitle(title string) (string, bool) {
	title = strings.TrimSpace(title)
	if inner := unquoteTitle(title); inner != title {
		return inner, strings.TrimSpace(inner) != ""
	}
	r, _ := utf8.DecodeRuneInString(title)
	if title == "" || unicode.IsUpper(r) {
		return "", false
	}
	return title, true
}

// unquoteTitle strips the backticks agents put around a command in a title.
func unquoteTitle(title string) string {
	title = strings.TrimSpace(title)
	if len(title) >= 2 && title[0] == '`' && title[len(title)-1] == '`' && strings.Count(title, "`") == 2 {
		return title[1 : len(title)-1]
	}
	return title
}
