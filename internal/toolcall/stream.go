package toolcall

import "unicode/utf8"

// StreamParser is Parse for a reply that arrives in chunks. Feed returns only the text that
// is safe to show now: it holds back anything that may still turn out to be call markup
// (a tag split across chunks such as "<tool_", "[TOOL_" or "```", an unclosed call, JSON
// that may be a call) and the completion marker with its partial prefixes ("[TASK").
// Call markup is never shown.
//
// The text Feed returns, followed by the text Finish returns, is exactly the prose Parse
// returns for the whole reply, and Finish returns the same calls and problems.
//
// A StreamParser is used by one goroutine.
type StreamParser struct {
	s        scanner
	pos      int    // the text before pos is settled
	partial  []byte // settled prose ending in part of a UTF-8 character, not shown yet
	finished bool
}

// NewStreamParser returns a parser for one reply. known is as for Parse.
func NewStreamParser(known func(name string) (canonical string, ok bool)) *StreamParser {
	return &StreamParser{s: scanner{known: known}}
}

// Feed adds a chunk of the reply and returns the text that has become safe to show.
// Chunks fed after Finish are ignored.
func (p *StreamParser) Feed(chunk string) (visible string) {
	if p.finished || chunk == "" {
		return ""
	}
	p.s.text = append(p.s.text, chunk...)
	return p.scan()
}

// Finish ends the reply and returns its calls and problems, and the text not shown yet.
func (p *StreamParser) Finish() (calls []Call, problems []Problem, trailingVisible string) {
	if !p.finished {
		p.finished = true
		p.s.final = true
		p.s.truncatedBudget = truncatedBudget(len(p.s.text))
		trailingVisible = p.scan()
	}
	return p.s.calls, p.s.problems, trailingVisible
}

func (p *StreamParser) scan() string {
	p.s.prose = append(p.s.prose[:0], p.partial...)
	pos := p.s.run(p.pos)
	if pos > p.pos {
		p.s.forget(pos)
		p.pos = pos
	}
	shown := p.s.prose
	p.partial = p.partial[:0]
	if !p.s.final {
		// Keep back the start of a character whose other bytes are still to come.
		cut := len(shown)
		for i := len(shown) - 1; i >= 0 && i >= len(shown)-utf8.UTFMax; i-- {
			if utf8.RuneStart(shown[i]) {
				if !utf8.FullRune(shown[i:]) {
					cut = i
				}
				break
			}
		}
		p.partial = append(p.partial, shown[cut:]...)
		shown = shown[:cut]
	}
	return string(shown)
}

// Completed reports whether the completion marker has been seen in the prose so far.
func (p *StreamParser) Completed() bool { return p.s.completed }

// CallStarted reports whether call markup has begun: a call or problem is settled, or an
// opening tag ("<tool_call>", "[TOOL_CALLS]") has arrived. An executor freezes the text
// it shows from then on.
func (p *StreamParser) CallStarted() bool { return p.s.callSeen }
