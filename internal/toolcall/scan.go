package toolcall

import (
	"bytes"

	"github.com/parley-acp/parley/internal/json"
)

// scanner walks a reply from left to right, splitting it into prose and call markup.
//
// Parse runs it once over a complete reply (final). A StreamParser runs it over the text
// received so far: there it stops at the first construct that more text could still
// change (a partial tag, an unclosed call) and reports everything before it as settled.
// Every decision depends only on the text from the construct's start to the end of what
// the decision looked at, and a scan that is not final gives up instead of looking past
// the end of the text, so what is settled while streaming is decided exactly as Parse
// decides it on the whole reply.
type scanner struct {
	text  []byte
	final bool
	known lookup

	calls     []Call
	problems  []Problem
	prose     []byte
	completed bool
	callSeen  bool

	// While streaming: the progress of scans of an unsettled construct, kept so that
	// each chunk is scanned once.
	balances map[balanceKey]balance
	finds    map[findKey]int
	junk     map[findKey][2]int
	progress map[progressKey]any // how far a loop over the items of a block got
	// In a complete text: where brackets inside an unclosed value close (0: never).
	unclosed map[balanceKey]int
	absent   map[string]int // in a complete text: needles not found after these indexes

	// truncatedBudget bounds the bytes read while trying JSON that runs to the end of the
	// reply as a call the model printed: text full of unclosed JSON would otherwise cost
	// time in the square of its length.
	truncatedBudget int
}

type verdict int

const (
	isProse  verdict = iota // not markup; go on at step.end
	isMarkup                // call markup up to step.end
	isOpen                  // undecided: the text ends too soon (never when final)
)

type step struct {
	verdict  verdict
	end      int
	found    found
	complete bool // the completion marker
	call     bool // an explicit call opener, while isOpen
}

type found struct {
	calls    []Call
	problems []Problem
}

func (f *found) problem(raw []byte, msg string) {
	f.problems = append(f.problems, Problem{Raw: string(raw), Message: msg})
}

func prose(end int) step { return step{verdict: isProse, end: end} }

// open is the verdict for a construct the text ends inside. A final scan never gets one:
// there the end of the text is the end of the reply, and each construct decides what that
// means for it.
func open(call bool) step { return step{verdict: isOpen, call: call} }

// special marks the bytes that can start markup.
var special = [256]bool{'<': true, '[': true, '`': true, '{': true}

// run scans from pos, appends settled prose, calls and problems, and returns the index up
// to which the text is settled (len(text) when final).
func (s *scanner) run(pos int) int {
	text := s.text
	start := pos
	for i := pos; i < len(text); {
		if !special[text[i]] {
			i++
			continue
		}
		st := s.at(i)
		switch st.verdict {
		case isProse:
			i = st.end
		case isMarkup:
			s.prose = append(s.prose, text[start:i]...)
			s.calls = append(s.calls, st.found.calls...)
			s.problems = append(s.problems, st.found.problems...)
			if len(st.found.calls)+len(st.found.problems) > 0 {
				s.callSeen = true
			}
			s.completed = s.completed || st.complete
			i, start = st.end, st.end
		case isOpen:
			s.prose = append(s.prose, text[start:i]...)
			s.callSeen = s.callSeen || st.call
			return i
		}
	}
	s.prose = append(s.prose, text[start:]...)
	return len(text)
}

func (s *scanner) at(j int) step {
	switch s.text[j] {
	case '<':
		return s.atAngle(j)
	case '[':
		return s.atBracket(j)
	case '`':
		return s.atFence(j)
	default:
		return s.atBare(j)
	}
}

// blockTag is a spelling of call markup with an opening and a closing tag.
type blockTag struct{ open, close string }

