package toolcall

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var offered = KnownNames("read_file", "write_file", "edit_file", "list_files",
	"search_workspace", "run_terminal_command", "get_diagnostics")

// known is offered plus an alias, as the agent's tool registry would be.
func known(name string) (string, bool) {
	if name == "read" {
		return "read_file", true
	}
	return offered(name)
}

// call is what a test expects of a Call: Raw is checked separately.
type call struct {
	Name      string
	Args      string
	Truncated bool
}

type result struct {
	Calls    []call
	Problems []string // a substring of each problem's message
	Prose    string
}

func parse(text string) result {
	calls, problems, prose := Parse(text, known)
	return summarize(calls, problems, prose)
}

func summarize(calls []Call, problems []Problem, prose string) result {
	var r result
	for _, c := range calls {
		r.Calls = append(r.Calls, call{c.Name, string(c.Arguments), c.Truncated})
	}
	for _, p := range problems {
		r.Problems = append(r.Problems, p.Message)
	}
	r.Prose = prose
	return r
}

// matches compares got with want, where each wanted problem is a substring of the message.
func matches(t *testing.T, got, want result) {
	t.Helper()
	gotProblems := got.Problems
	got.Problems = nil
	wantProblems := want.Problems
	want.Problems = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(gotProblems) != len(wantProblems) {
		t.Errorf("problems = %q, want %d matching %q", gotProblems, len(wantProblems), wantProblems)
		return
	}
	for i, w := range wantProblems {
		if !strings.Contains(gotProblems[i], w) {
			t.Errorf("problem %d = %q, want it to contain %q", i, gotProblems[i], w)
		}
	}
}

func one(name, args string) []call { return []call{{Name: name, Args: args}} }

// parseCase is a reply and what Parse should find in it.
type parseCase struct {
	name string
	text string
	want result
}

func runParseCases(t *testing.T, cases []parseCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			matches(t, parse(tt.text), tt.want)
			checkStream(t, tt.text)
		})
	}
}

// TestMalformations has one row per class of malformed call models are seen to write,
// named after it.
func TestMalformations(t *testing.T) { runParseCases(t, malformations) }

