package toolcall

import (
	"bytes"
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// mistral reads Mistral's [TOOL_CALLS] at j, followed by a JSON array, JSON objects, or
// name[ARGS]{…} (also name[CALL_ID]id[ARGS]{…}).
func (s *scanner) mistral(j int) step {
	text := s.text
	q, _, more := s.skipBlockJunk(j+len(mistralTag), "")
	if more {
		return open(true)
	}
	if q >= len(text) {
		st := step{verdict: isMarkup, end: len(text)}
		st.found.problem(text[j:], "The reply ended after [TOOL_CALLS]. Send the whole call again: "+callShape+".")
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
		vals, end, v = s.values(q, "")
		if v == isMarkup {
			f = s.explicit(vals)
		}
	case isNameStart(c):
		f, end, v = s.named(q, "")
	default:
		st := step{verdict: isMarkup, end: q}
		st.found.problem(text[j:q], unreadable("[TOOL_CALLS] is not followed by a call"))
		return st
	}
	if v == isOpen {
		return open(true)
	}
	return step{verdict: isMarkup, end: end, found: f}
}

// named reads a call written as a name followed by its arguments: NAME {…},
// NAME[ARGS]{…}, NAME[CALL_ID]id[ARGS]{…}, call:NAME{…} (Gemma), or GLM's
// NAME<arg_key>K</arg_key><arg_value>V</arg_value>…; with stop, a bare NAME before it is a
// call without arguments.
func (s *scanner) named(q int, stop string) (f found, end int, v verdict) {
	text := s.text
	k := q
	if hasPrefixFold(text[k:], "call:") {
		k += len("call:")
	}
	nameStart := k
	for k < len(text) && isNameByte(text[k]) {
		k++
	}
	if k == len(text) && !s.final {
		return f, 0, isOpen
	}
	name := string(text[nameStart:k])
	nameEnd := k
	k = skipSpace(text, k)
	for _, marker := range []string{"[CALL_ID]", "[ARGS]"} {
		if k == len(text) || isPartialFold(text[k:], marker) {
			if !s.final {
				return f, 0, isOpen
			}
			break
		}
		if hasPrefixFold(text[k:], marker) {
			k += len(marker)
			if marker == "[CALL_ID]" {
				for k < len(text) && isNameByte(text[k]) {
					k++
				}
			}
			k = skipSpace(text, k)
		}
	}
	if !s.final && (k == len(text) || isPartialFold(text[k:], "<arg_key>") || isPartialFold(text[k:], stop)) {
		return f, 0, isOpen
	}
	switch {
	case k < len(text) && text[k] == '{':
		vals, _, v := s.values(k, stop)
		if v == isOpen {
			return f, 0, isOpen
		}
		arg := vals[0] // one object of arguments
		raw := text[q:arg.end]
		args, ok := decode(text[arg.start:arg.end])
		if !ok || args[0] != '{' {
			f.problem(raw, badArguments(name, "the arguments are not a JSON object"))
			return f, arg.end, isMarkup
		}
		f.add(s.candidate(name, args), raw, arg.truncated)
		return f, arg.end, isMarkup
	case k < len(text) && hasPrefixFold(text[k:], "<arg_key>"):
		return s.glm(q, k, name)
	case k >= len(text) || stop != "" && hasPrefixFold(text[k:], stop):
		c := s.candidate(name, []byte("{}"))
		f.add(c, text[q:k], k >= len(text))
		return f, k, isMarkup
	case stop == "":
		f.problem(text[q:nameEnd], unreadable("the tool name "+quote(name)+" is not followed by a JSON object of arguments"))
		return f, nameEnd, isMarkup
	}
	return s.unreadable(q, stop)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// candidate is a call to name with the JSON object args.
func (s *scanner) candidate(name string, args []byte) candidate {
	canonical, hint, ok := resolve(s.known, name)
	return candidate{name: name, canonical: canonical, known: ok, hint: hint, args: args, strong: true}
}

// glm reads GLM's <arg_key>K</arg_key><arg_value>V</arg_value> pairs from k.
func (s *scanner) glm(q, k int, name string) (f found, end int, v verdict) {
	text := s.text
	key := progressKey{'g', q, ""}
	var args []member
	if pr, ok := s.progress[key].(xmlProgress); ok {
		args, k = pr.args, pr.next
	}
	wait := func() (found, int, verdict) {
		s.keep(key, xmlProgress{args, k})
		return found{}, 0, isOpen
	}
	truncated := false
	for {
		k = skipSpace(text, k)
		if !hasPrefixFold(text[k:], "<arg_key>") {
			if k == len(text) || isPartialFold(text[k:], "<arg_key>") {
				if !s.final {
					return wait()
				}
				truncated, k = true, len(text)
			}
			break
		}
		keyEnd := s.find(k, "</arg_key>")
		if keyEnd < 0 {
			if !s.final {
				return wait()
			}
			truncated, k = true, len(text)
			break
		}
		param := strings.TrimSpace(string(text[k+len("<arg_key>") : keyEnd]))
		valTag := skipSpace(text, keyEnd+len("</arg_key>"))
		if !hasPrefixFold(text[valTag:], "<arg_value>") {
			if !s.final && (valTag == len(text) || isPartialFold(text[valTag:], "<arg_value>")) {
				return wait()
			}
			args = append(args, member{param, []byte(`""`)})
			k = valTag
			continue
		}
		valStart := valTag + len("<arg_value>")
		valEnd := s.find(valStart, "</arg_value>")
		if valEnd < 0 {
			if !s.final {
				return wait()
			}
			args = append(args, member{param, xmlValue(text[valStart:])})
			truncated, k = true, len(text)
			break
		}
		args = append(args, member{param, xmlValue(text[valStart:valEnd])})
		k = valEnd + len("</arg_value>")
	}
	f.add(s.candidate(name, objectOf(args)), text[q:k], truncated)
	return f, k, isMarkup
}

// qwen reads Qwen3-Coder's <function=NAME><parameter=K>V</parameter>…</function> from q,
// one or more.
func (s *scanner) qwen(q int, stop string) (f found, end int, v verdict) {
	text := s.text
	key := progressKey{'q', q, stop}
	k, between := q, false
	if pr, ok := s.progress[key].(qwenProgress); ok {
		f, k, between = pr.found, pr.next, pr.between
	}
	for {
		if between {
			next := skipSpace(text, k)
			if !s.final && (next == len(text) || isPartialFold(text[next:], "<function=")) {
				s.keep(key, qwenProgress{f, k, true})
				return found{}, 0, isOpen
			}
			if !hasPrefixFold(text[next:], "<function=") {
				return f, k, isMarkup
			}
			k = next
		}
		one, fnEnd, v := s.qwenFunction(k, stop)
		if v == isOpen {
			s.keep(key, qwenProgress{f, k, false})
			return found{}, 0, isOpen
		}
		f.calls = append(f.calls, one.calls...)
		f.problems = append(f.problems, one.problems...)
		k, between = fnEnd, true
	}
}

// qwenProgress is how far qwen got in a block that is still arriving: the calls read
// whole, and where to go on (between: after a function, where another may start).
type qwenProgress struct {
	found   found
	next    int
	between bool
}

// xmlProgress is how far an XML-style call got: the arguments read whole, and where the
// next one starts.
type xmlProgress struct {
	args []member
	next int
}

// qwenFunction reads one <function=NAME>…</function> at start.
func (s *scanner) qwenFunction(start int, stop string) (f found, end int, v verdict) {
	text := s.text
	nameEnd := s.find(start, ">")
	if nameEnd < 0 {
		if !s.final {
			return f, 0, isOpen
		}
		f.problem(text[start:], "The reply ended inside a tool call. Send the whole call again.")
		return f, len(text), isMarkup
	}
	name := strings.TrimSpace(string(text[start+len("<function=") : nameEnd]))
	key := progressKey{'f', start, stop}
	k := nameEnd + 1
	var args []member
	if pr, ok := s.progress[key].(xmlProgress); ok {
		args, k = pr.args, pr.next
	}
	wait := func() (found, int, verdict) {
		s.keep(key, xmlProgress{args, k})
		return found{}, 0, isOpen
	}
	truncated := false
	for {
		k = skipSpace(text, k)
		if hasPrefixFold(text[k:], "</function>") {
			k += len("</function>")
			break
		}
		if !hasPrefixFold(text[k:], "<parameter=") {
			if !s.final && (k == len(text) || isPartialFold(text[k:], "<parameter=") ||
				isPartialFold(text[k:], "</function>")) {
				return wait()
			}
			// </function> is missing: the function ends here.
			truncated = k == len(text)
			break
		}
		keyEnd := s.find(k, ">")
		if keyEnd < 0 {
			if !s.final {
				return wait()
			}
			truncated, k = true, len(text)
			break
		}
		param := strings.TrimSpace(string(text[k+len("<parameter=") : keyEnd]))
		valStart := keyEnd + 1
		valEnd := s.find(valStart, "</parameter>")
		if valEnd >= 0 {
			args = append(args, member{param, xmlValue(text[valStart:valEnd])})
			k = valEnd + len("</parameter>")
			continue
		}
		if !s.final {
			return wait()
		}
		// </parameter> is missing: the value runs to the end of the function, of the
		// block, or of the reply.
		valEnd = len(text)
		for _, t := range []string{"</function>", "<parameter=", stop} {
			if e := s.find(valStart, t); e >= 0 && e < valEnd {
				valEnd = e
			}
		}
		args = append(args, member{param, xmlValue(text[valStart:valEnd])})
		k = valEnd
	}
	f.add(s.candidate(name, objectOf(args)), text[start:k], truncated)
	return f, k, isMarkup
}

// xmlValue turns the text of an XML-style argument into JSON: objects, arrays, numbers and
// literals as written, anything else as a string (one newline around it is dropped).
func xmlValue(v []byte) []byte {
	v = bytes.TrimPrefix(v, []byte("\n"))
	v = bytes.TrimSuffix(v, []byte("\n"))
	t := bytes.TrimSpace(v)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
		if c, err := json.Compact(t); err == nil {
			return c
		}
	}
	if validNumber(t) || string(t) == "true" || string(t) == "false" || string(t) == "null" {
		return t
	}
	return appendString(nil, v)
}

// unreadable reads a block whose content at q is not a call, up to the closing tag.
func (s *scanner) unreadable(q int, stop string) (f found, end int, v verdict) {
	text := s.text
	k := len(text)
	if stop != "" {
		if e := s.find(q, stop); e >= 0 {
			k = e
		} else if !s.final {
			return f, 0, isOpen
		}
	}
	f.problem(text[q:k], unreadable("its content is not a JSON object"))
	return f, k, isMarkup
}

// jsonFences are the info strings of a fence that may hold a call.
var jsonFences = []string{"", "json", "jsonc", "json5", "jsonl", "tool_call", "tool_calls", "tool_code", "tool", "function_call"}

// atFence reads a code fence at j: a ```json (or bare ```) fence that holds only calls is
// call markup; any other fence is prose, and the scan goes on inside it.
func (s *scanner) atFence(j int) step {
	text := s.text
	rest := text[j:]
	if !bytes.HasPrefix(rest, []byte(fence)) {
		if !s.final && len(rest) < len(fence) && bytes.HasPrefix([]byte(fence), rest) {
			return open(false)
		}
		return prose(j + 1)
	}
	k := j + len(fence)
	for k < len(text) && isInfoByte(text[k]) {
		k++
	}
	if k == len(text) && !s.final {
		return open(false)
	}
	info := strings.ToLower(string(text[j+len(fence) : k]))
	opener := prose(k)
	if !containsFold(jsonFences, info) {
		return opener
	}
	q := skipSpace(text, k)
	switch {
	case q == len(text):
		if !s.final {
			return open(false)
		}
		return opener
	case text[q] != '{' && text[q] != '[':
		return opener
	}
	vals, end, v := s.values(q, fence)
	if v == isOpen {
		return open(false)
	}
	c := skipSpace(text, end)
	regionEnd := len(text)
	switch {
	case c == len(text):
		if !s.final {
			return open(false)
		}
	case bytes.HasPrefix(text[c:], []byte(fence)):
		regionEnd = c + len(fence)
	case len(text)-c < len(fence) && bytes.HasPrefix([]byte(fence), text[c:]):
		if !s.final {
			return open(false)
		}
	default:
		return opener // more than JSON in the fence
	}
	f, ok := s.implicit(vals)
	if !ok {
		return opener
	}
	return step{verdict: isMarkup, end: regionEnd, found: f}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// bareKeys are the first members a bare JSON object in prose must start with to be read
// as a possible call.
var bareKeys = []string{"name", "tool", "tool_name", "function", "type", "tool_calls"}

// atBare reads a bare JSON object (or array of objects) at j that might be a call the
// model printed instead of making it.
func (s *scanner) atBare(j int) step {
	text := s.text
	k := j
	if text[j] == '[' {
		k = skipSpace(text, j+1)
		if k == len(text) {
			if !s.final {
				return open(false)
			}
			return prose(j + 1)
		}
		if text[k] != '{' {
			return prose(j + 1)
		}
	}
	k = skipSpace(text, k+1)
	if k == len(text) {
		if !s.final {
			return open(false)
		}
		return prose(j + 1)
	}
	if text[k] != '"' {
		return prose(j + 1)
	}
	e := bytes.IndexByte(text[k+1:min(len(text), k+2+16)], '"')
	if e < 0 {
		if !s.final && len(text)-k-1 <= 16 {
			return open(false)
		}
		return prose(j + 1)
	}
	if !containsFold(bareKeys, string(text[k+1:k+1+e])) {
		return prose(j + 1)
	}
	b := s.balanced(j, "")
	sp := span{start: j, end: b.end}
	if b.end == 0 {
		if !s.final {
			return open(false)
		}
		sp = span{start: j, end: len(text), truncated: true}
	}
	if f, ok := s.implicit([]span{sp}); ok {
		return step{verdict: isMarkup, end: sp.end, found: f}
	}
	if !sp.truncated && json.Valid(text[sp.start:sp.end]) {
		return prose(sp.end) // a JSON document, not a call: its strings are not markup
	}
	return prose(j + 1)
}
