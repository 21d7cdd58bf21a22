package coder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/lazy"
	"github.com/parley-acp/parley/internal/llm"
)

// Compaction: when the next request would not fit the budget (or the user asks with
// /compact), the older part of the conversation is replaced by a summary the model
// writes in a separate request. What stays word for word: the system prompt and tools
// (they are not part of the history), the task of the turn (kept in place, or quoted
// in the summary when it falls in the older part), the latest messages up to half the
// room the window leaves for the conversation, and always the step in progress: the
// model's last tool calls with every result it has not seen yet. If that is still too
// large, the largest kept messages are cut to a head and a tail, then the summary, so a
// request always fits. If the model cannot summarize, the user's own messages from the
// older part are kept instead (cut to fit), so nothing the user said is dropped
// without a trace.

// summaryInstructions are the summary request's system prompt.
const summaryInstructions = `You are compacting the conversation of a coding agent so that it fits the model's context window. Write the summary the agent will read in place of the conversation below. Keep, in this order:
1. every fact the user stated (names, numbers, paths, preferences, constraints), word for word where short;
2. each request of the user, and whether it was done;
3. what was learned about the code: files, functions, findings;
4. the changes made and the commands run, with their results;
5. what remains to do.
An earlier summary, when there is one, is part of the conversation: keep what it says. Write plain text, at most about %d words, with no preamble. Do not add anything that is not in the conversation.`

// compactor rewrites a conversation to fit the window.
type compactor struct {
	provider llm.Provider
	model    string
	win      *window
	cal      *calibration
	send     func(acp.SessionUpdate)
	ids      *atomic.Int64
	usage    *turnUsage // the summary requests count in the turn's usage
}

// errWindowTooSmall: the system prompt and tools leave no room for a conversation.
var errWindowTooSmall = errors.New("the context window is too small")

// compact makes conv fit a request with fp, or rewrites it anyway when force. task is
// the index of the turn's task in conv.messages (-1: none); the task's new index is
// returned.
func (k *compactor) compact(ctx context.Context, conv *conversation, fp fixedPart, task int, force bool) (int, error) {
	budget := k.win.Budget()
	before := conv.bound(fp, conv.messages, k.cal)
	if !force && before <= budget {
		return task, nil
	}
	fixed := conv.bound(fp, nil, k.cal)
	room := budget - fixed
	if room < minReplyRoom/2 {
		return task, fmt.Errorf("%w: the system prompt and the tools take about %d of its %d tokens; give the model a larger window (--context)", errWindowTooSmall, fixed, k.win.Size())
	}
	id := acp.ToolCallID(fmt.Sprintf("call_%d", k.ids.Add(1)))
	k.send(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: "Compact the conversation", Kind: acp.ToolKindThink, Status: acp.ToolCallStatusInProgress}})

	msgs := conv.messages
	keepFrom := firstToKeep(msgs, task)
	if !force {
		kept := 0
		for i := keepFrom; i < len(msgs); i++ {
			kept += messageSize(msgs[i], k.cal)
		}
		for i := keepFrom - 1; i >= 0; i-- {
			kept += messageSize(msgs[i], k.cal)
			if kept > room/2 {
				break
			}
			if msgs[i].Role != "tool" { // a kept part never starts with a result whose call is gone
				keepFrom = i
			}
		}
	}
	older, kept := msgs[:keepFrom], append([]llm.Message(nil), msgs[keepFrom:]...)
	target := max(room/6, 64)
	var summary, how string
	if len(older) > 0 {
		var err error
		summary, err = k.summarize(ctx, older, target)
		switch {
		case ctx.Err() != nil:
			k.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusFailed}})
			return task, ctx.Err()
		case err != nil:
			summary = userMessagesDigest(older, target, k.cal)
			how = fmt.Sprintf(" The model could not summarize (%v), so the user's messages from that part are kept instead.", err)
		}
	}
	out, newTask := assemble(older, kept, summary, task, keepFrom, k.cal, target)
	out, err := k.shrink(out, fp, conv, budget)
	if err != nil {
		k.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusFailed,
			Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(err.Error()))}}})
		return task, err
	}
	conv.messages, conv.rewrote = out, true
	after := conv.size(fp, out, k.cal)
	olderSize := 0
	for _, m := range older {
		olderSize += messageSize(m, k.cal)
	}
	note := fmt.Sprintf("Compacted the conversation to fit the model's context window: %d earlier messages (about %d tokens) were replaced by a summary the model wrote; the next request carries about %d of %d tokens.%s",
		len(older), olderSize, after, k.win.Size(), how)
	if len(older) == 0 {
		note = fmt.Sprintf("Compacted the conversation to fit the model's context window: the largest messages were cut; the next request carries about %d of %d tokens.", after, k.win.Size())
	}
	k.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusCompleted,
		Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(note))}}})
	k.send(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: uint64(after), Size: uint64(k.win.Size())}})
	return newTask, nil
}