var malformations = []parseCase{
	// Class 1: Truncation at the token limit.
	{"truncation: missing closing braces",
		`Reading. <tool_call>{"name": "read_file", "arguments": {"path": "a.go"`,
		result{Calls: []call{{"read_file", `{"path":"a.go"}`, true}}, Prose: "Reading. "}},
	{"truncation: inside a string",
		`<tool_call>{"name": "write_file", "arguments": {"path": "a.go", "content": "package ma`,
		result{Calls: []call{{"write_file", `{"path":"a.go","content":"package ma"}`, true}}}},
	{"truncation: inside a key",
		`<tool_call>{"name": "read_file", "arguments": {"path": "a.go", "sta`,
		result{Calls: []call{{"read_file", `{"path":"a.go"}`, true}}}},
	{"truncation: after a colon",
		`<tool_call>{"name": "read_file", "arguments": {"path": "a.go", "start_line":`,
		result{Calls: []call{{"read_file", `{"path":"a.go"}`, true}}}},
	{"truncation: inside an escape",
		`<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "x\`,
		result{Calls: []call{{"write_file", `{"path":"a","content":"x"}`, true}}}},
	{"truncation: inside a number and a literal",
		`<tool_call>{"name": "read_file", "arguments": {"path": "a", "all": tr`,
		result{Calls: []call{{"read_file", `{"path":"a","all":true}`, true}}}},
	{"truncation: inside an array",
		`<tool_call>{"name": "search_workspace", "arguments": {"globs": ["*.go", "*.m`,
		result{Calls: []call{{"search_workspace", `{"globs":["*.go","*.m"]}`, true}}}},
	{"truncation: inside the opening tag",
		"Let me look.\n<tool_ca",
		result{Problems: []string{"ended inside a tool call tag"}, Prose: "Let me look.\n"}},
	{"truncation: right after the opening tag",
		"Let me look.\n<tool_call>\n",
		result{Problems: []string{"ended inside a tool call"}, Prose: "Let me look.\n"}},

	// Class 2: Raw newlines inside strings; double-escaped quotes.
	{"raw newlines inside strings",
		"<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a\", \"content\": \"one\n\ttwo\n\"}}</tool_call>",
		result{Calls: one("write_file", `{"path":"a","content":"one\n\ttwo\n"}`)}},
	{"double-escaped quotes",
		`<tool_call>{"name": "write_file", "arguments": {"path": "a.py", "content": "print(\\"hi\\")"}}</tool_call>`,
		result{Calls: one("write_file", `{"path":"a.py","content":"print(\"hi\")"}`)}},
	{"double-escaped object",
		`<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a b.go\"}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a b.go"}`)}},

	// Class 3: Unescaped inner quotes in content.
	{"unescaped inner quotes",
		`<tool_call>{"name": "write_file", "arguments": {"path": "i.html", "content": "<a href="x.html">x</a>"}}</tool_call>`,
		result{Calls: one("write_file", `{"path":"i.html","content":"<a href=\"x.html\">x</a>"}`)}},
	{"unescaped inner quotes before a comma",
		`<tool_call>{"name": "write_file", "arguments": {"content": "f("a", b)", "path": "x.py"}}</tool_call>`,
		result{Calls: one("write_file", `{"content":"f(\"a\", b)","path":"x.py"}`)}},

	// Class 4: Literal backslash-n between tokens.
	{"literal backslash-n between tokens",
		`<tool_call>\n{"name": "read_file",\n  "arguments": {\n    "path": "a.go"\n  }\n}\n</tool_call>`,
		result{Calls: one("read_file", `{"path":"a.go"}`)}},

	// Class 5: Invalid escapes.
	{"invalid escapes from Windows paths",
		`<tool_call>{"name": "read_file", "arguments": {"path": "C:\Users\me\app.go"}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"C:\\Users\\me\\app.go"}`)}},

	// Class 6: An extra brace; a string closed by a backtick.
	{"an extra opening brace",
		`<tool_call>{{"name": "read_file", "arguments": {"path": "a.go"}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a.go"}`)}},
	{"an extra closing brace",
		`<tool_call>{"name": "read_file", "arguments": {"path": "a.go"}}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a.go"}`)}},
	{"a string closed by a backtick",
		"<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go`}}</tool_call>",
		result{Calls: one("read_file", `{"path":"a.go"}`)}},

	// Class 7: Nested objects the model cannot produce: arguments as a JSON string.
	{"arguments as a JSON string",
		`<tool_call>{"name": "edit_file", "arguments": "{\"path\": \"a.go\", \"old_string\": \"x\", \"new_string\": \"y\"}"}</tool_call>`,
		result{Calls: one("edit_file", `{"path":"a.go","old_string":"x","new_string":"y"}`)}},
	{"arguments as a JSON string needing repair",
		`<tool_call>{"name": "read_file", "arguments": "{\"path\": \"a.go\""}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a.go"}`)}},
	{"arguments encoded twice",
		`<tool_call>{"name": "read_file", "arguments": "\"{\\\"path\\\": \\\"a.go\\\"}\""}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a.go"}`)}},

	// Class 8: Markup leaking into content; a second call missed.
	{"a second call in one response",
		"First <tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call> then " +
			"<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}</tool_call> done.",
		result{Calls: []call{{Name: "read_file", Args: `{"path":"a"}`}, {Name: "read_file", Args: `{"path":"b"}`}},
			Prose: "First  then  done."}},
	{"two calls in one block",
		"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n{\"name\": \"list_files\", \"arguments\": {}}\n</tool_call>",
		result{Calls: []call{{Name: "read_file", Args: `{"path":"a"}`}, {Name: "list_files", Args: `{}`}}}},
	{"a stray closing tag",
		`Done.</tool_call>`,
		result{Prose: "Done."}},

	// Class 9: Calls inside <think>.
	{"tool_call inside think",
		"<think>I need a.go. <tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}</tool_call></think>",
		result{Calls: one("read_file", `{"path":"a.go"}`), Prose: "<think>I need a.go. </think>"}},
	{"think never closed",
		"<think>plan: <tool_call>{\"name\": \"list_files\", \"arguments\": {\"path\": \".\"}}",
		result{Calls: one("list_files", `{"path":"."}`), Prose: "<think>plan: "}},

	// Class 10: Wrong-but-close names.
	{"name in the wrong case",
		`<tool_call>{"name": "Read_File", "arguments": {"path": "a"}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a"}`)}},
	{"name in camel case",
		`<tool_call>{"name": "readFile", "arguments": {"path": "a"}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a"}`)}},
	{"name with a namespace",
		`<tool_call>{"name": "functions.read_file", "arguments": {"path": "a"}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a"}`)}},
	{"name the caller aliases",
		`<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a"}`)}},
	{"unknown name",
		`<tool_call>{"name": "Bash", "arguments": {"command": "ls"}}</tool_call>`,
		result{Problems: []string{`no tool named "Bash". The tools are: read_file, write_file,`}}},

	// Class 11: Chat-template garbage.
	{"stray parameter tag inside the JSON",
		`<tool_call>{"name": "read_file", "arguments": {"path": "a.go"</parameter>}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a.go"}`)}},
	{"malformed_json_arguments wrapper",
		`<tool_call><malformed_json_arguments>{"name": "read_file", "arguments": {"path": "a.go"}}</malformed_json_arguments></tool_call>`,
		result{Calls: one("read_file", `{"path":"a.go"}`)}},
	{"stray tags after the JSON",
		"<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}</parameter>\n</function>\n</tool_call>ok",
		result{Calls: one("read_file", `{"path":"a.go"}`), Prose: "ok"}},
	{"a fence inside the block",
		"<tool_call>\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n```\n</tool_call>",
		result{Calls: one("read_file", `{"path":"a.go"}`)}},

	// Class 12: The model prints the call JSON instead of calling.
	{"printed call as bare JSON",
		"I will read it.\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n",
		result{Calls: one("read_file", `{"path":"a.go"}`), Prose: "I will read it.\n\n"}},
	{"printed call in a json fence",
		"Calling:\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n```\nwait.",
		result{Calls: one("read_file", `{"path":"a.go"}`), Prose: "Calling:\n\nwait."}},
	{"printed call in a bare fence",
		"```\n{\"tool\": \"list_files\", \"path\": \"src\"}\n```",
		result{Calls: one("list_files", `{"path":"src"}`)}},
	{"printed call to an unknown tool",
		`{"name": "bash", "arguments": {"command": "ls"}}`,
		result{Problems: []string{`no tool named "bash"`}}},
	{"printed call cut off",
		`Sure. {"name": "write_file", "arguments": {"path": "a", "content": "hel`,
		result{Calls: []call{{"write_file", `{"path":"a","content":"hel"}`, true}}, Prose: "Sure. "}},
	{"JSON document in prose is not a call",
		"The manifest:\n```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n```\nand {\"name\": \"x\"}.",
		result{Prose: "The manifest:\n```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n```\nand {\"name\": \"x\"}."}},
	{"tool definition echoed back is not a call",
		`{"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}`,
		result{Prose: `{"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}`}},

	// Gaps in what the first parsers accepted.
	{"OpenAI nested function with string arguments",
		`<tool_call>{"type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a"}`)}},
	{"OpenAI nested function object alone",
		`<tool_call>{"function": {"name": "read_file", "arguments": {"path": "a"}}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"a"}`)}},
	{"OpenAI tool_calls list printed",
		`{"tool_calls": [{"id": "1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}, {"type": "function", "function": {"name": "list_files", "arguments": "{}"}}]}`,
		result{Calls: []call{{Name: "read_file", Args: `{"path":"a"}`}, {Name: "list_files", Args: `{}`}}}},
	{"Mistral arguments spanning lines",
		"[TOOL_CALLS]write_file[ARGS]{\"path\": \"a.txt\",\n\"content\": \"x\ny\"}",
		result{Calls: one("write_file", `{"path":"a.txt","content":"x\ny"}`)}},
	{"Mistral curly quotes",
		"[TOOL_CALLS] read_file [ARGS] {“path”: “a.go”}",
		result{Calls: one("read_file", `{"path":"a.go"}`)}},
	{"no registry check: unknown names are problems",
		`<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>`,
		result{Problems: []string{`no tool named "delete_everything"`}}},
	{"errors reported: not JSON",
		`<tool_call>please read a.go</tool_call>`,
		result{Problems: []string{"could not be used"}}},
	{"errors reported: no name",
		`<tool_call>{"arguments": {"path": "a"}}</tool_call>`,
		result{Problems: []string{"has no tool name"}}},
	{"errors reported: arguments not an object",
		`<tool_call>{"name": "read_file", "arguments": ["a.go"]}</tool_call>`,
		result{Problems: []string{"must be a JSON object"}}},
	{"errors reported: empty block",
		`<tool_call></tool_call>`,
		result{Problems: []string{"empty"}}},
	{"order across formats",
		"[TOOL_CALLS][{\"name\": \"list_files\", \"arguments\": {}}]\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>",
		result{Calls: []call{{Name: "list_files", Args: `{}`}, {Name: "read_file", Args: `{"path":"a"}`}}, Prose: "\n"}},
}

