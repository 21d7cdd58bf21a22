//go:build linux

package realagents

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// vsClient is a minimal VS Code extension driving `parley vscodelm` over stdio. It is this
// suite's own (internal/vscodelm/conformance has a complete one): it knows only what the
// scenarios need, and its wire types are written from the protocol, not imported.
type vsClient struct {
	t      testing.TB
	sb     *sandbox
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr bytes.Buffer
	exited chan struct{}
	// closeOnce: the scenario closes the client, and so does the test's cleanup.
	closeOnce sync.Once

	mu      sync.Mutex
	nextID  int
	pending map[int]*vsCall
}

// vsPart is a content part (text, tool_call, tool_result).
type vsPart struct {
	Type       string          `json:"type"`
	Value      string          `json:"value,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Parameters json.RawMessage `json:"parameters,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
}

type vsMessage struct {
	Role    string   `json:"role"`
	Content []vsPart `json:"content"`
}

type vsTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type vsCall struct {
	parts []vsPart
	done  chan struct{}
	err   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
}

const agentActionName = "parley-agent-action"

var (
	agentActionTool = vsTool{Name: agentActionName, Description: "Request permission for an agent to execute an internal tool",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"kind":{"type":"string"},"raw_input":{"type":"object"}}}`)}
	probeTools = []vsTool{
		{Name: "parley_probe", Description: "Returns the probe value of this workspace.", InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`)},
		{Name: "parley_gauge", Description: "Returns the gauge reading of this workspace.", InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`)},
	}
)

// toolOutput is what the fake VS Code returns for a run of tool name.
func toolOutput(name string) string { return "result-of-" + name }

func (sb *sandbox) startVSCode(t testing.TB) *vsClient {
	t.Helper()
	// Its debug log is kept in the sandbox (vscodelm.log), for a look at a failure.
	cmd := exec.Command(parleyBinary(t), "--log", "debug", "vscodelm")
	cmd.Env, cmd.Dir = sb.env, sb.workspace
	c := &vsClient{t: t, sb: sb, cmd: cmd, pending: map[int]*vsCall{}, exited: make(chan struct{})}
	cmd.Stderr = &c.stderr
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.read(stdout)
	go func() { cmd.Wait(); close(c.exited) }()
	t.Cleanup(c.close)
	return c
}

func (c *vsClient) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var f struct {
			ID     *int `json:"id"`
			Method string
			Params struct {
				RequestID int `json:"requestId"`
				Part      vsPart
			}
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
		}
		if json.Unmarshal(sc.Bytes(), &f) != nil {
			continue
		}
		c.mu.Lock()
		switch {
		case f.Method == "lm/responsePart":
			if call := c.pending[f.Params.RequestID]; call != nil {
				call.parts = append(call.parts, f.Params.Part)
			}
		case f.Method == "" && f.ID != nil:
			if call := c.pending[*f.ID]; call != nil {
				call.err = f.Error
				delete(c.pending, *f.ID)
				close(call.done)
			}
		}
		c.mu.Unlock()
	}
}

// close ends the backend as VS Code does (stdin closed) and waits for it.
func (c *vsClient) close() {
	c.closeOnce.Do(func() {
		c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			c.t.Errorf("parley vscodelm did not exit after stdin closed\nstderr:\n%s", c.stderr.String())
			c.cmd.Process.Kill()
			<-c.exited
		}
		os.WriteFile(filepath.Join(c.sb.root, "vscodelm.log"), c.stderr.Bytes(), 0o600)
	})
}

// chat sends one lm/provideLanguageModelChatResponse with the whole history and waits
// for its answer.
func (c *vsClient) chat(history []vsMessage, tools []vsTool) ([]vsPart, error) {
	c.t.Helper()
	words := c.sb.agentCommandWords()
	agent := map[string]any{"id": c.sb.agent.name, "name": c.sb.agent.name, "command": words[0], "args": words[1:], "env": []any{}}
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	call := &vsCall{done: make(chan struct{})}
	c.pending[id] = call
	c.mu.Unlock()
	params := map[string]any{"modelId": c.sb.agent.name, "messages": history, "agent": agent, "options": map[string]any{"tools": tools, "toolMode": "auto"}}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "lm/provideLanguageModelChatResponse", "params": params})
	if _, err := c.stdin.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("writing to parley vscodelm: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	select {
	case <-call.done:
	case <-c.exited:
		return nil, fmt.Errorf("parley vscodelm exited\nstderr:\n%s", c.stderr.String())
	case <-ctx.Done():
		return nil, fmt.Errorf("no answer in %v\nstderr:\n%s%s", runTimeout, c.stderr.String(), c.sb.agentLog())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if call.err != nil {
		return call.parts, fmt.Errorf("error %d: %s", call.err.Code, call.err.Message)
	}
	return call.parts, nil
}

// vsConversation is one VS Code chat played to the end of an agent's turn.
type vsConversation struct {
	c       *vsClient
	tools   []vsTool
	history []vsMessage
	text    strings.Builder // every text part of the turn
	calls   []vsPart        // every tool_call part of the turn
	actions []vsPart        // the agent-action calls among them
}

func userMessage(parts ...vsPart) vsMessage { return vsMessage{Role: "user", Content: parts} }

func textPart(s string) vsPart { return vsPart{Type: "text", Value: s} }

// maxRounds bounds the requests of one turn; an agent that loops fails the test.
const maxRounds = 12

// play sends text and plays VS Code until a reply calls no tool: it runs the VS Code tools
// a reply calls and answers agent-action calls with decide (true: approve; false:
// decline, by sending the declined message instead of the result, as VS Code does).
func (cv *vsConversation) play(t testing.TB, text string, decide func(vsPart) (approve bool, declined string)) error {
	t.Helper()
	next := userMessage(textPart(text))
	for range maxRounds {
		cv.history = append(cv.history, next)
		parts, err := cv.c.chat(cv.history, cv.tools)
		if err != nil {
			return err
		}
		if len(parts) > 0 {
			cv.history = append(cv.history, vsMessage{Role: "assistant", Content: parts})
		}
		var results []vsPart
		declined := ""
		for _, p := range parts {
			switch p.Type {
			case "text":
				cv.text.WriteString(p.Value)
			case "tool_call":
				cv.calls = append(cv.calls, p)
				output := toolOutput(p.ToolName)
				if p.ToolName == agentActionName {
					cv.actions = append(cv.actions, p)
					approve, instead := decide(p)
					if !approve {
						declined = instead
						continue
					}
					output = "Approved"
				}
				result, _ := json.Marshal([]map[string]string{{"value": output}})
				results = append(results, vsPart{Type: "tool_result", ToolCallID: p.ToolCallID, Result: result})
			}
		}
		switch {
		case declined != "":
			next = userMessage(textPart(declined))
		case len(results) > 0:
			next = userMessage(results...)
		default:
			return nil
		}
	}
	return fmt.Errorf("the turn did not end in %d requests; tool calls: %+v", maxRounds, cv.calls)
}

func approveAll(vsPart) (bool, string) { return true, "" }

// agentCommandWords is agentCommand as words.
func (sb *sandbox) agentCommandWords() []string {
	return append([]string{selfPath(sb.t), teeRole, sb.frames, "--"}, sb.agent.argv()...)
}
