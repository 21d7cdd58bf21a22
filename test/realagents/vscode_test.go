//go:build linux

package realagents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/vscodelm"
	"github.com/parley-acp/parley/internal/vscodelm/vscodetest"
)

// vsClient is the fake VS Code extension (internal/vscodelm/vscodetest, which checks every
// frame parley writes) driving `parley vscodelm` in the sandbox, its debug log kept there
// (vscodelm.log) for a look at a failure.
type vsClient struct {
	*vscodetest.Client
	sb *sandbox
}

const agentActionName = "parley-agent-action"

var (
	agentActionTool = vscodelm.ToolDefinition{Name: agentActionName, Description: "Request permission for an agent to execute an internal tool",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"kind":{"type":"string"},"raw_input":{"type":"object"}}}`)}
	probeTools = []vscodelm.ToolDefinition{
		{Name: "parley_probe", Description: "Returns the probe value of this workspace.", InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`)},
		{Name: "parley_gauge", Description: "Returns the gauge reading of this workspace.", InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`)},
	}
)

// toolOutput is what the fake VS Code returns for a run of tool name.
func toolOutput(name string) string { return "result-of-" + name }

func (sb *sandbox) startVSCode(t testing.TB) *vsClient {
	t.Helper()
	c := &vsClient{sb: sb}
	c.Client = vscodetest.Start(t, vscodetest.Options{
		Binary: parleyBinary(t), Args: []string{"--log", "debug", "vscodelm"}, Env: sb.env, Dir: sb.workspace,
		HangGuard: runTimeout,
		AfterExit: func(t testing.TB) {
			os.WriteFile(filepath.Join(sb.root, "vscodelm.log"), []byte(strings.Join(c.LogLines(), "\n")+"\n"), 0o600)
			if t.Failed() {
				t.Logf("the agent's log:%s", sb.agentLog())
			}
		},
	})
	return c
}

// log is parley's debug log so far.
func (c *vsClient) log() string { return strings.Join(c.LogLines(), "\n") }

// chat sends one lm/provideLanguageModelChatResponse with the whole history and waits
// for its answer; caps, when set, declares what the client shows beyond text parts.
func (c *vsClient) chat(history []vscodelm.Message, tools []vscodelm.ToolDefinition, caps *vscodelm.ClientCapabilities) (int64, []vscodelm.ContentPart, error) {
	c.T.Helper()
	words := c.sb.agentCommandWords()
	agent, _ := json.Marshal(map[string]any{"id": c.sb.agent.name, "name": c.sb.agent.name, "command": words[0], "args": words[1:], "env": []any{}})
	id := c.Request(vscodetest.ChatMethod, vscodelm.ChatRequestParams{
		ModelID: c.sb.agent.name, Messages: history, Agent: agent,
		Options:      &vscodelm.RequestOptions{Tools: tools, ToolMode: "auto"},
		Capabilities: caps,
	})
	parts, _, err := c.Await(id)
	if err != nil {
		return id, parts, fmt.Errorf("error %d: %s", err.Code, err.Message)
	}
	return id, parts, nil
}

// vsConversation is one VS Code chat played to the end of an agent's turn.
type vsConversation struct {
	c       *vsClient
	tools   []vscodelm.ToolDefinition
	caps    *vscodelm.ClientCapabilities // what the client shows beyond text parts, if anything
	history []vscodelm.Message
	ids     []int64                // the requests sent
	text    strings.Builder        // every text part of the turn
	calls   []vscodelm.ContentPart // every tool_call part of the turn
	actions []vscodelm.ContentPart // the agent-action calls among them
}

func userMessage(parts ...vscodelm.ContentPart) vscodelm.Message {
	return vscodelm.Message{Role: vscodelm.RoleUser, Content: parts}
}

func textPart(s string) vscodelm.ContentPart { return vscodelm.TextPart(s) }

// maxRounds bounds the requests of one turn; an agent that loops fails the test.
const maxRounds = 12

// play sends text and plays VS Code until a reply calls no tool: it runs the VS Code tools
// a reply calls and answers agent-action calls with decide (true: approve; false:
// decline, by sending the declined message instead of the result, as VS Code does).
func (cv *vsConversation) play(t testing.TB, text string, decide func(vscodelm.ContentPart) (approve bool, declined string)) error {
	t.Helper()
	next := userMessage(textPart(text))
	for range maxRounds {
		cv.history = append(cv.history, next)
		id, parts, err := cv.c.chat(cv.history, cv.tools, cv.caps)
		cv.ids = append(cv.ids, id)
		if err != nil {
			return err
		}
		if len(parts) > 0 {
			cv.history = append(cv.history, vscodelm.Message{Role: vscodelm.RoleAssistant, Content: parts})
		}
		var results []vscodelm.ContentPart
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
				results = append(results, vscodetest.ToolResult(p.ToolCallID, output))
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

func approveAll(vscodelm.ContentPart) (bool, string) { return true, "" }

// agentCommandWords is agentCommand as words.
func (sb *sandbox) agentCommandWords() []string {
	return append([]string{selfPath(sb.t), teeRole, sb.frames, "--"}, sb.agent.argv()...)
}
