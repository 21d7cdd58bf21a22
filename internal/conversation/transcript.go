package conversation

import (
	"maps"
	"strings"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/toolstate"
)

// transcript is what the conversation showed, for a view that comes late
// (Snapshot.Transcript): the user's prompts and the agent's updates as session updates to
// replay in order. It is folded so that it grows with the conversation, not with how the
// agent streamed it:
//
//   - consecutive plain text chunks of one message are one entry (a reply streamed in
//     100,000 chunks is one update);
//   - a tool call is one tool_call in its last state (its updates merged into it, as a
//     client does: toolstate.MergeToolCall), with when it began and ended in
//     _meta.parley (parleyapi.ToolCallMeta): a late view would see only the replay's;
//   - a turn's plan is its last plan;
//   - of the settings updates (available commands, mode, config options, usage) only
//     the last of each kind is kept: they say how things stand, not what happened.
//
// It is bounded: past maxTranscript entries or maxTranscriptBytes of text and tool call
// content the oldest entries go (a replay then starts part way; the agent's own
// session/load still has the whole conversation).
type transcript struct {
	entries []transcriptEntry
	first   int                    // the position of entries[0] since the transcript began
	calls   map[acp.ToolCallID]int // the position of each tool call's entry
	plan    int                    // the position of this turn's plan, or -1
	latest  map[string]int         // the position of the last settings update of each kind
	bytes   int                    // the size of what is held
}

const (
	maxTranscript      = 50000
	maxTranscriptBytes = 64 << 20
)

type transcriptEntry struct {
	update acp.SessionUpdate // as it came (a tool call: merged), when text is nil
	// A run of joinable chunks: their kind, message id and text.
	kind  string
	msgID acp.MessageID
	text  *textRun
	size  int
	// A tool call's: when it was first seen, and when it was seen completed or failed.
	started, ended time.Time
}

func newTranscript() *transcript {
	return &transcript{calls: map[acp.ToolCallID]int{}, latest: map[string]int{}, plan: -1}
}

// TextChunk returns a chunk's kind ("user", "agent", "thought") and text when it is plain
// text that may be joined with its neighbours of the same kind and message (nothing on it
// but the text and a message id): ACP's chunks are only ever concatenated.
func TextChunk(u acp.SessionUpdate) (kind string, ch *acp.ContentChunk, text string, ok bool) {
	switch {
	case u.UserMessageChunk != nil:
		kind, ch = "user", u.UserMessageChunk
	case u.AgentMessageChunk != nil:
		kind, ch = "agent", u.AgentMessageChunk
	case u.AgentThoughtChunk != nil:
		kind, ch = "thought", u.AgentThoughtChunk
	default:
		return "", nil, "", false
	}
	t := ch.Content.Text
	if t == nil || t.Annotations != nil || len(t.Meta) > 0 || len(t.Extra) > 0 || len(ch.Meta) > 0 || len(ch.Extra) > 0 {
		return "", nil, "", false
	}
	return kind, ch, t.Text, true
}

// ChunkUpdate is the update carrying ch as a chunk of the kind TextChunk named.
func ChunkUpdate(kind string, ch *acp.ContentChunk) acp.SessionUpdate {
	switch kind {
	case "user":
		return acp.SessionUpdate{UserMessageChunk: ch}
	case "thought":
		return acp.SessionUpdate{AgentThoughtChunk: ch}
	default:
		return acp.SessionUpdate{AgentMessageChunk: ch}
	}
}

// prompt records the user's prompt: a turn begins.
func (t *transcript) prompt(content []acp.ContentBlock) {
	t.plan = -1
	for _, b := range content {
		t.add(acp.UserMessageChunk(b))
	}
}

// add records one update.
func (t *transcript) add(u acp.SessionUpdate) {
	if kind, ch, text, ok := TextChunk(u); ok {
		if n := len(t.entries); n > 0 {
			last := &t.entries[n-1]
			if last.text != nil && last.kind == kind && last.msgID == ch.MessageID {
				last.text.WriteString(text)
				last.size += len(text)
				t.bytes += len(text)
				t.trim()
				return
			}
		}
		run := &textRun{}
		run.WriteString(text)
		t.append(transcriptEntry{kind: kind, msgID: ch.MessageID, text: run, size: len(text)})
		return
	}
	switch {
	case u.ToolCall != nil:
		tc := *u.ToolCall
		if at, ok := t.calls[tc.ToolCallID]; ok { // sent again: it says more about the call
			update := acp.ToolCallUpdate(tc)
			t.mergeCall(at, &update)
			return
		}
		t.calls[tc.ToolCallID] = t.append(transcriptEntry{update: acp.SessionUpdate{ToolCall: &tc}, size: callSize(&tc), started: time.Now(), ended: endedAt(&tc, time.Time{})})
	case u.ToolCallUpdate != nil:
		if at, ok := t.calls[u.ToolCallUpdate.ToolCallID]; ok {
			t.mergeCall(at, u.ToolCallUpdate)
			return
		}
		// An update of a call not shown yet (agents do skip the tool_call) is the call.
		tc := acp.ToolCall{ToolCallID: u.ToolCallUpdate.ToolCallID}
		toolstate.MergeToolCall(&tc, u.ToolCallUpdate)
		t.calls[tc.ToolCallID] = t.append(transcriptEntry{update: acp.SessionUpdate{ToolCall: &tc}, size: callSize(&tc), started: time.Now(), ended: endedAt(&tc, time.Time{})})
	case u.Plan != nil:
		if t.plan >= t.first {
			t.replace(t.plan, u, planSize(u.Plan))
			return
		}
		t.plan = t.append(transcriptEntry{update: u, size: planSize(u.Plan)})
	case u.AvailableCommandsUpdate != nil, u.CurrentModeUpdate != nil, u.ConfigOptionUpdate != nil, u.UsageUpdate != nil:
		kind := u.Kind()
		if at, ok := t.latest[kind]; ok && at >= t.first {
			t.replace(at, u, 0)
			return
		}
		t.latest[kind] = t.append(transcriptEntry{update: u})
	default:
		t.append(transcriptEntry{update: u, size: len(u.Unknown)})
	}
}

