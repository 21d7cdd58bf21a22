package agent

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

// executor is the loop of one turn, and only the loop: the streamer runs each model
// reply, the tool runner each batch of calls; the executor decides what comes next.
type executor struct {
	model    string
	native   bool // tools through the API; otherwise described in the prompt and parsed from text
	think    bool
	numCtx   int
	maxTurns int
	system   string
	tools    []llm.Tool
	streamer *streamer
	runner   *toolRunner
	send     func(acp.SessionUpdate)
	history  *[]llm.Message // the session's conversation, which the turn extends
	ctxSize  int
}

// editVerbs mark a task that should change files; such a task is not accepted as done
// while nothing was written (a nudge, once: it is a heuristic).
var editVerbs = regexp.MustCompile(`(?i)\b(rename|change|modify|edit|update|add|create|write|fix|refactor|remove|delete|implement)\b`)

func (e *executor) run(ctx context.Context, task string) (acp.StopReason, error) {
	*e.history = append(*e.history, llm.Message{Role: "user", Content: task})
	wantsWrite := editVerbs.MatchString(task)
	wrote, nudged, loopWarned := false, false, false
	var loops loopDetector
	for range e.maxTurns {
		req := &llm.Request{Model: e.model, Messages: e.messages(), Think: e.think, NumCtx: e.numCtx}
		if e.native {
			req.Tools = e.tools
		}
		res, err := e.streamer.run(ctx, req)
		if ctx.Err() != nil {
			e.keepPartial(res)
			return acp.StopReasonCancelled, nil
		}
		if err != nil {
			return "", err
		}
		e.reportUsage(res.Usage)
		calls, modelIDs, problems := e.collect(res)
		e.appendAssistant(res)
		if len(calls) == 0 && len(problems) == 0 {
			if wantsWrite && !wrote && !nudged {
				nudged = true
				*e.history = append(*e.history, llm.Message{Role: "user", Content: "You have not changed any file yet, but the task asks for changes. Make them with the file tools, or say why you cannot."})
				continue
			}
			return acp.StopReasonEndTurn, nil
		}
		results := e.runner.run(ctx, calls, modelIDs)
		for _, r := range results {
			wrote = wrote || r.wrote
		}
		stop := false
		for _, r := range results {
			if loops.observe(r.call.Name, r.call.Args, []byte(r.output)) {
				if loopWarned {
					stop = true
				}
				loopWarned = true
			}
		}
		e.appendResults(results, problems, loopWarned && !stop)
		if ctx.Err() != nil {
			return acp.StopReasonCancelled, nil
		}
		if stop {
			e.send(acp.AgentMessageChunk(acp.TextBlock("\n\nStopped: the model kept repeating the same tool call with the same result.")))
			return acp.StopReasonEndTurn, nil
		}
		if res.Completed && (!wantsWrite || wrote) {
			return acp.StopReasonEndTurn, nil // the calls that came with the marker ran first
		}
	}
	return acp.StopReasonMaxTurnRequests, nil
}

func (e *executor) messages() []llm.Message {
	return append([]llm.Message{{Role: "system", Content: e.system}}, *e.history...)
}

// collect turns the reply's tool calls, native or written in the text, into calls to run,
// and the ones that cannot run into problems for the model to correct.
func (e *executor) collect(res *streamResult) (calls []pendingCall, modelIDs []string, problems []string) {
	for _, c := range res.NativeCalls {
		name, ok := e.runner.known(c.Name)
		if !ok {
			problems = append(problems, fmt.Sprintf("There is no tool named %q. The tools are: %s.", c.Name, e.toolNames()))
			continue
		}
		args := c.Arguments
		if len(args) == 0 || !json.Valid(args) {
			args = json.RawMessage("{}")
		}
		calls = append(calls, pendingCall{Name: name, Args: args})
		modelIDs = append(modelIDs, c.ID)
	}
	for _, c := range res.TextCalls {
		calls = append(calls, pendingCall{Name: c.Name, Args: c.Arguments})
		modelIDs = append(modelIDs, "")
	}
	for _, p := range res.Problems {
		problems = append(problems, p.Message)
	}
	return calls, modelIDs, problems
}

func (e *executor) toolNames() string {
	var names []string
	for _, t := range e.tools {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// appendAssistant records the reply in the history format of the path in use: native
// replies keep their thinking and tool calls; text replies keep the text as written.
func (e *executor) appendAssistant(res *streamResult) {
	m := llm.Message{Role: "assistant", Content: res.Raw, Thinking: res.Thinking}
	if e.native {
		m.ToolCalls = res.NativeCalls
	}
	*e.history = append(*e.history, m)
}

// keepPartial records what the model said before the turn was cancelled.
func (e *executor) keepPartial(res *streamResult) {
	if res != nil && strings.TrimSpace(res.Raw) != "" {
		*e.history = append(*e.history, llm.Message{Role: "assistant", Content: res.Raw})
	}
}

// appendResults feeds the results back: one tool message per call on the native path
// (with the tool's name, and the model's call id when it gave one); one user message
// with every result on the text path.
func (e *executor) appendResults(results []callResult, problems []string, warnLoop bool) {
	var notes []string
	if len(problems) > 0 {
		notes = append(notes, "Some tool calls could not be used:\n- "+strings.Join(problems, "\n- ")+"\nCorrect them and try again.")
	}
	if warnLoop {
		notes = append(notes, "You are repeating the same tool call with the same result. Do something different, or finish.")
	}
	if e.native {
		for _, r := range results {
			*e.history = append(*e.history, llm.Message{Role: "tool", Content: toolOutput(r), ToolName: r.call.Name, ToolCallID: r.modelID})
		}
		if len(notes) > 0 {
			*e.history = append(*e.history, llm.Message{Role: "user", Content: strings.Join(notes, "\n\n")})
		}
		return
	}
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "<tool_result name=%q>\n%s\n</tool_result>\n", r.call.Name, toolOutput(r))
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	*e.history = append(*e.history, llm.Message{Role: "user", Content: strings.TrimSpace(b.String())})
}

func toolOutput(r callResult) string {
	if r.isError {
		return "ERROR: " + r.output
	}
	return r.output
}

func (e *executor) reportUsage(u *llm.Usage) {
	if u == nil || e.ctxSize == 0 {
		return
	}
	e.send(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: uint64(u.PromptTokens + u.CompletionTokens), Size: uint64(e.ctxSize)}})
}