// firstToKeep is where the part that must stay word for word begins: the model's last
// message when results it has not seen follow it, else the task when nothing follows
// it, else nothing (len(msgs)).
func firstToKeep(msgs []llm.Message, task int) int {
	if task < 0 || task >= len(msgs) {
		return len(msgs)
	}
	for i := len(msgs) - 1; i > task; i-- {
		if msgs[i].Role == "assistant" {
			if i == len(msgs)-1 {
				return len(msgs) // the model has seen everything: nothing is pending
			}
			return i
		}
	}
	return task
}

// summaryPrefix opens the message that holds a summary; the model reads it first.
const summaryPrefix = "[Summary of the earlier conversation, written when it was compacted to fit the context window]\n"

// taskHeading introduces the task quoted in a summary.
const taskHeading = "\n\n[The request you are working on now, as the user wrote it]\n"

// assemble builds the compacted conversation: the summary (with the task quoted when
// it was in the older part) as the first user message, merged into the first kept
// message when that is the user's, then the kept messages.
func assemble(older, kept []llm.Message, summary string, task, keepFrom int, cal *calibration, target int) ([]llm.Message, int) {
	if len(older) == 0 {
		return kept, task - keepFrom
	}
	text := summaryPrefix + strings.TrimSpace(summary)
	newTask := -1
	if task >= 0 && task < keepFrom {
		t := older[task]
		text += taskHeading + cutToFit(t.Content, target*2, "", cal)
		newTask = 0
	} else if task >= 0 {
		newTask = task - keepFrom + 1
	}
	if len(kept) > 0 && kept[0].Role == "user" {
		first := kept[0]
		first.Content = text + "\n\n" + first.Content
		first.Tokens = 0
		kept[0] = first
		if newTask > 0 {
			newTask--
		}
		return kept, newTask
	}
	return append([]llm.Message{{Role: "user", Content: text}}, kept...), newTask
}

// shrink cuts the largest messages (tool results first) until a request fits budget.
func (k *compactor) shrink(msgs []llm.Message, fp fixedPart, conv *conversation, budget int) ([]llm.Message, error) {
	for range 64 {
		size := conv.bound(fp, msgs, k.cal)
		if size <= budget {
			return msgs, nil
		}
		largest, largestSize := -1, 0
		for i, m := range msgs {
			n := messageSize(m, k.cal)
			if m.Role == "tool" || strings.HasPrefix(m.Content, "<tool_result") {
				n *= 2 // results go first: a file can be read again, the user's words cannot
			}
			if n > largestSize && messageSize(m, k.cal) > 64 {
				largest, largestSize = i, n
			}
		}
		if largest < 0 {
			break
		}
		m := msgs[largest]
		goal := max(messageSize(m, k.cal)-(size-budget), messageSize(m, k.cal)/2, 48)
		cut := cutToFit(m.Content, goal, m.ToolName, k.cal)
		if cut == m.Content {
			break
		}
		m.Content, m.Tokens, m.Images = cut, 0, nil
		msgs[largest] = m
	}
	if conv.bound(fp, msgs, k.cal) <= budget {
		return msgs, nil
	}
	return msgs, fmt.Errorf("%w: even cut down, the conversation needs more than its %d tokens; give the model a larger window (--context)", errWindowTooSmall, k.win.Size())
}

