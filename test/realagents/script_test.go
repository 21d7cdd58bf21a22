//go:build linux

package realagents

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// The model script. Each prompt carries a marker, and the script answers a request by
// what it contains (the marker, the tools offered, the results already given), never by
// its place in the sequence: agents make side requests (titles, classifiers, token counts,
// tool search) in their own order. A request without the tool a step needs is a side
// request and gets a short text.

const (
	markPrefix = "PARLEY-" // every marker starts with it
	markPlain  = "PARLEY-PLAIN"
	markShell  = "PARLEY-SHELL"  // + the command to run
	markEdit   = "PARLEY-EDIT"   // + the absolute path of the file to read and edit
	markSlow   = "PARLEY-SLOW"   // a reply that streams for a long time
	markVSCode = "PARLEY-VSCODE" // + the VS Code tools to call in one step, by name
)

const (
	plainReply = "Hello from the scripted model."
	shellDone  = "The shell step is over."
	editDone   = "The edit step is over."
	vscodeDone = "The VS Code tools answered."
	oldLine    = "the old line"
	newLine    = "the new line"
	slowChunks = 200
	slowDelay  = 50 * time.Millisecond
)

var (
	shellTools = []string{"exec_command", "shell", "Bash", "run_shell_command", "bash"}
	readTools  = []string{"Read", "read_file", "read"}
	editTools  = []string{"Edit", "replace", "edit"}
	argAfter   = func(mark string) *regexp.Regexp { return regexp.MustCompile(regexp.QuoteMeta(mark) + ` (.+)`) }
)

func newModel(t testing.TB) *fakellm.Server {
	return fakellm.New(t,
		fakellm.Reply{Answer: step(markShell, shellStep), Reuse: true},
		fakellm.Reply{Answer: step(markEdit, editStep), Reuse: true},
		fakellm.Reply{Answer: step(markVSCode, vscodeStep), Reuse: true},
		fakellm.Reply{Match: turnOf(markSlow), Content: slices.Repeat([]string{"tick "}, slowChunks), Delay: slowDelay, Reuse: true},
		fakellm.Reply{Match: turnOf(markPlain), Content: []string{"Hello from ", "the scripted model."}, Reuse: true},
		fakellm.Reply{Content: []string{"ok"}, Reuse: true}, // side requests
	)
}

func turnOf(mark string) func(*fakellm.Recorded) bool {
	return func(r *fakellm.Recorded) bool {
		return strings.Contains(r.LastUser(), mark) || r.UserSaid(mark) && len(r.Tools) > 0
	}
}

// turn is the part of a request that belongs to the current turn: the calls made and the
// results given since the user's message that carries the marker.
type turn struct {
	rec     *fakellm.Recorded
	arg     string // what follows the marker
	calls   []llm.ToolCall
	results []llm.Message
}

// step answers a request of the turn marked mark with what next(turn) says; a request
// for which next has nothing is not the turn's (a side request).
func step(mark string, next func(*turn) *fakellm.Reply) func(*fakellm.Recorded) *fakellm.Reply {
	return func(r *fakellm.Recorded) *fakellm.Reply {
		start := -1
		for i, m := range r.Messages {
			if m.Role == "user" && strings.Contains(m.Content, mark) {
				start = i
			}
		}
		if start < 0 || len(r.Tools) == 0 {
			return nil
		}
		for _, m := range r.Messages[start+1:] {
			if m.Role == "user" && strings.Contains(m.Content, markPrefix) {
				return nil // a later turn's request: its history still holds this one
			}
		}
		tu := &turn{rec: r}
		// The marker's last occurrence is the turn's: a seeded first prompt (a hand-off)
		// quotes the earlier turns, markers and all, before the new prompt.
		if all := argAfter(mark).FindAllStringSubmatch(r.Messages[start].Content, -1); all != nil {
			tu.arg = strings.TrimSpace(strings.SplitN(all[len(all)-1][1], "\n", 2)[0])
		}
		for _, m := range r.Messages[start+1:] {
			tu.calls = append(tu.calls, m.ToolCalls...)
			if m.Role == "tool" {
				tu.results = append(tu.results, m)
			}
		}
		return next(tu)
	}
}