// TestShapes covers the spellings of names, arguments and markup.
func TestShapes(t *testing.T) { runParseCases(t, shapes) }

var readA = one("read_file", `{"path":"a"}`)

var shapes = []parseCase{
	{"name", `<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>`, result{Calls: readA}},
	{"tool", `<tool_call>{"tool": "read_file", "arguments": {"path": "a"}}</tool_call>`, result{Calls: readA}},
	{"tool_name", `<tool_call>{"tool_name": "read_file", "arguments": {"path": "a"}}</tool_call>`, result{Calls: readA}},
	{"function as a string", `<tool_call>{"function": "read_file", "arguments": {"path": "a"}}</tool_call>`, result{Calls: readA}},
	{"args", `<tool_call>{"name": "read_file", "args": {"path": "a"}}</tool_call>`, result{Calls: readA}},
	{"params", `<tool_call>{"name": "read_file", "params": {"path": "a"}}</tool_call>`, result{Calls: readA}},
	{"parameters", `<tool_call>{"name": "read_file", "parameters": {"path": "a"}}</tool_call>`, result{Calls: readA}},
	{"input", `<tool_call>{"name": "read_file", "input": {"path": "a"}}</tool_call>`, result{Calls: readA}},
	{"top-level arguments", `<tool_call>{"name": "read_file", "path": "a"}</tool_call>`, result{Calls: readA}},
	{"empty arguments beside top-level ones", `<tool_call>{"name": "read_file", "arguments": {}, "path": "a"}</tool_call>`, result{Calls: readA}},
	{"no arguments", `<tool_call>{"name": "list_files"}</tool_call>`, result{Calls: one("list_files", `{}`)}},
	{"null arguments", `<tool_call>{"name": "list_files", "arguments": null}</tool_call>`, result{Calls: one("list_files", `{}`)}},
	{"empty string arguments", `<tool_call>{"name": "list_files", "arguments": ""}</tool_call>`, result{Calls: one("list_files", `{}`)}},
	{"a name argument beside the tool", `<tool_call>{"tool": "read_file", "name": "a"}</tool_call>`, result{Calls: one("read_file", `{"name":"a"}`)}},
	{"an argument called input", `<tool_call>{"name": "run_terminal_command", "input": "ls"}</tool_call>`, result{Calls: one("run_terminal_command", `{"input":"ls"}`)}},
	{"single quotes and Python literals", `<tool_call>{'name': 'read_file', 'arguments': {'path': 'a', 'all': True}}</tool_call>`, result{Calls: one("read_file", `{"path":"a","all":true}`)}},
	{"trailing commas", `<tool_call>{"name": "read_file", "arguments": {"path": "a",},}</tool_call>`, result{Calls: readA}},
	{"unquoted keys", `<tool_call>{name: "read_file", arguments: {path: "a"}}</tool_call>`, result{Calls: readA}},
	{"upper-case tags", `<TOOL_CALL>{"name": "read_file", "arguments": {"path": "a"}}</TOOL_CALL>`, result{Calls: readA}},
	{"tool_calls tag", `<tool_calls>[{"name": "read_file", "arguments": {"path": "a"}}]</tool_calls>`, result{Calls: readA}},
	{"function_call tag", `<function_call>{"name": "read_file", "arguments": {"path": "a"}}</function_call>`, result{Calls: readA}},
	{"Phi tag", `<|tool_call|>[{"name": "read_file", "arguments": {"path": "a"}}]<|/tool_call|>`, result{Calls: readA}},
	{"Llama python_tag", `<|python_tag|>{"name": "read_file", "parameters": {"path": "a"}}<|eom_id|>`, result{Calls: readA}},
	{"Llama python_tag with two calls", `<|python_tag|>{"name": "read_file", "parameters": {"path": "a"}}; {"name": "list_files", "parameters": {}}`,
		result{Calls: append(one("read_file", `{"path":"a"}`), call{Name: "list_files", Args: `{}`})}},
	{"Gemma call", `<|tool_call>call:read_file{path:<|"|>a<|"|>}<tool_call|>`, result{Calls: readA}},
	{"name then JSON in a block", "<tool_call>read_file\n{\"path\": \"a\"}</tool_call>", result{Calls: readA}},
	{"name alone in a block", "<tool_call>list_files</tool_call>", result{Calls: one("list_files", `{}`)}},
	{"Qwen XML", "<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n<parameter=start_line>\n3\n</parameter>\n</function>\n</tool_call>",
		result{Calls: one("read_file", `{"path":"a","start_line":3}`)}},
	{"Qwen XML multi-line value", "<tool_call>\n<function=write_file>\n<parameter=path>\nx.go\n</parameter>\n<parameter=content>\npackage x\n\nfunc f() {}\n</parameter>\n</function>\n</tool_call>",
		result{Calls: one("write_file", `{"path":"x.go","content":"package x\n\nfunc f() {}"}`)}},
	{"Qwen XML cut off", "<tool_call>\n<function=write_file>\n<parameter=path>\nx.go\n</parameter>\n<parameter=content>\npackage",
		result{Calls: []call{{"write_file", `{"path":"x.go","content":"package"}`, true}}}},
	{"GLM arg pairs", "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a</arg_value>\n</tool_call>", result{Calls: readA}},
	{"Mistral array", `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a"}}, {"name": "list_files", "arguments": {}}]`,
		result{Calls: append(one("read_file", `{"path":"a"}`), call{Name: "list_files", Args: `{}`})}},
	{"Mistral object", `[TOOL_CALLS]{"name": "read_file", "arguments": {"path": "a"}}`, result{Calls: readA}},
	{"Mistral call id", `[TOOL_CALLS]read_file[CALL_ID]abc123[ARGS]{"path": "a"}`, result{Calls: readA}},
	{"Mistral several tokens", `[TOOL_CALLS]read_file[ARGS]{"path": "a"}[TOOL_CALLS]list_files[ARGS]{}`,
		result{Calls: append(one("read_file", `{"path":"a"}`), call{Name: "list_files", Args: `{}`})}},
	{"Mistral unknown", `[TOOL_CALLS]shell[ARGS]{"cmd": "ls"}`, result{Problems: []string{`no tool named "shell"`}}},
	{"Mistral without a call", `[TOOL_CALLS] I cannot.`, result{Problems: []string{"not followed by a JSON object"}, Prose: " cannot."}},
	{"bare array of calls", `[{"name": "read_file", "arguments": {"path": "a"}}]`, result{Calls: readA}},
	{"completion marker", "All done. [TASK_COMPLETE]", result{Prose: "All done. "}},
	{"completion marker in lower case", "All done. [task_complete]", result{Prose: "All done. "}},
	{"completion marker cut off at the end", "All done. [TASK_COMP", result{Prose: "All done. "}},
	{"not a marker", "See [TASK] and [T", result{Prose: "See [TASK] and [T"}},
	{"markdown and code are prose", "Use `x` and [a link](u) or a <b>tag</b>, `if a < b {`, ``` inline.",
		result{Prose: "Use `x` and [a link](u) or a <b>tag</b>, `if a < b {`, ``` inline."}},
	{"a go fence is prose", "```go\nfunc main() { fmt.Println(\"{\\\"name\\\": 1}\") }\n```\n",
		result{Prose: "```go\nfunc main() { fmt.Println(\"{\\\"name\\\": 1}\") }\n```\n"}},
}

