package toolstate

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// tenses is a verb in its two forms, "Reading" and "Read".
type tenses struct{ present, past string }

// kindVerbs says what a call of each kind is doing.
var kindVerbs = map[acp.ToolKind]tenses{
	acp.ToolKindRead:       {"Reading", "Read"},
	acp.ToolKindEdit:       {"Editing", "Edited"},
	acp.ToolKindDelete:     {"Deleting", "Deleted"},
	acp.ToolKindMove:       {"Moving", "Moved"},
	acp.ToolKindSearch:     {"Searching for", "Searched for"},
	acp.ToolKindExecute:    {"Running", "Ran"},
	acp.ToolKindThink:      {"Thinking", "Thought"},
	acp.ToolKindFetch:      {"Fetching", "Fetched"},
	acp.ToolKindSwitchMode: {"Switching mode", "Switched mode"},
	acp.ToolKindOther:      {"Running", "Ran"},
}

// titleVerbs turns an agent's title into both tenses when it starts with one of these
// verbs, in the imperative ("Run tests") or the present participle ("Running tests").
var titleVerbs = sync.OnceValue(func() map[string]tenses {
	m := map[string]tenses{}
	for _, v := range []struct{ base, present, past string }{
		{"add", "adding", "added"}, {"analyze", "analyzing", "analyzed"},
		{"apply", "applying", "applied"}, {"browse", "browsing", "browsed"},
		{"build", "building", "built"}, {"cache", "caching", "cached"},
		{"check", "checking", "checked"}, {"copy", "copying", "copied"},
		{"create", "creating", "created"}, {"delete", "deleting", "deleted"},
		{"download", "downloading", "downloaded"}, {"edit", "editing", "edited"},
		{"execute", "executing", "executed"}, {"fetch", "fetching", "fetched"},
		{"find", "finding", "found"}, {"get", "getting", "got"},
		{"install", "installing", "installed"}, {"list", "listing", "listed"},
		{"load", "loading", "loaded"}, {"make", "making", "made"},
		{"modify", "modifying", "modified"}, {"move", "moving", "moved"},
		{"open", "opening", "opened"}, {"read", "reading", "read"},
		{"remove", "removing", "removed"}, {"rename", "renaming", "renamed"},
		{"replace", "replacing", "replaced"}, {"run", "running", "ran"},
		{"save", "saving", "saved"}, {"search", "searching", "searched"},
		{"test", "testing", "tested"}, {"update", "updating", "updated"},
		{"view", "viewing", "viewed"}, {"write", "writing", "wrote"},
	} {
		m[v.base] = tenses{v.present, v.past}
		m[v.present] = tenses{v.present, v.past}
	}
	return m
})

// messages derives the present and past tense messages of a call. A terse title (empty,
// one word, or just the command or path) is replaced by the kind's verb and the call's
// subject: "Reading `main.go`". A descriptive title is kept for the present tense (its
// leading verb put in the present participle); the past tense comes from the kind and
// subject when both are known, else from the title. An edit's past tense ends with its
// size in lines.
func messages(tc *ToolCall, root string) (present, past string) {
	verbs := kindVerbs[tc.Kind]
	subject, names := subject(tc, root)
	title := strings.TrimSpace(tc.Title)
	terse := isTerse(title, tc, names)
	if terse {
		if subject == "" {
			subject = fallbackObject(tc, title)
		}
		present, past = join(verbs.present, subject), join(verbs.past, subject)
	} else {
		present, past = title, strings.TrimRight(title, ".…? ")
		if t, ok := retense(title); ok {
			present, past = t.present, t.past
		}
		if subject != "" && tc.Kind != acp.ToolKindOther && tc.Kind != acp.ToolKindThink {
			past = join(verbs.past, subject)
		}
	}
	if len(tc.Diffs) > 0 {
		if len(tc.Diffs) == 1 && tc.Diffs[0].IsNew && tc.Kind == acp.ToolKindEdit && terse {
			past = join("Created", subject)
		}
		past += " " + diffSummary(tc.Diffs)
	}
	return OneLine(present), OneLine(past)
}

func join(verb, object string) string {
	if object == "" {
		return verb
	}
	return verb + " " + object
}

// isTerse reports whether a title says too little to show: empty, a single word ("Read",
// "Bash"), or nothing but the call's subject, perhaps after a verb ("Edit `/abs/a.go`").
func isTerse(title string, tc *ToolCall, names []string) bool {
	if title == "" || !strings.ContainsAny(title, " \t") {
		return true
	}
	names = append(names, tc.TerminalCommand, tc.ToolName)
	isName := func(s string) bool {
		s = strings.Trim(strings.TrimSpace(s), "`")
		return s != "" && slices.Contains(names, s)
	}
	if isName(title) {
		return true
	}
	verb, rest, _ := strings.Cut(title, " ")
	_, ok := titleVerbs()[strings.ToLower(verb)]
	return ok && isName(rest)
}