func shellStep(tu *turn) *fakellm.Reply {
	if len(tu.results) > 0 {
		return text(shellDone)
	}
	call, ok := shellCall(tu.rec, tu.arg)
	if !ok {
		return nil
	}
	return &fakellm.Reply{ToolCalls: []llm.ToolCall{call}}
}

func editStep(tu *turn) *fakellm.Reply {
	path := tu.arg
	switch len(tu.results) {
	case 0:
		if call, ok := readCall(tu.rec, path); ok {
			return &fakellm.Reply{Content: []string{"Reading it first."}, ToolCalls: []llm.ToolCall{call}}
		}
	case 1:
		if call, ok := editCall(tu.rec, path); ok {
			return &fakellm.Reply{ToolCalls: []llm.ToolCall{call}}
		}
	default:
		return text(editDone)
	}
	return nil
}

// vscodeStep calls every VS Code tool named after the marker in one step (with the
// agent's way of reaching MCP tools), then answers with what they returned.
func vscodeStep(tu *turn) *fakellm.Reply {
	names := strings.Fields(tu.arg)
	var calls []llm.ToolCall
	for i, name := range names {
		if done(tu, name) {
			continue
		}
		call, ok := mcpCall(tu, name, i)
		if !ok {
			return nil
		}
		calls = append(calls, call)
	}
	if len(calls) == 0 {
		var got []string
		for _, r := range tu.results {
			got = append(got, r.Content)
		}
		return text(vscodeDone + " " + strings.Join(got, " | "))
	}
	return &fakellm.Reply{ToolCalls: calls}
}

// callsMCPTool reports whether c calls the vscode_tools tool name, directly or through a
// deferred-tool proxy (tool_call {name, arguments}).
func callsMCPTool(c llm.ToolCall, name string) bool {
	if c.Name == "tool_call" {
		var a struct{ Name string }
		json.Unmarshal(c.Arguments, &a)
		return isMCPName(a.Name, name)
	}
	return isMCPName(c.Name, name)
}

// done reports whether the turn called the MCP tool name already and got its result.
func done(tu *turn, name string) bool {
	for _, c := range tu.calls {
		if callsMCPTool(c, name) {
			for _, r := range tu.results {
				if r.ToolCallID == c.ID || r.ToolCallID == c.Name {
					return true
				}
			}
		}
	}
	return false
}

func text(s string) *fakellm.Reply { return &fakellm.Reply{Content: []string{s}} }

// isMCPName reports whether an offered tool name is the MCP tool name of vscode_tools,
// as agents spell it: bare, mcp__vscode_tools__NAME, vscode_tools_NAME, …
func isMCPName(offered, name string) bool {
	return offered == name || strings.HasSuffix(offered, "__"+name) || strings.HasSuffix(offered, "vscode_tools_"+name)
}

// mcpCall calls the vscode_tools tool name as the agent offers it: directly; through
// tool_call once a search showed its full name (qwen-code); or, while it is deferred, a
// search that selects it (Claude's ToolSearch, qwen-code's tool_search).
func mcpCall(tu *turn, name string, i int) (llm.ToolCall, bool) {
	r := tu.rec
	id := fmt.Sprintf("call_vs_%d_%d", i, len(r.Messages))
	for _, t := range r.Tools {
		if isMCPName(t.Name, name) {
			return llm.ToolCall{ID: id, Name: t.Name, Arguments: fill(t, map[string]any{})}, true
		}
	}
	full := "mcp__vscode_tools__" + name
	if t, ok := r.Tool("tool_call"); ok {
		for _, res := range tu.results {
			if strings.Contains(res.Content, full) {
				return llm.ToolCall{ID: id, Name: t.Name, Arguments: fill(t, map[string]any{"name": full, "arguments": map[string]any{}})}, true
			}
		}
	}
	if t, ok := r.Tool("ToolSearch", "tool_search"); ok {
		return llm.ToolCall{ID: id, Name: t.Name, Arguments: fill(t, map[string]any{"query": "select:" + full})}, true
	}
	return llm.ToolCall{}, false
}

