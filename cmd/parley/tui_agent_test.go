package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// tuiAgent is a fake ACP agent for the terminal UI's tests. Each prompt is answered
// "prompt N: K lines" (so a test sees how many prompts arrived and of how many lines),
// then each line that is a command does what it says:
//
//	say "TEXT"        an agent_message_chunk (a Go-quoted string)
//	markdown          a reply with **bold**, a heading, a list, a Go code block and a table
//	run CMD ARGS...   an execute tool call running CMD in a terminal of the client's,
//	                  reported with the terminal; completed when CMD exits
//	edit PATH         asks permission to edit PATH (a diff in the request), writes on allow
//	slow N            N words 50 ms apart (honours cancel)
//	plan              a plan of three steps, updated in place
//	think TEXT        a thought
//	pid               writes the agent's pid to $PARLEY_TEST_AGENT_PID, then says "pid written"
//
// It has modes (ask, code) so the status line has one to show.
type tuiAgent struct {
	conn    *acp.AgentConn
	mu      sync.Mutex
	prompts int
}

func runTUIAgent() int {
	a := &tuiAgent{}
	acp.NewAgentConn(acp.Stdio(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
	<-a.conn.Done()
	return 0
}

func (a *tuiAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersion,
		AgentInfo:         &acp.Implementation{Name: "tui-test", Title: "TUI test agent", Version: "1"},
		AgentCapabilities: acp.AgentCapabilities{PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true}},
	}, nil
}

func (a *tuiAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	acp.AfterResponse(ctx, func(ctx context.Context) {
		a.conn.Update(ctx, "s1", acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: []acp.AvailableCommand{
			{Name: "review", Description: "review the changes", Input: &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "what to review"}}},
		}}})
	})
	return &acp.NewSessionResponse{SessionID: "s1", Modes: &acp.SessionModeState{CurrentModeID: "ask", AvailableModes: []acp.SessionMode{
		{ID: "ask", Name: "Ask"}, {ID: "code", Name: "Code"},
	}}}, nil
}

func (a *tuiAgent) SetSessionMode(ctx context.Context, req *acp.SetSessionModeRequest) (*acp.SetSessionModeResponse, error) {
	a.conn.Update(ctx, req.SessionID, acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: req.ModeID}})
	return &acp.SetSessionModeResponse{}, nil
}

func (a *tuiAgent) say(ctx context.Context, sid acp.SessionID, text string) {
	a.conn.Update(ctx, sid, acp.AgentMessageChunk(acp.TextBlock(text)))
}