// append adds an entry and returns its position.
func (t *transcript) append(e transcriptEntry) int {
	t.entries = append(t.entries, e)
	t.bytes += e.size
	at := t.first + len(t.entries) - 1
	t.trim()
	return at
}

func (t *transcript) replace(at int, u acp.SessionUpdate, size int) {
	e := &t.entries[at-t.first]
	t.bytes += size - e.size
	e.update, e.size = u, size
	t.trim()
}

// mergeCall merges an update into the tool call at position at. The call is copied
// first: views were given the one before.
func (t *transcript) mergeCall(at int, u *acp.ToolCallUpdate) {
	e := &t.entries[at-t.first]
	tc := *e.update.ToolCall
	toolstate.MergeToolCall(&tc, u)
	e.ended = endedAt(&tc, e.ended)
	t.replace(at, acp.SessionUpdate{ToolCall: &tc}, callSize(&tc))
}

// endedAt is when a call ended: ended if it had, now if it has just completed or failed.
func endedAt(tc *acp.ToolCall, ended time.Time) time.Time {
	if ended.IsZero() && (tc.Status == acp.ToolCallStatusCompleted || tc.Status == acp.ToolCallStatusFailed) {
		return time.Now()
	}
	return ended
}

// withTimes is the tool call of e with its times in _meta.parley (the agent's own
// _meta.parley is parley's to say, and replaced).
func withTimes(e transcriptEntry) acp.SessionUpdate {
	if e.started.IsZero() {
		return e.update
	}
	m := parleyapi.ToolCallMeta{Started: e.started.UTC().Format(time.RFC3339Nano)}
	if !e.ended.IsZero() {
		m.Ended = e.ended.UTC().Format(time.RFC3339Nano)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return e.update
	}
	tc := *e.update.ToolCall
	tc.Meta = maps.Clone(tc.Meta)
	if tc.Meta == nil {
		tc.Meta = acp.Meta{}
	}
	tc.Meta["parley"] = b
	return acp.SessionUpdate{ToolCall: &tc}
}

// trim drops the oldest entries while the transcript is over its bounds (the last one
// stays, whatever its size).
func (t *transcript) trim() {
	for len(t.entries) > 1 && (len(t.entries) > maxTranscript || t.bytes > maxTranscriptBytes) {
		e := t.entries[0]
		t.bytes -= e.size
		if tc := e.update.ToolCall; tc != nil && t.calls[tc.ToolCallID] == t.first {
			delete(t.calls, tc.ToolCallID)
		}
		t.entries[0] = transcriptEntry{}
		t.entries = t.entries[1:]
		t.first++
	}
}

// updates returns the transcript as updates to replay, which the caller owns.
func (t *transcript) updates() []acp.SessionUpdate {
	out := make([]acp.SessionUpdate, 0, len(t.entries))
	for _, e := range t.entries {
		if e.text == nil {
			if e.update.ToolCall != nil {
				out = append(out, withTimes(e))
				continue
			}
			out = append(out, e.update)
			continue
		}
		out = append(out, ChunkUpdate(e.kind, &acp.ContentChunk{Content: acp.TextBlock(e.text.String()), MessageID: e.msgID}))
	}
	return out
}

// textRun is the text of a run of chunks, kept in blocks that are filled and never
// moved: a reply streamed in 100,000 chunks is written once, where one growing buffer
// would be copied again at each growth (about five times over, in fresh memory).
type textRun struct {
	blocks [][]byte
	size   int
}

// Blocks grow with the run from minTextBlock to maxTextBlock.
const (
	minTextBlock = 256
	maxTextBlock = 64 << 10
)

func (r *textRun) WriteString(s string) {
	r.size += len(s)
	for len(s) > 0 {
		n := len(r.blocks)
		if n == 0 || len(r.blocks[n-1]) == cap(r.blocks[n-1]) {
			r.blocks = append(r.blocks, make([]byte, 0, min(max(r.size, minTextBlock), maxTextBlock)))
			n++
		}
		last := &r.blocks[n-1]
		k := min(len(s), cap(*last)-len(*last))
		*last = append(*last, s[:k]...)
		s = s[k:]
	}
}

// String is the run's text, joined.
func (r *textRun) String() string {
	if len(r.blocks) == 1 {
		return string(r.blocks[0])
	}
	var b strings.Builder
	b.Grow(r.size)
	for _, block := range r.blocks {
		b.Write(block)
	}
	return b.String()
}

// callSize is about what a tool call holds: its content's text and diffs, its raw
// input and output.
func callSize(tc *acp.ToolCall) int {
	n := len(tc.Title) + len(tc.RawInput) + len(tc.RawOutput)
	for _, c := range tc.Content {
		switch {
		case c.Diff != nil:
			n += len(c.Diff.NewText)
			if c.Diff.OldText != nil {
				n += len(*c.Diff.OldText)
			}
		case c.Content != nil:
			if text, ok := c.Content.Content.AsText(); ok {
				n += len(text)
			}
		}
	}
	return n
}

func planSize(p *acp.Plan) int {
	n := 0
	for _, e := range p.Entries {
		n += len(e.Content)
	}
	return n
}