// fallbackObject names a call that has no subject: its tool name in code, unless that
// only repeats the kind or its verb.
func fallbackObject(tc *ToolCall, title string) string {
	name := title
	if name == "" {
		name = tc.ToolName
	}
	switch strings.ToLower(name) {
	case "", string(tc.Kind), strings.ToLower(kindVerbs[tc.Kind].past), strings.ToLower(kindVerbs[tc.Kind].present):
		if tc.Kind == acp.ToolKindOther {
			return "a tool"
		}
		return ""
	}
	if _, ok := titleVerbs()[strings.ToLower(name)]; ok && tc.Kind != acp.ToolKindOther {
		return ""
	}
	return Code(name)
}

// subject is what a call works on, formatted for a message ("`main.go`", "3 files"), and
// the plain names of it a title may use (the path as sent and as shown, the command).
func subject(tc *ToolCall, root string) (formatted string, names []string) {
	path := func(p string) (string, []string) {
		rel := displayPath(p, root)
		return Code(rel), []string{p, rel}
	}
	switch tc.Kind {
	case acp.ToolKindExecute:
		if tc.TerminalCommand != "" {
			return Code(OneLine(tc.TerminalCommand)), []string{tc.TerminalCommand}
		}
	case acp.ToolKindRead, acp.ToolKindEdit, acp.ToolKindDelete:
		if paths := diffPaths(tc.Diffs); len(paths) > 1 {
			return fmt.Sprintf("%d files", len(paths)), nil
		}
		if p := firstPath(tc); p != "" {
			return path(p)
		}
	case acp.ToolKindMove:
		from := inputString(tc.RawInput, "source", "from", "old_path", "oldPath", "src")
		to := inputString(tc.RawInput, "destination", "to", "new_path", "newPath", "dest", "dst")
		if from != "" && to != "" {
			return Code(displayPath(from, root)) + " to " + Code(displayPath(to, root)), nil
		}
		if p := firstPath(tc); p != "" {
			return path(p)
		}
	case acp.ToolKindSearch:
		if q := inputString(tc.RawInput, "pattern", "query", "regex", "glob", "q"); q != "" {
			return Code(OneLine(q)), []string{q}
		}
	case acp.ToolKindFetch:
		if u := inputString(tc.RawInput, "url", "uri", "query"); u != "" {
			return Code(OneLine(u)), []string{u}
		}
	}
	return "", nil
}

func diffPaths(diffs []Diff) []string {
	var paths []string
	for _, d := range diffs {
		if !slices.Contains(paths, d.Path) {
			paths = append(paths, d.Path)
		}
	}
	return paths
}

// firstPath is the file a call works on: its first diff, its first location, or a path
// in its raw input.
func firstPath(tc *ToolCall) string {
	if len(tc.Diffs) > 0 {
		return tc.Diffs[0].Path
	}
	if len(tc.Locations) > 0 {
		return tc.Locations[0].Path
	}
	return inputString(tc.RawInput, "path", "file_path", "filePath", "file", "filename", "target_file", "abs_path")
}

// inputString returns the first of the named members of rawInput that is a non-empty string.
func inputString(raw json.RawMessage, names ...string) string {
	if len(raw) == 0 || raw[0] != '{' {
		return ""
	}
	for _, name := range names {
		v := json.Member(raw, name)
		if len(v) == 0 || v[0] != '"' {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// displayPath shortens a path inside the session's root to a relative one.
func displayPath(p, root string) string {
	if root == "" || !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}

// retense puts a title's leading verb in both tenses, keeping its capitalisation.
func retense(title string) (tenses, bool) {
	word, rest, _ := strings.Cut(title, " ")
	v, ok := titleVerbs()[strings.ToLower(word)]
	if !ok {
		return tenses{}, false
	}
	if r, _ := utf8.DecodeRuneInString(word); unicode.IsUpper(r) {
		v.present, v.past = capitalize(v.present), capitalize(v.past)
	}
	rest = strings.TrimRight(" "+rest, ".…? ")
	return tenses{v.present + rest, v.past + rest}, true
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// diffSummary is the size of some edits in lines: "(+3 −1)", or "(+12)" for new files.
func diffSummary(diffs []Diff) string {
	added, removed, allNew := 0, 0, true
	for _, d := range diffs {
		added += d.Added
		removed += d.Removed
		allNew = allNew && d.IsNew
	}
	if allNew {
		return fmt.Sprintf("(+%d)", added)
	}
	return fmt.Sprintf("(+%d −%d)", added, removed)
}

// Code formats s as a Markdown code span, with a longer fence when s holds backticks.
func Code(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	fence := "``"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + " " + s + " " + fence
}

// OneLine keeps the first line of s, marking what was cut.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimRight(s[:i], " \r\t") + " …"
	}
	return s
}

// Count is n and the noun for it, singular for one: "1 line", "3 lines".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