func (a *tuiAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	var text string
	var extra []string
	for _, b := range req.Prompt {
		if t, ok := b.AsText(); ok {
			text += t
		} else {
			extra = append(extra, b.Kind())
		}
	}
	a.mu.Lock()
	a.prompts++
	n := a.prompts
	a.mu.Unlock()
	lines := strings.Split(text, "\n")
	head := fmt.Sprintf("prompt %d: %d lines", n, len(lines))
	if len(extra) > 0 {
		head += " + " + strings.Join(extra, ", ")
	}
	if os.Getenv("PARLEY_TUI_DEMO") == "" { // the recording for the README leaves it out
		a.say(ctx, req.SessionID, head+"\n\n")
	}
	for _, line := range lines {
		if err := a.do(ctx, req.SessionID, strings.TrimSpace(line)); err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (a *tuiAgent) do(ctx context.Context, sid acp.SessionID, line string) error {
	verb, rest, _ := strings.Cut(line, " ")
	switch verb {
	case "say":
		s, err := strconv.Unquote(rest)
		if err != nil {
			s = rest
		}
		a.say(ctx, sid, s)
	case "markdown":
		for _, chunk := range []string{"# Results\n\nThe tests are **now passing** and `go vet` is ", "clean.\n\n- one\n- two\n\n",
			"```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n", "| name | result |\n|------|--------|\n| vet | ok |\n"} {
			a.say(ctx, sid, chunk)
		}
	case "pid":
		if err := os.WriteFile(os.Getenv("PARLEY_TEST_AGENT_PID"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			return err
		}
		a.say(ctx, sid, "pid written")
	case "think":
		a.conn.Update(ctx, sid, acp.AgentThoughtChunk(acp.TextBlock(rest)))
	case "slow":
		n, _ := strconv.Atoi(rest)
		for i := range n {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(50 * time.Millisecond):
			}
			a.say(ctx, sid, fmt.Sprintf("w%d ", i))
		}
	case "plan":
		steps := []string{"read the code", "change it", "run the tests"}
		for done := 0; done <= len(steps); done++ {
			var entries []acp.PlanEntry
			for i, s := range steps {
				st := acp.PlanEntryStatusPending
				switch {
				case i < done:
					st = acp.PlanEntryStatusCompleted
				case i == done:
					st = acp.PlanEntryStatusInProgress
				}
				entries = append(entries, acp.PlanEntry{Content: s, Priority: acp.PlanEntryPriorityMedium, Status: st})
			}
			a.conn.Update(ctx, sid, acp.SessionUpdate{Plan: &acp.Plan{Entries: entries}})
		}
	case "run":
		return a.run(ctx, sid, strings.Fields(rest))
	case "edit":
		return a.edit(ctx, sid, rest)
	}
	return nil
}

func (a *tuiAgent) run(ctx context.Context, sid acp.SessionID, argv []string) error {
	id := acp.ToolCallID(fmt.Sprintf("run-%d", time.Now().UnixNano()))
	cmdline, _ := json.Marshal(strings.Join(argv, " "))
	a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: "Run " + strings.Join(argv, " "), Kind: acp.ToolKindExecute,
		Status: acp.ToolCallStatusPending, RawInput: json.RawMessage(`{"command":` + string(cmdline) + `}`)}})
	term, err := a.conn.CreateTerminal(ctx, &acp.CreateTerminalRequest{SessionID: sid, Command: argv[0], Args: argv[1:]})
	if err != nil {
		a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusFailed,
			Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(err.Error()))}}})
		return nil
	}
	a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusInProgress,
		Content: []acp.ToolCallContent{{Terminal: &acp.Terminal{TerminalID: term.TerminalID}}}}})
	a.conn.WaitForTerminalExit(ctx, &acp.WaitForTerminalExitRequest{SessionID: sid, TerminalID: term.TerminalID})
	// The output stays readable a moment after the exit, as agents release terminals
	// once they have reported.
	status := acp.ToolCallStatusCompleted
	a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: status}})
	time.AfterFunc(2*time.Second, func() {
		a.conn.ReleaseTerminal(context.Background(), &acp.ReleaseTerminalRequest{SessionID: sid, TerminalID: term.TerminalID})
	})
	a.say(ctx, sid, "ran it")
	return nil
}

func (a *tuiAgent) edit(ctx context.Context, sid acp.SessionID, path string) error {
	old := "package main\n\nfunc answer() int {\n\treturn 41\n}\n"
	newText := "package main\n\nfunc answer() int {\n\treturn 42\n}\n"
	id := acp.ToolCallID("edit-" + path)
	diff := []acp.ToolCallContent{{Diff: &acp.Diff{Path: path, OldText: &old, NewText: newText}}}
	a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: "Edit " + path, Kind: acp.ToolKindEdit,
		Status: acp.ToolCallStatusPending, Content: diff, Locations: []acp.ToolCallLocation{{Path: path}}}})
	resp, err := a.conn.RequestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: sid,
		ToolCall:  acp.ToolCallUpdate{ToolCallID: id, Title: "Edit " + path, Kind: acp.ToolKindEdit, Content: diff},
		Options: []acp.PermissionOption{
			{OptionID: "yes", Name: "Yes", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "no", Name: "No", Kind: acp.PermissionOptionKindRejectOnce},
		},
	})
	if err != nil {
		return nil
	}
	if resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionID != "yes" {
		a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusFailed}})
		a.say(ctx, sid, "edit refused")
		return nil
	}
	if _, err := a.conn.WriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: sid, Path: path, Content: newText}); err != nil {
		a.say(ctx, sid, "write failed: "+err.Error())
		return nil
	}
	a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusCompleted}})
	a.say(ctx, sid, "edited "+path)
	return nil
}