func shellCall(r *fakellm.Recorded, command string) (llm.ToolCall, bool) {
	t, ok := r.Tool(shellTools...)
	if !ok {
		return llm.ToolCall{}, false
	}
	args := map[string]any{}
	switch {
	case t.Property("cmd"):
		args["cmd"] = command
	case isArray(t, "command"):
		args["command"] = []string{"bash", "-lc", command}
	default:
		args["command"] = command
	}
	if t.Property("sandbox_permissions") { // codex: asking to run outside its sandbox is what asks the user
		args["sandbox_permissions"] = "require_escalated"
		args["justification"] = "The interop test asks for this."
	}
	return llm.ToolCall{ID: fmt.Sprintf("call_sh_%d", len(r.Messages)), Name: t.Name, Arguments: fill(t, args)}, true
}

func readCall(r *fakellm.Recorded, path string) (llm.ToolCall, bool) {
	id := fmt.Sprintf("call_rd_%d", len(r.Messages))
	if t, ok := r.Tool(readTools...); ok {
		return llm.ToolCall{ID: id, Name: t.Name, Arguments: fill(t, map[string]any{pathProperty(t): path})}, true
	}
	return shellCall(r, "cat "+path) // codex reads with its shell
}

func editCall(r *fakellm.Recorded, path string) (llm.ToolCall, bool) {
	id := fmt.Sprintf("call_ed_%d", len(r.Messages))
	if t, ok := r.Tool(editTools...); ok {
		args := map[string]any{pathProperty(t): path}
		args[firstProperty(t, "old_string", "oldString")] = oldLine
		args[firstProperty(t, "new_string", "newString")] = newLine
		return llm.ToolCall{ID: id, Name: t.Name, Arguments: fill(t, args)}, true
	}
	patch := "*** Begin Patch\n*** Update File: " + path + "\n@@\n-" + oldLine + "\n+" + newLine + "\n*** End Patch\n"
	if t, ok := r.Tool("apply_patch"); ok {
		if t.Kind == "custom" {
			data, _ := json.Marshal(patch)
			return llm.ToolCall{ID: id, Name: t.Name, Arguments: data}, true
		}
		return llm.ToolCall{ID: id, Name: t.Name, Arguments: fill(t, map[string]any{"input": patch})}, true
	}
	return shellCall(r, "apply_patch <<'EOF'\n"+patch+"EOF\n")
}

func pathProperty(t fakellm.Tool) string {
	return firstProperty(t, "file_path", "absolute_path", "filePath", "path")
}

// firstProperty is the first of names the tool's schema has (the first name if none).
func firstProperty(t fakellm.Tool, names ...string) string {
	for _, n := range names {
		if t.Property(n) {
			return n
		}
	}
	return names[0]
}

func isArray(t fakellm.Tool, name string) bool {
	props, _ := t.Parameters["properties"].(map[string]any)
	p, _ := props[name].(map[string]any)
	return p["type"] == "array"
}

// fill completes args with a plain value for every required property it lacks, so a
// call passes the agent's own validation of its tool's input.
func fill(t fakellm.Tool, args map[string]any) json.RawMessage {
	required, _ := t.Parameters["required"].([]any)
	props, _ := t.Parameters["properties"].(map[string]any)
	for _, r := range required {
		name, _ := r.(string)
		if _, ok := args[name]; ok || name == "" {
			continue
		}
		p, _ := props[name].(map[string]any)
		switch p["type"] {
		case "boolean":
			args[name] = false
		case "integer", "number":
			args[name] = 1
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		default:
			args[name] = "parley interop test"
		}
	}
	data, _ := json.Marshal(args)
	return data
}