// summarize asks the model for a summary of msgs in about target tokens, a part at a
// time when they do not fit one request: each part's summary is carried into the next.
func (k *compactor) summarize(ctx context.Context, msgs []llm.Message, target int) (string, error) {
	words := max(target*3/4, 40)
	system := fmt.Sprintf(summaryInstructions, words)
	size := k.win.Size()
	chunkBudget := size - replyRoom(size) - k.cal.estimate(rawTokens(system)) - target*2 - 64
	if chunkBudget < 128 {
		return "", fmt.Errorf("%w for a summary", errWindowTooSmall)
	}
	summary := ""
	var chunk strings.Builder
	chunkSize := 0
	flush := func() error {
		if chunk.Len() == 0 {
			return nil
		}
		var err error
		summary, err = k.summarizeOnce(ctx, system, summary, chunk.String(), target)
		chunk.Reset()
		chunkSize = 0
		return err
	}
	for _, m := range msgs {
		entry := transcriptEntry(m, chunkBudget, k.cal)
		n := k.cal.estimate(rawTokens(entry))
		if chunkSize+n > chunkBudget {
			if err := flush(); err != nil {
				return "", err
			}
		}
		chunk.WriteString(entry)
		chunkSize += n
	}
	if err := flush(); err != nil {
		return "", err
	}
	return summary, nil
}

// thinkBlock is reasoning a model wrote into its text.
var thinkBlock = lazy.Regexp(`(?s)<think>.*?</think>`)

func (k *compactor) summarizeOnce(ctx context.Context, system, earlier, part string, target int) (string, error) {
	user := "The conversation:\n" + part
	if earlier != "" {
		user = "The earlier summary:\n" + earlier + "\n\nThe conversation after it:\n" + part
	}
	req := &llm.Request{Model: k.model, Messages: []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}}
	prompt := int(float64(k.cal.estimate(messageRaw(req.Messages[0])+messageRaw(req.Messages[1]))) * (1 + k.cal.margin()))
	k.win.request(req, prompt)
	var text strings.Builder
	var usage *llm.Usage
	var stop, refusal string
	err := k.provider.Chat(ctx, req, func(c llm.Chunk) error {
		text.WriteString(c.Content)
		if c.Done {
			usage, stop, refusal = c.Usage, c.StopReason, c.Refusal
		}
		return nil
	})
	k.usage.add(usage)
	if err != nil {
		return "", err
	}
	if stop == llm.StopFiltered {
		return "", fmt.Errorf("the server withheld the summary: %s", refusal)
	}
	out := strings.TrimSpace(thinkBlock().ReplaceAllString(text.String(), ""))
	if out == "" {
		return "", errors.New("the model wrote no summary")
	}
	return cutToFit(out, target*3/2, "", k.cal), nil
}

// transcriptEntry is a message as the summary request shows it, each cut to a share of
// the part's budget (the user's words get the largest).
func transcriptEntry(m llm.Message, budget int, cal *calibration) string {
	var b strings.Builder
	switch m.Role {
	case "user":
		b.WriteString("User: " + cutToFit(m.Content, budget/2, "", cal))
		if len(m.Images) > 0 {
			fmt.Fprintf(&b, " [%d image(s)]", len(m.Images))
		}
	case "assistant":
		if strings.TrimSpace(m.Content) != "" {
			b.WriteString("Assistant: " + cutToFit(m.Content, budget/4, "", cal))
		}
		for _, c := range m.ToolCalls {
			args := string(c.Arguments)
			if len(args) > 300 {
				args = validPrefix(args, 300) + "…"
			}
			fmt.Fprintf(&b, "\nAssistant called %s %s", c.Name, args)
		}
	case "tool":
		b.WriteString("Result of " + m.ToolName + ": " + cutToFit(m.Content, budget/8, m.ToolName, cal))
	default:
		b.WriteString(m.Role + ": " + cutToFit(m.Content, budget/4, "", cal))
	}
	return strings.TrimSpace(b.String()) + "\n\n"
}

// userMessagesDigest is the stand-in for a summary the model could not write: what the
// user said in msgs, each message cut to its share of target.
func userMessagesDigest(msgs []llm.Message, target int, cal *calibration) string {
	var said []string
	for _, m := range msgs {
		if m.Role == "user" && !strings.HasPrefix(m.Content, "<tool_result") {
			said = append(said, m.Content)
		}
	}
	if len(said) == 0 {
		return "(The model could not summarize this part, and the user said nothing in it.)"
	}
	share := max(target/len(said), 24)
	var b strings.Builder
	b.WriteString("(The model could not summarize this part; what the user said in it, in order:)\n")
	for _, s := range said {
		b.WriteString("- " + strings.ReplaceAll(cutToFit(s, share, "", cal), "\n", "\n  ") + "\n")
	}
	return b.String()
}
