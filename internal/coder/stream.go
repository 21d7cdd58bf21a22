package coder

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/toolcall"
)

// Streaming rules: text goes out in batches, and the first batch waits for enough words
// that a reply which turns out to be a tool call never shows a stray fragment.
const (
	emitEvery      = 32 * time.Millisecond // text goes to the client at most this often
	firstChunkGate = 8                     // word characters the first visible text needs
)

// streamResult is one model reply, as the executor needs it.
type streamResult struct {
	Raw         string // the reply as the model wrote it, for the history
	Text        string // the visible prose (markup and the completion marker removed)
	Thinking    string
	NativeCalls []llm.ToolCall
	TextCalls   []toolcall.Call
	Problems    []toolcall.Problem
	Completed   bool // the model wrote the completion marker
	Usage       *llm.Usage
	StopReason  string // the server's, on the last chunk (llm.StopLength...)
	Refusal     string // what the server said when it refused or filtered the reply
}

// streamer runs one model reply: thoughts go to the client as they come; text goes
// through the text tool-call parser (which holds back markup and the completion marker)
// and out at most every emitEvery, the first piece only once it has a few words; text
// stops once a tool call begins.
type streamer struct {
	provider llm.Provider
	known    func(string) (string, bool)
	send     func(acp.SessionUpdate)
	// said is set once a reply of the turn has shown text: the next reply's text starts a
	// new paragraph, for clients join the chunks of a turn into one message ("I will
	// create the file.All done.").
	said bool
}

func (s *streamer) run(ctx context.Context, req *llm.Request) (*streamResult, error) {
	res := &streamResult{}
	parser := toolcall.NewStreamParser(s.known)
	var prose, raw strings.Builder
	// The emission state is shared with the ticker that flushes text while the model
	// pauses; mu guards it.
	var mu sync.Mutex
	var pending, thinking strings.Builder
	shown, frozen := false, false

	flush := func(force bool) { // mu is held
		if thinking.Len() > 0 {
			s.send(acp.AgentThoughtChunk(acp.TextBlock(thinking.String())))
			thinking.Reset()
		}
		if pending.Len() == 0 || frozen {
			return
		}
		text := pending.String()
		if n := wordChars(text); n == 0 || !shown && !force && n < firstChunkGate {
			return // only whitespace, or a first piece too short to show alone
		}
		if !shown && s.said && !strings.HasPrefix(text, "\n") {
			text = "\n\n" + text
		}
		s.send(acp.AgentMessageChunk(acp.TextBlock(text)))
		pending.Reset()
		shown, s.said = true, true
	}
	tick := time.NewTicker(emitEvery)
	stopTick := make(chan struct{})
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		for {
			select {
			case <-tick.C:
				mu.Lock()
				flush(false)
				mu.Unlock()
			case <-stopTick:
				return
			}
		}
	}()
	err := s.provider.Chat(ctx, req, func(c llm.Chunk) error {
		mu.Lock()
		defer mu.Unlock()
		if c.Thinking != "" {
			res.Thinking += c.Thinking
			thinking.WriteString(strings.ReplaceAll(c.Thinking, toolcall.CompletionMarker, ""))
		}
		if c.Content != "" {
			raw.WriteString(c.Content)
			visible := parser.Feed(c.Content)
			prose.WriteString(visible)
			if !frozen {
				pending.WriteString(visible)
			}
		}
		if len(c.ToolCalls) > 0 {
			res.NativeCalls = append(res.NativeCalls, c.ToolCalls...)
		}
		if c.Usage != nil {
			res.Usage = c.Usage
		}
		if c.Done {
			res.StopReason, res.Refusal = c.StopReason, c.Refusal
		}
		if !frozen && (len(res.NativeCalls) > 0 || parser.CallStarted()) {
			flush(true) // what came before the call, then nothing more
			frozen = true
		}
		return nil
	})
	tick.Stop()
	close(stopTick)
	<-ticked
	calls, problems, trailing := parser.Finish()
	prose.WriteString(trailing)
	if !frozen {
		pending.WriteString(trailing)
	}
	flush(true)
	res.Text, res.Raw = prose.String(), raw.String()
	res.TextCalls, res.Problems = calls, problems
	res.Completed = parser.Completed()
	return res, err
}

func wordChars(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			n++
		}
	}
	return n
}
