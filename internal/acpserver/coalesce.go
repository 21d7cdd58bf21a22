package acpserver

import (
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
)

// coalesce joins runs of plain text chunks of one message in a batch into one update. A
// batch holds more than one event only when the page reads slower than the agent writes,
// so a page that keeps up sees every chunk as it came, and one that falls behind catches
// up in a few frames instead of one per chunk (ACP's chunks are only ever concatenated).
func coalesce(batch []viewEvent) []viewEvent {
	if len(batch) < 2 {
		return batch
	}
	out := batch[:0:0]
	var run strings.Builder // the text of the run that out's last event starts
	flush := func() {
		if run.Len() == 0 {
			return
		}
		last := &out[len(out)-1]
		au := last.ev.(conversation.AgentUpdate)
		kind, ch, _, _ := joinable(au.Update)
		au.Update = conversation.ChunkUpdate(kind, &acp.ContentChunk{Content: acp.TextBlock(run.String()), MessageID: ch.MessageID})
		last.ev = au
		run.Reset()
	}
	for _, e := range batch {
		if joined(out, e, &run) {
			continue
		}
		flush()
		out = append(out, e)
	}
	flush()
	return out
}

// joinable is conversation.TextChunk: a chunk that may be joined with its neighbours.
func joinable(u acp.SessionUpdate) (kind string, ch *acp.ContentChunk, text string, ok bool) {
	return conversation.TextChunk(u)
}

// joined adds e's text to the run when e continues the plain text message out ends with.
func joined(out []viewEvent, e viewEvent, run *strings.Builder) bool {
	if len(out) == 0 || !plainEvent(e) || !plainEvent(out[len(out)-1]) {
		return false
	}
	prev := out[len(out)-1].ev.(conversation.AgentUpdate).Update
	pk, pch, ptext, _ := joinable(prev)
	kind, ch, text, _ := joinable(e.ev.(conversation.AgentUpdate).Update)
	if kind != pk || ch.MessageID != pch.MessageID {
		return false
	}
	if run.Len() == 0 {
		run.WriteString(ptext)
	}
	run.WriteString(text)
	return true
}

// plainEvent reports whether e is only an agent update with a joinable text chunk.
func plainEvent(e viewEvent) bool {
	if e.sync != nil || e.update != nil || e.terminal != nil {
		return false
	}
	au, ok := e.ev.(conversation.AgentUpdate)
	if !ok {
		return false
	}
	_, _, _, ok = joinable(au.Update)
	return ok
}