var blockTags = []blockTag{
	{"<tool_call>", "</tool_call>"}, // Hermes and Qwen templates; what parley asks for
	{"<tool_calls>", "</tool_calls>"},
	{"<toolcall>", "</toolcall>"},
	{"<function_call>", "</function_call>"},
	{"<functioncall>", "</functioncall>"}, // glaive-style fine-tunes
	{"<|tool_call|>", "<|/tool_call|>"},   // Phi-4-mini
	{"<|tool_call>", "<tool_call|>"},      // Gemma
	{"<|python_tag|>", "<|eom_id|>"},      // Llama 3.1; <|eot_id|> is skipped as a stray tag
}

const (
	mistralTag = "[TOOL_CALLS]"
	fence      = "```"
)

func (s *scanner) atAngle(j int) step {
	rest := s.text[j:]
	for _, t := range blockTags {
		if hasPrefixFold(rest, t.open) {
			return s.block(j, t)
		}
	}
	for _, t := range blockTags {
		if hasPrefixFold(rest, t.close) {
			return step{verdict: isMarkup, end: j + len(t.close)} // a stray closing tag
		}
	}
	opener, closer := false, false
	for _, t := range blockTags {
		opener = opener || isPartialFold(rest, t.open)
		closer = closer || isPartialFold(rest, t.close)
	}
	if opener || closer {
		return s.cutTag(j, opener)
	}
	return prose(j + 1)
}

// cutTag decides about a possible tag cut off by the end of the text at j.
func (s *scanner) cutTag(j int, opener bool) step {
	if !s.final {
		return open(false)
	}
	rest := s.text[j:]
	if len(rest) < 4 {
		return prose(j + 1) // too short to be sure it was markup
	}
	st := step{verdict: isMarkup, end: len(s.text)}
	if opener {
		st.found.problem(rest, "The reply ended inside a tool call tag. Send the whole call again: "+callShape+".")
	}
	return st
}

func (s *scanner) atBracket(j int) step {
	rest := s.text[j:]
	switch {
	case hasPrefixFold(rest, mistralTag):
		return s.mistral(j)
	case hasPrefixFold(rest, CompletionMarker):
		return step{verdict: isMarkup, end: j + len(CompletionMarker), complete: true}
	case isPartialFold(rest, mistralTag):
		return s.cutTag(j, true)
	case isPartialFold(rest, CompletionMarker):
		return s.cutTag(j, false)
	}
	return s.atBare(j) // perhaps an array of calls
}

// block reads a tagged block from its opening tag at j.
func (s *scanner) block(j int, t blockTag) step {
	text := s.text
	q, _, more := s.skipBlockJunk(j+len(t.open), t.close)
	switch {
	case more:
		return open(true)
	case q >= len(text):
		st := step{verdict: isMarkup, end: len(text)}
		st.found.problem(text[j:], "The reply ended inside a tool call. Send the whole call again: "+callShape+".")
		return st
	case hasPrefixFold(text[q:], t.close):
		st := step{verdict: isMarkup, end: q + len(t.close)}
		st.found.problem(text[j:st.end], unreadable("the tool call is empty"))
		return st
	}
	var (
		f   found
		end int
		v   verdict
	)
	switch c := text[q]; {
	case c == '{' || c == '[':
		var vals []span
		vals, end, v = s.values(q, t.close)
		if v == isMarkup {
			f = s.explicit(vals)
		}
	case hasPrefixFold(text[q:], "<function="):
		f, end, v = s.qwen(q, t.close)
	case isNameStart(c):
		f, end, v = s.named(q, t.close)
	default:
		f, end, v = s.unreadable(q, t.close)
	}
	if v == isOpen {
		return open(true)
	}
	return s.closeBlock(end, t.close, f)
}

// closeBlock ends a block whose content ends at end: past stray template tags and the
// closing tag when it follows; a missing closing tag is forgiven.
func (s *scanner) closeBlock(end int, close string, f found) step {
	text := s.text
	k, junkEnd, more := s.skipBlockJunk(end, close)
	if more {
		return open(true)
	}
	st := step{verdict: isMarkup, end: max(end, junkEnd), found: f}
	switch {
	case k >= len(text):
		st.end = len(text)
	case hasPrefixFold(text[k:], close):
		st.end = k + len(close)
	case isPartialFold(text[k:], close):
		if !s.final {
			return open(true)
		}
		st.end = len(text)
	}
	return st
}