// TestStrings covers strings, several calls, and the prose around them.
func TestStrings(t *testing.T) { runParseCases(t, stringCases) }

var stringCases = []parseCase{
	{"nested braces in strings",
		`<tool_call>{"name": "write_file", "arguments": {"path": "a.go", "content": "func f() { if x { return \"}\" } }"}}</tool_call>after`,
		result{Calls: one("write_file", `{"path":"a.go","content":"func f() { if x { return \"}\" } }"}`), Prose: "after"}},
	{"closing tag inside a string",
		`<tool_call>{"name": "write_file", "arguments": {"path": "t.md", "content": "write </tool_call> to end"}}</tool_call>after`,
		result{Calls: one("write_file", `{"path":"t.md","content":"write </tool_call> to end"}`), Prose: "after"}},
	{"escaped quotes",
		`<tool_call>{"name": "run_terminal_command", "arguments": {"command": "echo \"a \\\" b\""}}</tool_call>`,
		result{Calls: one("run_terminal_command", `{"command":"echo \"a \\\" b\""}`)}},
	{"escaped backslash before the closing quote",
		`<tool_call>{"name": "read_file", "arguments": {"path": "C:\\"}}</tool_call>`,
		result{Calls: one("read_file", `{"path":"C:\\"}`)}},
	{"unicode",
		"Voilà ✓ <tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"ü.txt\", \"content\": \"日本語 🎉 \\u00e9\"}}</tool_call> fin ✓",
		result{Calls: one("write_file", `{"path":"ü.txt","content":"日本語 🎉 \u00e9"}`), Prose: "Voilà ✓  fin ✓"}},
	{"several calls in several forms",
		"A <tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>\n" +
			"B [TOOL_CALLS]list_files[ARGS]{\"path\": \".\"}\n" +
			"C ```json\n{\"name\": \"get_diagnostics\", \"arguments\": {}}\n```\n" +
			"D {\"name\": \"search_workspace\", \"arguments\": {\"query\": \"x{\"}}\nE",
		result{Calls: []call{
			{Name: "read_file", Args: `{"path":"a"}`},
			{Name: "list_files", Args: `{"path":"."}`},
			{Name: "get_diagnostics", Args: `{}`},
			{Name: "search_workspace", Args: `{"query":"x{"}`},
		}, Prose: "A \nB \nC \nD \nE"}},
	{"prose around calls is kept as written",
		"  Intro,\n\nthen <tool_call>{\"name\":\"list_files\",\"arguments\":{}}</tool_call>  \n\nOutro.  ",
		result{Calls: one("list_files", `{}`), Prose: "  Intro,\n\nthen   \n\nOutro.  "}},
}

func TestRaw(t *testing.T) {
	text := `x <tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call> [TOOL_CALLS]list_files[ARGS]{}`
	calls, _, _ := Parse(text, known)
	want := []string{`{"name": "read_file", "arguments": {"path": "a"}}`, `list_files[ARGS]{}`}
	var got []string
	for _, c := range calls {
		got = append(got, c.Raw)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Raw (-want +got):\n%s", diff)
	}
}

func TestNilKnownAcceptsEveryName(t *testing.T) {
	calls, problems, _ := Parse(`<tool_call>{"name": "anything", "arguments": {}}</tool_call>`, nil)
	if len(calls) != 1 || calls[0].Name != "anything" || len(problems) != 0 {
		t.Errorf("calls = %+v, problems = %+v", calls, problems)
	}
}
