// Package toolcall finds tool calls in the text of a model reply, for models that have no
// native tool calling (or use it only some of the time).
//
// Models write calls in many spellings and get them wrong in many ways. The package accepts
// every spelling the models local agents run are seen to use (tags, fences, Mistral's, bare JSON)
// and more, and repairs what can be repaired (see repairJSON). What cannot be used becomes
// a Problem that goes back to the model as an error it can correct, never a call dropped
// in silence.
//
// What counts as a call:
//
//   - Explicit markup is always a call or a Problem: <tool_call>…</tool_call> (also
//     unterminated at the end of the reply, and the spellings in blockTags: <tool_calls>,
//     <function_call>, <|tool_call|>, Llama's <|python_tag|>, Gemma's <|tool_call>),
//     and Mistral's [TOOL_CALLS] (an array, objects, or name[ARGS]{…}). Inside a block:
//     JSON objects or arrays, Qwen's <function=NAME><parameter=K>V</parameter></function>,
//     GLM's NAME<arg_key>K</arg_key><arg_value>V</arg_value>, or NAME {…}.
//   - Implicit JSON (a bare object or array in the prose, or a ```json / ``` fence) is a call
//     only when it has the shape of one and names a known tool. With an unknown name it is a
//     Problem when its shape is unmistakable (a name plus an arguments member, or the OpenAI
//     "function" object), and prose otherwise: a model that shows a JSON document in its
//     answer is not calling anything. A bare object must begin with a name-like member
//     ("name", "tool", "tool_name", "function", "type", "tool_calls"), so that ordinary
//     JSON in prose is shown at once while streaming instead of being held back.
//   - Markup counts wherever it appears, in a fence of another language too (small models
//     wrap calls in ```xml).
//   - Calls inside <think>…</think> count, as Ollama's own parsers and other coding agents
//     accept them (a <tool_call> may begin before </think>, ollama/ollama PR #14477,
//     and many models ignore think:false). The think text itself stays in prose: telling
//     thinking from answer is the stream's job, not the parser's.
//
// Prose is the reply with the call markup and the completion marker removed, and nothing
// else changed (no trimming), so that what a StreamParser has shown is always a prefix of it.
package toolcall

import (
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// CompletionMarker is what a model writes to say the task is done. It is never shown:
// Parse removes it from prose, and a StreamParser reports it through Completed.
const CompletionMarker = "[TASK_COMPLETE]"

// Call is a tool call found in the text.
type Call struct {
	// Name is the tool's canonical name, as the known function returned it.
	Name string
	// Arguments is always a JSON object.
	Arguments json.RawMessage
	// Raw is the text the call came from: the JSON value, or the name and arguments,
	// without the tags around them.
	Raw string
	// Truncated reports that the reply ended inside the call and the parser closed it: its
	// last value may be cut short. Running a cut-off command can do something the model
	// never asked for, so callers may want to refuse such calls for commands and writes.
	Truncated bool
}

// Problem is a tool call that could not be used. Message is written for the model: it
// says what is wrong and what to send instead.
type Problem struct {
	Raw     string
	Message string
}

// callShape is the form the parser asks models to use in error messages.
const callShape = `<tool_call>{"name": "TOOL", "arguments": {...}}</tool_call>`

// Parse finds every tool call in a complete model reply, in the order they appear.
//
// known maps the name the model wrote to the tool's canonical name; it may accept aliases
// (read → read_file). When it rejects a name, Parse retries with a normalised spelling
// (Bash → bash, readFile → read_file, functions.read_file → read_file). When ok is false,
// canonical may list the offered tools ("read_file, write_file"); Parse names them in the
// Problem so the model can pick one. A nil known accepts every name as written.
func Parse(text string, known func(name string) (canonical string, ok bool)) (calls []Call, problems []Problem, prose string) {
	s := scanner{text: []byte(text), final: true, known: known}
	s.truncatedBudget = truncatedBudget(len(text))
	s.prose = make([]byte, 0, len(text))
	s.run(0)
	return s.calls, s.problems, string(s.prose)
}

// truncatedBudget allows reading a reply of n bytes about four more times over when
// trying JSON that runs to its end as calls.
func truncatedBudget(n int) int { return 4*n + 64<<10 }

// KnownNames returns a known function for Parse and NewStreamParser that accepts exactly
// the given tool names and, for any other name, lists them for the model.
func KnownNames(names ...string) func(name string) (canonical string, ok bool) {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	list := strings.Join(names, ", ")
	return func(name string) (string, bool) {
		if set[name] {
			return name, true
		}
		return list, false
	}
}