// skipBlockJunk returns the index of the next meaningful byte at or after k inside a block:
// past whitespace, literal \n, code fences and template tags that mean nothing here
// (</parameter>, <|eot_id|>). junkEnd is the end of the last such tag or fence. more
// reports that the text ends where more could still be junk.
func (s *scanner) skipBlockJunk(k int, close string) (next, junkEnd int, more bool) {
	key := findKey{k, close}
	if seen, ok := s.junk[key]; ok {
		k, junkEnd = seen[0], seen[1] // resume where the last chunk ran out
	}
	next, junkEnd, more = s.skipBlockJunkFrom(k, junkEnd, close)
	if more {
		if s.junk == nil {
			s.junk = make(map[findKey][2]int)
		}
		s.junk[key] = [2]int{next, junkEnd}
	}
	return next, junkEnd, more
}

func (s *scanner) skipBlockJunkFrom(k, junkEnd int, close string) (next, _ int, more bool) {
	text := s.text
	for k < len(text) {
		switch c := text[k]; c {
		case ' ', '\t', '\n', '\r':
			k++
		case '}', ']':
			k++ // left over from a value with too many closing brackets
			junkEnd = k
		case '\\':
			if k+1 == len(text) {
				return k, junkEnd, !s.final
			}
			if n := text[k+1]; n != 'n' && n != 't' && n != 'r' {
				return k, junkEnd, false
			}
			k += 2
		case '`':
			// A backtick of a fence, with the fence's info string (```json).
			e := k + 1
			for e < len(text) && e-k <= 32 && isInfoByte(text[e]) {
				e++
			}
			if e == len(text) && !s.final {
				return k, junkEnd, true
			}
			k, junkEnd = e, e
		case '<':
			rest := text[k:]
			if meaningfulTag(rest, close) {
				return k, junkEnd, false
			}
			if !s.final && len(rest) < 64 && bytes.IndexByte(rest, '>') < 0 {
				return k, junkEnd, true // perhaps a tag, cut off
			}
			e := junkTagEnd(text, k)
			if e == 0 {
				return k, junkEnd, false
			}
			k, junkEnd = e, e
		default:
			return k, junkEnd, false
		}
	}
	return k, junkEnd, !s.final
}

// meaningfulTag reports whether rest starts with a tag the scanner reads instead of
// skipping.
func meaningfulTag(rest []byte, close string) bool {
	for _, tag := range []string{close, "<function=", "<arg_key>", "<arg_value>", "<parameter="} {
		if tag != "" && hasPrefixFold(rest, tag) {
			return true
		}
	}
	for _, t := range blockTags {
		if hasPrefixFold(rest, t.open) || hasPrefixFold(rest, t.close) {
			return true
		}
	}
	return false
}

// span is the text of one JSON value.
type span struct {
	start, end int
	truncated  bool // the reply ended inside it
}

// values reads JSON values from p: one, or several separated by whitespace, commas or
// semicolons. The values end where stop appears outside strings, if it does first.
func (s *scanner) values(p int, stop string) (vals []span, end int, v verdict) {
	text := s.text
	key := progressKey{'v', p, stop}
	if pr, ok := s.progress[key].(valuesProgress); ok {
		vals, p = pr.vals, pr.next
	}
	for {
		b := s.balanced(p, stop)
		switch {
		case b.end > 0:
			k := skipSeparators(text, b.end)
			if k >= len(text) || k == len(text)-1 && text[k] == '\\' {
				if !s.final {
					s.keepValues(key, vals, p)
					return nil, 0, isOpen // another value may follow
				}
				return append(vals, span{start: p, end: b.end}), b.end, isMarkup
			}
			vals = append(vals, span{start: p, end: b.end})
			if text[k] == '{' {
				p = k
				continue
			}
			return vals, b.end, isMarkup
		case b.stop > 0:
			return append(vals, span{start: p, end: b.stop}), b.stop, isMarkup
		case !s.final:
			s.keepValues(key, vals, p)
			return nil, 0, isOpen
		}
		// The reply ended inside the value. If the closing tag is there after all, the
		// scan took a quote wrongly and the value ends at the tag; otherwise it was cut.
		if stop != "" {
			if k := s.find(p, stop); k >= 0 {
				return append(vals, span{start: p, end: k}), k, isMarkup
			}
		}
		return append(vals, span{start: p, end: len(text), truncated: true}), len(text), isMarkup
	}
}

