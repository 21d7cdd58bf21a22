package toolcall_test

import (
	"fmt"

	"github.com/parley-acp/parley/internal/toolcall"
)

func ExampleParse() {
	known := toolcall.KnownNames("read_file", "run_terminal_command")
	reply := "Let me look.\n" +
		`<tool_call>{"name": "Read_File", "arguments": {"path": "main.go"}}</tool_call>` + "\n" +
		`[TOOL_CALLS]bash[ARGS]{"command": "go test ./..."}`
	calls, problems, prose := toolcall.Parse(reply, known)
	for _, c := range calls {
		fmt.Printf("call %s %s\n", c.Name, c.Arguments)
	}
	for _, p := range problems {
		fmt.Println("problem:", p.Message)
	}
	fmt.Printf("prose: %q\n", prose)
	// Output:
	// call read_file {"path":"main.go"}
	// problem: There is no tool named "bash". The tools are: read_file, run_terminal_command. Call one of them by its exact name.
	// prose: "Let me look.\n\n"
}

func ExampleStreamParser() {
	p := toolcall.NewStreamParser(toolcall.KnownNames("list_files"))
	for _, chunk := range []string{"Listing <tool_", `call>{"name": "list_files", "arguments": {}}`, "</tool_call>", " done [TASK_", "COMPLETE]"} {
		fmt.Printf("show %q\n", p.Feed(chunk))
	}
	calls, _, rest := p.Finish()
	fmt.Println(len(calls), calls[0].Name, p.Completed(), rest == "")
	// Output:
	// show "Listing "
	// show ""
	// show ""
	// show " done "
	// show ""
	// 1 list_files true true
}
