package coder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/coder/tools"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/mcpclient"
)

// pendingCall is one tool call the model asked for, before it runs.
type pendingCall struct {
	ID   acp.ToolCallID
	Name string          // canonical tool name
	Args json.RawMessage // a JSON object
	Kind acp.ToolKind
}

// callResult is what one call gave, for the history and the loop detector.
type callResult struct {
	call    pendingCall
	modelID string // the model's own call id (OpenAI), "" when it gave none
	output  string
	isError bool
	wrote   bool // a file was written
}

// toolRunner runs one batch of tool calls and reports each to the client.
type toolRunner struct {
	registry *tools.Registry
	session  *tools.Session
	mcp      map[string]mcpTool // offered MCP tools by the name the model sees
	// guard gives each call the tools.Guard its commands and writes go through; nil runs
	// them unguarded (tests of the loop alone).
	guard func(pendingCall) *callGuard
	send  func(acp.SessionUpdate)
	ids   *atomic.Int64
}

// mcpTool is a tool of an MCP server the client gave the session.
type mcpTool struct {
	client *mcp.ClientSession
	name   string // the server's own name for it
	tool   *mcp.Tool
}

// known maps a name the model wrote to a tool's canonical name.
func (r *toolRunner) known(name string) (string, bool) {
	if c, ok := r.registry.Canonical(name); ok {
		return c, true
	}
	if _, ok := r.mcp[name]; ok {
		return name, true
	}
	return "", false
}

// llmTools lists every tool in the model's terms.
func (r *toolRunner) llmTools() []llm.Tool {
	var out []llm.Tool
	for _, t := range r.registry.All() {
		out = append(out, llm.Tool{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
	}
	for name, t := range r.mcp {
		schema, _ := json.Marshal(t.tool.InputSchema)
		if len(schema) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, llm.Tool{Name: name, Description: t.tool.Description, Parameters: schema})
	}
	return out
}

// run runs the calls one after another (their order can matter: read, then edit) and
// reports each: tool_call when it starts, tool_call_update when it ends.
func (r *toolRunner) run(ctx context.Context, calls []pendingCall, modelIDs []string) []callResult {
	var results []callResult
	for i, c := range calls {
		if ctx.Err() != nil {
			break
		}
		res := r.runOne(ctx, c)
		if i < len(modelIDs) {
			res.modelID = modelIDs[i]
		}
		results = append(results, res)
	}
	return results
}

func (r *toolRunner) runOne(ctx context.Context, c pendingCall) callResult {
	c.ID = acp.ToolCallID(fmt.Sprintf("call_%d", r.ids.Add(1)))
	title := c.Name
	if t, ok := r.registry.Lookup(c.Name); ok {
		c.Kind = t.Kind()
	} else {
		c.Kind = acp.ToolKindOther
		title = "MCP " + c.Name
	}
	r.send(acp.SessionUpdate{ToolCall: &acp.ToolCall{
		ToolCallID: c.ID, Title: title, Name: c.Name, Kind: c.Kind,
		Status: acp.ToolCallStatusPending, RawInput: c.Args,
	}})
	started := sync.OnceFunc(func() {
		r.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: c.ID, Status: acp.ToolCallStatusInProgress}})
	})
	var guard *callGuard
	sess := r.session
	if r.guard != nil {
		guard = r.guard(c)
		guard.started = started
		sess = sess.WithGuard(guard)
	}
	var res tools.Result
	if t, ok := r.registry.Lookup(c.Name); ok {
		if guard == nil || (c.Kind != acp.ToolKindEdit && c.Kind != acp.ToolKindExecute) {
			started() // a call that may ask the user is in progress once it was allowed
		}
		var err error
		res, err = t.Run(ctx, sess, c.Args)
		if err != nil {
			res = tools.Result{Output: "The tool failed: " + err.Error(), IsError: true}
		}
	} else {
		res = r.runMCP(ctx, c, guard)
	}
	r.finish(c, res)
	return callResult{call: c, output: res.Output, isError: res.IsError, wrote: res.Diff != nil && !res.IsError}
}

func (r *toolRunner) runMCP(ctx context.Context, c pendingCall, guard *callGuard) tools.Result {
	t, ok := r.mcp[c.Name]
	if !ok {
		return tools.Result{Output: "There is no tool named " + c.Name, IsError: true}
	}
	if guard != nil {
		err := guard.outcome(guard.approver.approveMCP(ctx, c))
		if r, ok := errors.AsType[*tools.Refusal](err); ok {
			return tools.Result{Output: r.Message, IsError: true}
		}
		if err != nil {
			return tools.Result{Output: "The tool did not run: " + err.Error(), IsError: true}
		}
		guard.started()
	}
	var args map[string]any
	if len(strings.TrimSpace(string(c.Args))) > 0 && string(c.Args) != "null" {
		if err := json.Unmarshal(c.Args, &args); err != nil {
			return tools.Result{Output: "Error: invalid arguments for " + c.Name + ": they must be a JSON object (" + err.Error() + ")", IsError: true}
		}
	}
	res, err := t.client.CallTool(ctx, &mcp.CallToolParams{Name: t.name, Arguments: args})
	if err != nil {
		return tools.Result{Output: "The tool failed: " + err.Error(), IsError: true}
	}
	return tools.Result{Output: mcpclient.ResultText(res), IsError: res.IsError}
}

// finish reports how a call ended, with what the client needs to show it: a diff for an
// edit, the command for a terminal, the output as text.
func (r *toolRunner) finish(c pendingCall, res tools.Result) {
	u := &acp.ToolCallUpdate{ToolCallID: c.ID, Status: acp.ToolCallStatusCompleted, Locations: res.Locations}
	if res.IsError {
		u.Status = acp.ToolCallStatusFailed
	}
	if res.Title != "" {
		u.Title = res.Title
	}
	if res.Diff != nil {
		u.Content = append(u.Content, acp.ToolCallContent{Diff: &acp.Diff{Path: res.Diff.Path, OldText: res.Diff.OldText, NewText: res.Diff.NewText}})
	}
	if out := strings.TrimSpace(res.Output); out != "" && res.Diff == nil {
		u.Content = append(u.Content, acp.ToolContent(acp.TextBlock(clip(out, 4000))))
	}
	if res.Command != "" {
		raw, _ := json.Marshal(map[string]string{"command": res.Command})
		u.RawInput = raw
	}
	raw, _ := json.Marshal(map[string]any{"output": clip(res.Output, 4000), "isError": res.IsError})
	u.RawOutput = raw
	r.send(acp.SessionUpdate{ToolCallUpdate: u})
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n[…]"
}
