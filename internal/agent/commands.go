package agent

import (
	"context"
	"errors"
	"fmt"
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
	display := func(path string) string { return displayPath(s.roots, path) }
	switch c.name {
	case "checkpoints":
		text, err := s.ckpts.describe(ctx, display)
		if err != nil {
			text = "The checkpoints cannot be read: " + err.Error()
		}
		say(text)
	case "undo":
		a.undo(ctx, s, c, path, send, display)
	case "keep":
		out, err := s.ckpts.keep(ctx, c.number, path)
		switch {
		case errors.Is(err, errNoCheckpoint):
			say(fmt.Sprintf("There is no checkpoint #%d. /checkpoints lists them.", c.number))
		case err != nil:
			say("Nothing was kept: " + err.Error())
		case len(out) == 0:
			say("Nothing to keep: no change is waiting to be kept or undone.")
		default:
			say(report("Kept", out, display))
		}
	}
	if ctx.Err() != nil {
		return acp.StopReasonCancelled
	}
	return acp.StopReasonEndTurn
}

func (a *agent) undo(ctx context.Context, s *session, c command, path string, send func(acp.SessionUpdate), display func(string) string) {
	say := func(text string) { send(acp.AgentMessageChunk(acp.TextBlock(text))) }
	ask := func(ctx context.Context, p string, current, target *string) (bool, error) {
		return a.confirmOverwrite(ctx, s, p, current, target, send, display)
	}
	cp, out, err := s.ckpts.undo(ctx, c.number, path, c.line, ask)
	switch {
	case errors.Is(err, errNoCheckpoint) && c.number != 0:
		say(fmt.Sprintf("There is no checkpoint #%d. /checkpoints lists them.", c.number))
		return
	case errors.Is(err, errNoCheckpoint):
		say("Nothing to undo: no change is waiting to be kept or undone.")
		return
	case err != nil:
		say("Nothing was undone: " + err.Error())
		return
	case len(out) == 0:
		say(fmt.Sprintf("Nothing to undo in checkpoint #%d: its files were kept or undone already.", cp.Number))
		return
	}
	for _, o := range out {
		if o.done && (o.before != nil || o.after != nil) {
			a.reportRestore(s, o, send, display)
		}
	}
	say(report(fmt.Sprintf("Undo of checkpoint #%d (itself undoable with /undo)", cp.Number), out, display))
}

// reportRestore shows one restored file as an edit, with its diff, so an editor can
// follow it.
func (a *agent) reportRestore(s *session, o fileOutcome, send func(acp.SessionUpdate), display func(string) string) {
	id := acp.ToolCallID(fmt.Sprintf("call_%d", a.callIDs.Add(1)))
	title := "Undo " + display(o.path)
	content := []acp.ToolCallContent{}
	if o.after != nil {
		content = append(content, acp.ToolCallContent{Diff: &acp.Diff{Path: o.path, OldText: o.before, NewText: *o.after}})
	}
	send(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: title, Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusCompleted,
		Content: content, Locations: []acp.ToolCallLocation{{Path: o.path}}}})
}

// confirmOverwrite asks whether an undo may overwrite a file that changed since parley
// wrote it, showing what the undo would do to it.
func (a *agent) confirmOverwrite(ctx context.Context, s *session, path string, current, target *string, send func(acp.SessionUpdate), display func(string) string) (bool, error) {
	id := acp.ToolCallID(fmt.Sprintf("call_%d", a.callIDs.Add(1)))
	title := "Undo " + display(path) + ": it changed since parley wrote it"
	var content []acp.ToolCallContent
	if target != nil {
		content = append(content, acp.ToolCallContent{Diff: &acp.Diff{Path: path, OldText: current, NewText: *target}})
	} else {
		content = append(content, acp.ToolContent(acp.TextBlock("The undo would delete "+display(path)+", which parley created and which was changed since.")))
	}
	send(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: title, Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusPending, Content: content}})
	resp, err := a.conn.RequestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall:  acp.ToolCallUpdate{ToolCallID: id, Title: title, Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusPending, Content: content},
		Options: []acp.PermissionOption{
			{OptionID: optAllowOnce, Name: "Overwrite my changes", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: optRejectOnce, Name: "Keep my version", Kind: acp.PermissionOptionKindRejectOnce},
		},
	})
	ok := err == nil && resp.Outcome.Selected != nil && resp.Outcome.Selected.OptionID == optAllowOnce
	status := acp.ToolCallStatusFailed
	if ok {
		status = acp.ToolCallStatusCompleted
	}
	send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: status}})
	return ok, err
}

func report(head string, out []fileOutcome, display func(string) string) string {
	var b strings.Builder
	b.WriteString(head + ":\n")
	for _, o := range out {
		fmt.Fprintf(&b, "- %s: %s\n", display(o.path), o.note)
	}
	return b.String()
}

// compactNow compacts the session's conversation at the user's word: all of it goes
// into the summary. What the summary requests took is the turn's usage.
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