func (s *scanner) keepValues(key progressKey, vals []span, next int) {
	if len(vals) > 0 { // with none read whole, the scan restarts where it started anyway
		s.keep(key, valuesProgress{vals, next})
	}
}

// valuesProgress is how far values got in a block that is still arriving: the values read
// whole, and where the next one starts.
type valuesProgress struct {
	vals []span
	next int
}

func skipSeparators(text []byte, k int) int {
	for k < len(text) {
		switch text[k] {
		case ' ', '\t', '\n', '\r', ',', ';':
			k++
		case '\\':
			if k+1 < len(text) && text[k+1] == 'n' {
				k += 2
				continue
			}
			return k
		default:
			return k
		}
	}
	return k
}

// decode turns the text of a value into valid JSON, repairing it if it must.
func decode(raw []byte) (value []byte, ok bool) {
	if bytes.Contains(raw, []byte(`<|"|>`)) {
		raw = bytes.ReplaceAll(raw, []byte(`<|"|>`), []byte(`"`)) // Gemma's quote token
	}
	value, _, ok = repairJSON(raw)
	return value, ok
}

// explicit turns the values of call markup into calls, or problems for the model.
func (s *scanner) explicit(vals []span) found {
	var f found
	for _, v := range vals {
		raw := s.text[v.start:v.end]
		value, ok := decode(raw)
		if !ok {
			f.problem(raw, unreadable("it is not valid JSON"))
			continue
		}
		cands, why := candidates(s.known, value, 0)
		if why != "" {
			f.problem(raw, unreadable(why))
			continue
		}
		for _, c := range cands {
			f.add(c, raw, v.truncated)
		}
	}
	return f
}

// implicit turns JSON found outside call markup (bare or fenced) into calls when every
// value is a call: a known name, or an unmistakable call shape. ok is false for anything
// else, which stays prose.
func (s *scanner) implicit(vals []span) (f found, ok bool) {
	for _, v := range vals {
		if v.truncated {
			if s.truncatedBudget < 0 {
				return found{}, false
			}
			s.truncatedBudget -= v.end - v.start
		}
		raw := s.text[v.start:v.end]
		value, ok := decode(raw)
		if !ok {
			return found{}, false
		}
		cands, why := candidates(s.known, value, 0)
		if why != "" {
			return found{}, false
		}
		for _, c := range cands {
			if !c.strong && (!c.known || c.argsErr != "") {
				return found{}, false
			}
			f.add(c, raw, v.truncated)
		}
	}
	return f, true
}

func (f *found) add(c candidate, raw []byte, truncated bool) {
	switch {
	case !c.known:
		f.problem(raw, unknownTool(c.name, c.hint))
	case c.argsErr != "":
		f.problem(raw, badArguments(c.canonical, c.argsErr))
	case len(c.args) == 0 || c.args[0] != '{': // valid JSON: it comes from repairJSON
		f.problem(raw, badArguments(c.canonical, "the arguments must be a JSON object"))
	default:
		f.calls = append(f.calls, Call{
			Name:      c.canonical,
			Arguments: json.RawMessage(c.args),
			Raw:       string(raw),
			Truncated: truncated,
		})
	}
}

func isNameStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

func isNameByte(c byte) bool {
	return isNameStart(c) || '0' <= c && c <= '9' || c == '-' || c == '.' || c == ':'
}

func isInfoByte(c byte) bool {
	return isNameByte(c) || c == '+'
}

func skipSpace(text []byte, k int) int {
	for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r') {
		k++
	}
	return k
}
