package acpserver

import (
	"strings"

	"github.com/parley-acp/parley/acp"
)

// transcript is what a session showed, for a view that attaches later (a reloaded page):
// the updates in order, with consecutive plain text chunks of one message joined, so a
// reply streamed in 100,000 chunks is one entry. It is bounded: past maxTranscript
// entries or maxTranscriptText bytes of text the oldest entries go (a replay then starts
// part way; the agent's own session/load still has the whole conversation).
type transcript struct {
	entries []transcriptEntry
	text    int // bytes of text held
}

const (
	maxTranscript     = 50000
	maxTranscriptText = 64 << 20
)

type transcriptEntry struct {
	update acp.SessionUpdate // as it came, when text is nil
	// A run of joinable chunks: their kind, message id and text.
	kind  string
	msgID acp.MessageID
	text  *strings.Builder
}

// joinable returns a chunk's kind and text when it is plain text that may be joined with
// its neighbours (nothing on it but the text and a message id).
func joinable(u acp.SessionUpdate) (kind string, ch *acp.ContentChunk, text string, ok bool) {
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

func (t *transcript) add(u acp.SessionUpdate) {
	if kind, ch, text, ok := joinable(u); ok {
		if n := len(t.entries); n > 0 {
			last := &t.entries[n-1]
			if last.text != nil && last.kind == kind && last.msgID == ch.MessageID {
				last.text.WriteString(text)
				t.text += len(text)
				t.trim()
				return
			}
		}
		b := &strings.Builder{}
		b.WriteString(text)
		t.entries = append(t.entries, transcriptEntry{kind: kind, msgID: ch.MessageID, text: b})
		t.text += len(text)
		t.trim()
		return
	}
	t.entries = append(t.entries, transcriptEntry{update: u})
	t.trim()
}

func (t *transcript) trim() {
	for len(t.entries) > 1 && (len(t.entries) > maxTranscript || t.text > maxTranscriptText) {
		if e := t.entries[0]; e.text != nil {
			t.text -= e.text.Len()
		}
		t.entries[0] = transcriptEntry{}
		t.entries = t.entries[1:]
	}
}

// updates returns the transcript as updates to replay.
func (t *transcript) updates() []acp.SessionUpdate {
	out := make([]acp.SessionUpdate, 0, len(t.entries))
	for _, e := range t.entries {
		if e.text == nil {
			out = append(out, e.update)
			continue
		}
		out = append(out, chunkUpdate(e.kind, &acp.ContentChunk{Content: acp.TextBlock(e.text.String()), MessageID: e.msgID}))
	}
	return out
}

// chunkUpdate is the update carrying ch as a chunk of the kind joinable named.
func chunkUpdate(kind string, ch *acp.ContentChunk) acp.SessionUpdate {
	switch kind {
	case "user":
		return acp.SessionUpdate{UserMessageChunk: ch}
	case "thought":
		return acp.SessionUpdate{AgentThoughtChunk: ch}
	default:
		return acp.SessionUpdate{AgentMessageChunk: ch}
	}
}
