package coder

import (
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/toolcall"
)

// systemPrompt tells the model who it is and where it works. Without native tools it
// also describes each tool and the text format for calling one.
func systemPrompt(roots []string, tools []llm.Tool, native bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `You are a coding agent working in the workspace %s.
Use the tools to look at files before changing them, make the changes the user asks for
with the file tools, and check your work (run the tests) when it makes sense. Paths may be
relative to the workspace. Keep your replies short.
When the task is done, say what you did in one or two sentences and end with %s.
`, strings.Join(roots, ", "), toolcall.CompletionMarker)
	if native {
		return b.String()
	}
	b.WriteString(`
To use a tool, write exactly one block per call, and nothing after your last block:
<tool_call>{"name": "TOOL", "arguments": {...}}</tool_call>
You will get the results in the next message. The tools:
`)
	for _, t := range tools {
		fmt.Fprintf(&b, "\n## %s\n%s\nParameters (JSON Schema): %s\n", t.Name, strings.TrimSpace(t.Description), t.Parameters)
	}
	return b.String()
}
