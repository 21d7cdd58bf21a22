package agent

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agent/tools"
)

// The session's slash commands: the user's, never the model's. A prompt that starts
// with one runs it instead of a model turn.

func availableCommands(checkpoints bool) []acp.AvailableCommand {
	compact := acp.AvailableCommand{Name: "compact", Description: "replace the conversation so far by a summary the model writes, to free its context window"}
	if !checkpoints {
		return []acp.AvailableCommand{compact}
	}
	hint := func(h string) *acp.AvailableCommandInput {
		return &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: h}}
	}
	return []acp.AvailableCommand{
		compact,
		{Name: "checkpoints", Description: "list the checkpoints of this session: the files each turn changed"},
		{Name: "undo", Description: "restore the files of the last turn (or checkpoint N, or one file of it); an undo can be undone", Input: hint("[N] [file]")},
		{Name: "keep", Description: "accept the changes of every turn (or checkpoint N, or one file of it): they can no longer be undone", Input: hint("[N] [file]")},
	}
}

// command is a parsed slash command.
type command struct {
	name   string
	number int    // checkpoint number; 0 when not given
	path   string // file argument, as the user wrote it
	line   string // the whole command, for labels
}

// parseCommand recognises "/compact", "/checkpoints", "/undo [N] [file]" and
// "/keep [N] [file]".
func parseCommand(text string) (command, bool) {
	text = strings.TrimSpace(text)
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return command{}, false
	}
	c := command{name: strings.TrimPrefix(fields[0], "/"), line: text}
	switch fields[0] {
	case "/compact", "/checkpoints", "/undo", "/keep":
	default:
		return command{}, false
	}
	args := fields[1:]
	if len(args) > 0 {
		if n, err := strconv.Atoi(strings.TrimPrefix(args[0], "#")); err == nil && n > 0 {
			c.number, args = n, args[1:]
		}
	}
	c.path = strings.Join(args, " ")
	return c, true
}

// runCommand runs a slash command and reports it as the agent's reply.
func (a *agent) runCommand(ctx context.Context, s *session, c command, send func(acp.SessionUpdate)) acp.StopReason {
	say := func(text string) { send(acp.AgentMessageChunk(acp.TextBlock(text))) }
	if c.name == "compact" {
		return a.compactNow(ctx, s, send)
	}
	if s.ckpts == nil {
		say("Checkpoints are off: parley's database could not be opened, so nothing is kept to undo.")
		return acp.StopReasonEndTurn
	}
	path := ""
	if c.path != "" {
		abs := c.path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(s.roots.Dirs()[0], abs)
		}
		path = filepath.Clean(abs)
	}
	switch c.name {
	case "checkpoints":
		text, err := s.ckpts.describe(ctx)
		if err != nil {
			text = "The checkpoints cannot be read: " + err.Error()
		}
		say(text)
	case "undo":
		a.undo(ctx, s, c, path, send)
	case "keep":
		text, err := s.ckpts.keep(ctx, c.number, path)
		if err != nil {
			text = "Nothing was kept: " + err.Error()
		}
		say(text)
	}
	if ctx.Err() != nil {
		return acp.StopReasonCancelled
	}
	return acp.StopReasonEndTurn
}
func (a *agent) compactNow(ctx context.Context, s *session, send func(acp.SessionUpdate)) acp.StopReason {
	say := func(text string) { send(acp.AgentMessageChunk(acp.TextBlock(text))) }
	if len(s.conv.messages) == 0 {
		say("Nothing to compact: the conversation is empty.")
		return acp.StopReasonEndTurn
	}
	info, err := a.modelInfo(ctx)
	if err != nil {
		say("The conversation was not compacted: " + err.Error())
		return acp.StopReasonEndTurn
	}
	runner := &toolRunner{registry: tools.DefaultRegistry(), session: s.tools, mcp: s.mcp}
	llmTools := offeredTools(runner.llmTools(), a.window().Size())
	fp := newFixedPart(systemPrompt(s.roots.Dirs(), llmTools, info.Tools), nativeTools(llmTools, info.Tools))
	if _, err := a.compactor(send, &turnUsage{}).compact(ctx, &s.conv, fp, -1, true); err != nil {
		if ctx.Err() != nil {
			return acp.StopReasonCancelled
		}
		say("The conversation was not compacted: " + err.Error())
	}
	return acp.StopReasonEndTurn
}
