package coder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/lazy"
	"github.com/parley-acp/parley/internal/llm"
)

// executor is the loop of one turn, and only the loop: the streamer runs each model
// reply, the tool runner each batch of calls, the compactor keeps the conversation inside
// the window; the executor decides what comes next.
type executor struct {
	model     string
	native    bool // tools through the API; otherwise described in the prompt and parsed from text
	think     bool
	maxTurns  int
	system    string
	tools     []llm.Tool
	streamer  *streamer
	runner    *toolRunner
	compactor *compactor
	send      func(acp.SessionUpdate)
	conv      *conversation // the session's conversation, which the turn extends
	win       *window
	cal       *calibration

	fixed    fixedPart  // the system prompt and tools, as counted
	task     int        // the index of the turn's task in conv.messages
	taskText string     // the task as the user wrote it
	usage    *turnUsage // what the turn's requests took, by the server's counts
}

// editVerbs mark a task that should change files; such a task is not accepted as done
// while nothing was written (a nudge, once: it is a heuristic).
var editVerbs = lazy.Regexp(`(?i)\b(rename|change|modify|edit|update|add|create|write|fix|refactor|remove|delete|implement)\b`)

func (e *executor) run(ctx context.Context, task string, images []llm.Image) (acp.StopReason, error) {
	e.fixed = newFixedPart(e.system, e.requestTools())
	e.conv.messages = append(e.conv.messages, llm.Message{Role: "user", Content: task, Images: images})
	e.task, e.taskText = len(e.conv.messages)-1, task
	wantsWrite := editVerbs().MatchString(task)
	wrote, nudged, loopWarned, resized := false, false, false, false
	var loops loopDetector
	for range e.maxTurns {
		res, err := e.ask(ctx)
		if ctx.Err() != nil {
			e.keepPartial(res)
			return acp.StopReasonCancelled, nil
		}
		if errors.Is(err, llm.ErrContextTooLong) && !resized {
			// The server's window is smaller than the agent thought: learn it and
			// compact to it, once a turn.
			limit, _ := llm.ContextLimit(err)
			if resized = e.win.shrink(limit); resized {
				continue
			}
		}
		if err != nil {
			return "", err
		}
		if stop := e.stopped(res); stop != "" {
			e.reportUsage()
			return stop, nil
		}
		calls, modelIDs, problems := e.collect(res)
		e.appendAssistant(res)
		if len(calls) == 0 && len(problems) == 0 {
			if wantsWrite && !wrote && !nudged {
				nudged = true
				e.conv.messages = append(e.conv.messages, llm.Message{Role: "user", Content: "You have not changed any file yet, but the task asks for changes. Make them with the file tools, or say why you cannot."})
				continue
			}
			e.reportUsage()
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
		e.reportUsage()
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

// ask makes the conversation fit the window, sends it, and learns from the server's
// count of the prompt.
func (e *executor) ask(ctx context.Context) (*streamResult, error) {
	task, err := e.compactor.compact(ctx, e.conv, e.fixed, e.task, false)
	if err != nil {
		return nil, err
	}
	e.task = task
	req := &llm.Request{Model: e.model, Messages: e.messages(), Think: e.think, Tools: e.requestTools()}
	e.win.request(req, e.conv.bound(e.fixed, e.conv.messages, e.cal))
	sent := len(e.conv.messages)
	res, err := e.streamer.run(ctx, req)
	if res != nil && res.Usage != nil {
		e.usage.add(res.Usage)
		e.conv.observe(e.fixed, sent, res.Usage.PromptTokens, e.cal)
	}
	return res, err
}

func (e *executor) requestTools() []llm.Tool { return nativeTools(e.tools, e.native) }

// nativeTools are the tools a request carries: none on the text path, where the system
// prompt describes them.
func nativeTools(tools []llm.Tool, native bool) []llm.Tool {
	if native {
		return tools
	}
	return nil
}

// stopped reports how the turn ends when the server cut or withheld the reply ("" when
// it did neither). A reply cut at the length limit is kept and shown, but its tool
// calls are not run: their arguments may be cut too (a file written half). A reply the
// server withheld ends the turn as a refusal, with what the server said, and the turn's
// messages leave the conversation (the next prompt does not carry them, as ACP's
// refusal means).
func (e *executor) stopped(res *streamResult) acp.StopReason {
	switch {
	case res.StopReason == llm.StopLength:
		e.conv.messages = append(e.conv.messages, llm.Message{Role: "assistant", Content: res.Raw, Thinking: res.Thinking})
		note := fmt.Sprintf("\n\n[The reply was cut off: it reached the model server's limit for one reply (the context window is %d tokens).", e.win.Size())
		if len(res.NativeCalls)+len(res.TextCalls) > 0 {
			note += " The tool calls in it did not run."
		}
		e.send(acp.AgentMessageChunk(acp.TextBlock(note + "]")))
		return acp.StopReasonMaxTokens
	case res.StopReason == llm.StopFiltered || res.Refusal != "":
		said := res.Refusal
		if said == "" {
			said = "it gave no reason"
		}
		e.send(acp.AgentMessageChunk(acp.TextBlock(fmt.Sprintf("\n\n[The model's server withheld the reply (%s): %s]", res.StopReason, said))))
		e.forgetTurn()
		return acp.StopReasonRefusal
	}
	return ""
}

// forgetTurn takes the turn's messages out of the conversation: from its task on, and
// the task from the summary that holds it when compaction merged them.
func (e *executor) forgetTurn() {
	if e.task < 0 || e.task >= len(e.conv.messages) {
		return
	}
	first := e.conv.messages[e.task]
	e.conv.messages = e.conv.messages[:e.task]
	if summary, _, ok := strings.Cut(first.Content, taskHeading); ok && strings.HasPrefix(first.Content, summaryPrefix) {
		e.conv.messages = append(e.conv.messages, llm.Message{Role: "user", Content: summary})
	} else if summary, ok := strings.CutSuffix(first.Content, "\n\n"+e.taskText); ok && strings.HasPrefix(first.Content, summaryPrefix) {
		e.conv.messages = append(e.conv.messages, llm.Message{Role: "user", Content: summary})
	}
	if e.task < e.conv.saved {
		e.conv.rewrote = true // the store holds messages that are gone
	}
}

func (e *executor) messages() []llm.Message {
	return append([]llm.Message{{Role: "system", Content: e.system}}, e.conv.messages...)
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
	e.conv.messages = append(e.conv.messages, m)
}

// keepPartial records what the model said before the turn was cancelled.
func (e *executor) keepPartial(res *streamResult) {
	if res != nil && strings.TrimSpace(res.Raw) != "" {
		e.conv.messages = append(e.conv.messages, llm.Message{Role: "assistant", Content: res.Raw})
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
	limit := e.resultLimit(len(results))
	if e.native {
		for _, r := range results {
			e.conv.messages = append(e.conv.messages, llm.Message{Role: "tool", Content: cutToFit(toolOutput(r), limit, r.call.Name, e.cal), ToolName: r.call.Name, ToolCallID: r.modelID})
		}
		if len(notes) > 0 {
			e.conv.messages = append(e.conv.messages, llm.Message{Role: "user", Content: strings.Join(notes, "\n\n")})
		}
		return
	}
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "<tool_result name=%q>\n%s\n</tool_result>\n", r.call.Name, cutToFit(toolOutput(r), limit, r.call.Name, e.cal))
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	e.conv.messages = append(e.conv.messages, llm.Message{Role: "user", Content: strings.TrimSpace(b.String())})
}

// resultLimit is the most tokens one of n tool results may take in the conversation:
// together, a third of the room the window leaves after the system prompt and tools,
// so a large file read leaves room for the rest of the conversation and the reply. A
// result cut to it says how to read the rest.
func (e *executor) resultLimit(n int) int {
	room := e.win.Budget() - e.conv.bound(e.fixed, nil, e.cal)
	return max(room/3/max(n, 1), 128)
}

func toolOutput(r callResult) string {
	if r.isError {
		return "ERROR: " + r.output
	}
	return r.output
}

// reportUsage tells the client how full the window is: what the next request will
// carry, as far as it is known now (the conversation so far, the system prompt, the
// tools).
func (e *executor) reportUsage() {
	used := e.conv.size(e.fixed, e.conv.messages, e.cal)
	e.send(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: uint64(used), Size: uint64(e.win.Size())}})
}

// turnUsage adds up what a turn's requests took, by the server's counts.
type turnUsage struct {
	mu            sync.Mutex
	input, output uint64
}

func (u *turnUsage) add(x *llm.Usage) {
	if x == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.input += uint64(max(x.PromptTokens, 0))
	u.output += uint64(max(x.CompletionTokens, 0))
}

// acp is the turn's usage for the prompt response; nil when the server counted nothing.
func (u *turnUsage) acp() *acp.Usage {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.input+u.output == 0 {
		return nil
	}
	return &acp.Usage{InputTokens: u.input, OutputTokens: u.output, TotalTokens: u.input + u.output}
}
