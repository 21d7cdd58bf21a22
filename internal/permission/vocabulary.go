package permission

import (
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/xdg"
)

// The words every part of parley that asks permission shares — the client host's Policy
// (parley run and chat, the web chat), parley vscodelm, and parley agent's approvals —
// so that a command is judged, remembered and described the same way wherever it is
// asked about, and `parley permissions` lists what any of them remembered in one
// language.

// JudgeCommand judges a command for a permission decision: argv when it is given (an
// argument vector, run without a shell), else line. The context's Protected directories
// are always parley's own (a command that writes them is critical, wherever it runs).
func JudgeCommand(line string, argv []string, c safety.Context) *safety.Analysis {
	c.Protected = xdg.OwnDirs()
	if argv != nil {
		return safety.AnalyzeArgv(argv, c)
	}
	return safety.Analyze(line, c)
}

// CommandKey is what a decision about a command is remembered under: "execute:" and the
// command's shape (safety.Shape), so "always" covers the same command, never a program.
func CommandKey(a *safety.Analysis) string { return "execute:" + a.Shape().Key() }

// CommandCovers says in words what an "always" about the command covers.
func CommandCovers(a *safety.Analysis) string { return a.Shape().Describe() }

// EditKey is what a decision about edits of one file (relative to the workspace) is
// remembered under, and EditCovers says it in words.
func EditKey(rel string) string    { return "edit:" + rel }
func EditCovers(rel string) string { return "edits of " + rel }

// MCPKey is what a decision about one tool of an MCP server is remembered under.
func MCPKey(tool string) string { return "mcp:" + tool }

// RiskText is a command's risk as a question shows it: "Risk: medium: deletes build.log".
func RiskText(t safety.Tier, reason string) string {
	if reason == "" {
		return "Risk: " + t.String()
	}
	return "Risk: " + t.String() + ": " + reason
}

// AlwaysCovers is the line a question shows about what its "always" answers cover, in
// the words of the answers it offers: "always covers: …" with "allow always", "reject
// always covers: …" where only "reject always" is offered (a critical command, or one
// that runs code the agent can change), nothing where neither is.
func AlwaysCovers(s Subject, allowAlways, rejectAlways bool) string {
	switch {
	case s.Always == "":
		return ""
	case allowAlways:
		return "always covers: " + s.Always
	case rejectAlways:
		return "reject always covers: " + s.Always
	}
	return ""
}

// WhileConfinedCovers is the line a question shows about what "allow while confined"
// covers, where it is offered (see AllowWhileConfined), "" elsewhere.
func WhileConfinedCovers(s Subject, offered bool) string {
	if !offered || s.Always == "" {
		return ""
	}
	return "allow while confined covers: " + s.Always + " (this session, while confined)"
}
