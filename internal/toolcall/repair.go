package toolcall

import (
	"bytes"
	"unicode/utf8"

	"github.com/parley-acp/parley/internal/json"
)

// repairJSON returns src as valid JSON: compacted when it already is, otherwise rebuilt by
// a lenient reader that fixes what models are seen to get wrong: text cut off anywhere,
// inside strings too (strings, arrays and objects are closed, a dangling member dropped);
// raw control characters in strings; double-escaped quotes, and whole objects escaped once
// too often; unescaped quotes inside strings (a quote ends a string only where JSON could
// go on after it); literal \n between tokens; invalid escapes (C:\Users keeps its
// backslash); an extra '{'; a string closed by a backtick; stray template tags
// (</parameter>) and fences between tokens; single, curly and missing quotes; trailing
// and missing commas; Python's True, False and None; comments.
//
// truncated reports that src ended inside a value.
func repairJSON(src []byte) (out []byte, truncated, ok bool) {
	src = bytes.TrimSpace(src)
	if len(src) == 0 {
		return nil, false, false
	}
	// Valid JSON is only compacted, unless it holds invalid UTF-8, which the lenient
	// reader replaces so that the arguments can be forwarded in any JSON message.
	if c, err := json.Compact(src); err == nil && utf8.Valid(c) {
		return c, false, true
	}
	if doubleEscaped(src) {
		src = unescapeOnce(src)
		if c, err := json.Compact(src); err == nil && utf8.Valid(c) {
			return c, false, true
		}
	}
	r := repairer{src: src, out: make([]byte, 0, len(src)+8)}
	if !r.value(ctxTop) || !json.Valid(r.out) {
		return nil, r.truncated, false
	}
	return r.out, r.truncated, true
}

// context tells the lenient reader where a string stands, which decides what may follow
// its closing quote.
type context int

const (
	ctxTop context = iota
	ctxKey
	ctxObject
	ctxArray
)

// maxDepth bounds nesting, so that a reply of a million '[' cannot exhaust the stack.
const maxDepth = 512

type repairer struct {
	src       []byte
	i         int
	out       []byte
	depth     int
	truncated bool
}

func (r *repairer) eof() bool { return r.i >= len(r.src) }

func (r *repairer) skipJunk() { r.i = r.skipJunkAt(r.i) }

// skipJunkAt returns the index of the next token at or after k, past whitespace and what
// models put between tokens by mistake: literal \n, \t and \r, backticks, template tags
// and comments.
func (r *repairer) skipJunkAt(k int) int {
	src := r.src
	for k < len(src) {
		switch src[k] {
		case ' ', '\t', '\n', '\r', '`':
			k++
		case '\\':
			if k+1 < len(src) && (src[k+1] == 'n' || src[k+1] == 't' || src[k+1] == 'r') {
				k += 2
				continue
			}
			return k
		case '<':
			e := junkTagEnd(src, k)
			if e == 0 {
				return k
			}
			k = e
		case '/':
			if k+1 < len(src) && src[k+1] == '/' {
				if nl := bytes.IndexByte(src[k:], '\n'); nl >= 0 {
					k += nl + 1
				} else {
					k = len(src)
				}
				continue
			}
			if k+1 < len(src) && src[k+1] == '*' {
				if e := bytes.Index(src[k+2:], []byte("*/")); e >= 0 {
					k += e + 4
				} else {
					k = len(src)
				}
				continue
			}
			return k
		default:
			return k
		}
	}
	return k
}

// junkTagEnd returns the index just past a tag-like token (<malformed_json_arguments>,
// </parameter>, <|eot_id|>) starting at src[k], or 0.
func junkTagEnd(src []byte, k int) int {
	j := k + 1
	for j < len(src) && j-k < 64 {
		c := src[j]
		switch {
		case c == '>':
			if j == k+1 {
				return 0
			}
			return j + 1
		case c == '/' || c == '|' || c == '_' || c == '-' || c == '=' || c == '.' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
			j++
		default:
			return 0
		}
	}
	return 0
}

// value reads one value and writes it. It returns false, having written nothing, when no
// value starts here; the caller drops the member.
func (r *repairer) value(c context) bool {
	r.skipJunk()
	if r.eof() {
		r.truncated = true
		return false
	}
	if r.depth >= maxDepth {
		r.i = len(r.src)
		r.truncated = true
		return false
	}
	switch b := r.src[r.i]; {
	case b == '{':
		r.depth++
		r.i++
		r.out = append(r.out, '{')
		r.members(true)
		r.out = append(r.out, '}')
		r.depth--
	case b == '[':
		r.depth++
		r.array()
		r.depth--
	case b == '"' || b == '\'' || curlyQuote(r.src[r.i:]) > 0:
		r.str(c)
	case b == '}' || b == ']' || b == ',' || b == ':':
		return false
	default:
		r.bareword()
	}
	return true
}

// members reads an object's members up to its closing brace. first reports that nothing
// has been written yet; members returns the same for the caller.
func (r *repairer) members(first bool) bool {
	for {
		r.skipJunk()
		if r.eof() {
			r.truncated = true
			return first
		}
		switch r.src[r.i] {
		case '}', ']':
			r.i++
			return first
		case ',', ':', ';':
			r.i++
			continue
		case '{':
			// An extra brace ({{"name": …}} or {"a": 1, {"b": 2}}): read the inner
			// object's members into this one.
			if r.depth >= maxDepth {
				r.i = len(r.src)
				continue
			}
			r.depth++
			r.i++
			first = r.members(first)
			r.depth--
			continue
		}
		mark := len(r.out)
		if !first {
			r.out = append(r.out, ',')
		}
		start := r.i
		if !r.key() {
			r.out = r.out[:mark]
			r.i = start + 1
			continue
		}
		r.skipJunk()
		if !r.eof() && (r.src[r.i] == ':' || r.src[r.i] == '=') {
			r.i++
		}
		r.out = append(r.out, ':')
		if !r.value(ctxObject) {
			r.out = r.out[:mark] // a key without a value: cut off, or garbage
			continue
		}
		first = false
	}
}

func (r *repairer) array() {
	r.i++
	r.out = append(r.out, '[')
	first := true
	for {
		r.skipJunk()
		if r.eof() {
			r.truncated = true
			break
		}
		b := r.src[r.i]
		if b == ']' || b == '}' {
			r.i++
			break
		}
		if b == ',' || b == ':' || b == ';' {
			r.i++
			continue
		}
		mark := len(r.out)
		if !first {
			r.out = append(r.out, ',')
		}
		start := r.i
		if !r.value(ctxArray) {
			r.out = r.out[:mark]
			if r.i == start {
				r.i++
			}
			continue
		}
		first = false
	}
	r.out = append(r.out, ']')
}

// key reads a member name: a string in any quotes, or a bare word.
func (r *repairer) key() bool {
	b := r.src[r.i]
	if b == '"' || b == '\'' || curlyQuote(r.src[r.i:]) > 0 {
		r.str(ctxKey)
		return true
	}
	if !isWordByte(b) {
		return false
	}
	start := r.i
	for !r.eof() && isWordByte(r.src[r.i]) {
		r.i++
	}
	r.out = appendString(r.out, r.src[start:r.i])
	return true
}

func isWordByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		b == '_' || b == '$' || b == '-' || b == '.' || b >= 0x80
}

// bareword reads an unquoted value up to the next delimiter: a number, a literal (also
// Python's and cut-off ones) or else text, written as a string.
func (r *repairer) bareword() {
	start := r.i
	for !r.eof() {
		b := r.src[r.i]
		if b == ',' || b == '}' || b == ']' || b == '\n' || b == '\r' || b == '"' {
			break
		}
		if b == '/' && r.i > start && r.src[r.i-1] == ' ' && r.i+1 < len(r.src) &&
			(r.src[r.i+1] == '/' || r.src[r.i+1] == '*') {
			break // a comment after the value
		}
		r.i++
	}
	tok := bytes.TrimRight(r.src[start:r.i], " \t")
	atEnd := r.eof()
	switch string(tok) {
	case "true", "True", "TRUE":
		r.out = append(r.out, "true"...)
		return
	case "false", "False", "FALSE":
		r.out = append(r.out, "false"...)
		return
	case "null", "None", "NULL", "nil":
		r.out = append(r.out, "null"...)
		return
	}
	if validNumber(tok) {
		r.out = append(r.out, tok...)
		return
	}
	if atEnd {
		// Cut off inside a literal or a number.
		r.truncated = true
		for _, lit := range []string{"true", "false", "null"} {
			if len(tok) > 0 && len(tok) < len(lit) && string(tok) == lit[:len(tok)] {
				r.out = append(r.out, lit...)
				return
			}
		}
		if n := bytes.TrimRight(tok, ".eE+-"); len(n) > 0 && validNumber(n) {
			r.out = append(r.out, n...)
			return
		}
	}
	r.out = appendString(r.out, tok)
}

// validNumber reports whether b is a JSON number.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// curlyQuote returns 3 when b starts with a curly double quote (“ or ”), else 0.
func curlyQuote(b []byte) int {
	if len(b) >= 3 && b[0] == 0xE2 && b[1] == 0x80 && (b[2] == 0x9C || b[2] == 0x9D) {
		return 3
	}
	return 0
}

// str reads a string opened by ", ' or a curly quote and writes it as a JSON string.
func (r *repairer) str(c context) {
	open := r.src[r.i]
	curly := open != '"' && open != '\''
	if curly {
		r.i += 3
	} else {
		r.i++
	}
	r.out = append(r.out, '"')
	backtick, backtickOut := -1, 0
	for !r.eof() {
		b := r.src[r.i]
		w := 1
		closer := false
		switch {
		case curly:
			if b == '"' {
				closer = true
			} else if w = curlyQuote(r.src[r.i:]); w > 0 {
				closer = true
			} else {
				w = 1
			}
		default:
			closer = b == open
		}
		if closer {
			if c == ctxKey || r.endsString(r.i+w, c) {
				r.i += w
				r.out = append(r.out, '"')
				return
			}
			// A quote inside the text that the model did not escape.
			r.out = append(r.out, r.src[r.i:r.i+w]...)
			if b == '"' {
				r.out = append(r.out[:len(r.out)-1], '\\', '"')
			}
			r.i += w
			continue
		}
		switch {
		case b == '\\':
			r.escape(c)
		case b == '"':
			r.out = append(r.out, '\\', '"') // in a '…' string
			r.i++
		case b == '`':
			if backtick < 0 && c != ctxKey && r.endsString(r.i+1, c) {
				backtick, backtickOut = r.i, len(r.out)
			}
			r.out = append(r.out, '`')
			r.i++
		case b < 0x20:
			r.out = appendControl(r.out, b)
			r.i++
		case b < utf8.RuneSelf:
			r.out = append(r.out, b)
			r.i++
		default:
			ch, size := utf8.DecodeRune(r.src[r.i:])
			if ch == utf8.RuneError && size == 1 {
				r.out = append(r.out, `\ufffd`...)
			} else {
				r.out = append(r.out, r.src[r.i:r.i+size]...)
			}
			r.i += size
		}
	}
	// The text ended inside the string. If a backtick could have closed it
	// ("path": "main.go`}), it did; otherwise the string was cut off.
	if backtick >= 0 {
		r.out = r.out[:backtickOut]
		r.i = backtick + 1
	} else {
		r.truncated = true
	}
	r.out = append(r.out, '"')
}

// escape reads a backslash sequence inside a string.
func (r *repairer) escape(c context) {
	src := r.src
	if r.i+1 >= len(src) {
		r.i++ // a lone backslash cut off at the end
		r.truncated = true
		return
	}
	switch n := src[r.i+1]; n {
	case '"', '/', 'b', 'f', 'n', 'r', 't':
		r.out = append(r.out, '\\', n)
		r.i += 2
	case '\\':
		if r.i+2 < len(src) && src[r.i+2] == '"' && !r.endsString(r.i+3, c) {
			// \\" where the quote cannot end the string: a double-escaped quote.
			r.out = append(r.out, '\\', '"')
			r.i += 3
			return
		}
		r.out = append(r.out, '\\', '\\')
		r.i += 2
	case 'u':
		hex := src[r.i+2 : min(r.i+6, len(src))]
		if len(hex) == 4 && isHex(hex) {
			r.out = append(r.out, src[r.i:r.i+6]...)
			r.i += 6
			return
		}
		if len(hex) < 4 && isHex(hex) && r.i+2+len(hex) == len(src) {
			r.i = len(src) // cut off inside \uXXXX
			r.truncated = true
			return
		}
		r.out = append(r.out, '\\', '\\') // not an escape: keep the backslash as text
		r.i++
	case '\'':
		r.out = append(r.out, '\'')
		r.i += 2
	default:
		// An invalid escape such as C:\Users: keep the backslash as text.
		r.out = append(r.out, '\\', '\\')
		r.i++
	}
}

// endsString reports whether a quote just before src[k] closes the string: whether what
// follows it can follow a string in JSON.
func (r *repairer) endsString(k int, c context) bool {
	src := r.src
	k0 := k
	k = r.skipJunkAt(k)
	if k >= len(src) {
		return true
	}
	switch src[k] {
	case '}', ']':
		return true
	case ':':
		return false
	case ',':
		k = r.skipJunkAt(k + 1)
		if k >= len(src) {
			return true
		}
		b := src[k]
		switch {
		case b == '"' || b == '\'' || b == '}' || b == ']' || curlyQuote(src[k:]) > 0:
			return true
		case c == ctxArray && (b == '{' || b == '[' || b == '-' || '0' <= b && b <= '9'):
			return true
		case isWordByte(b):
			// An unquoted key: a word, then a colon.
			for k < len(src) && isWordByte(src[k]) {
				k++
			}
			for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
				k++
			}
			return k < len(src) && src[k] == ':'
		}
		return false
	case '"':
		// Two strings with a line break between them: the comma is missing.
		between := src[k0:k]
		return bytes.IndexByte(between, '\n') >= 0 || bytes.Contains(between, []byte(`\n`))
	}
	return false
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func appendControl(out []byte, b byte) []byte {
	switch b {
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	const hex = "0123456789abcdef"
	return append(out, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
}

// appendString appends s as a JSON string.
func appendString(out, s []byte) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); {
		b := s[i]
		switch {
		case b == '"' || b == '\\':
			out = append(out, '\\', b)
			i++
		case b < 0x20:
			out = appendControl(out, b)
			i++
		case b < utf8.RuneSelf:
			out = append(out, b)
			i++
		default:
			ch, size := utf8.DecodeRune(s[i:])
			if ch == utf8.RuneError && size == 1 {
				out = append(out, `\ufffd`...)
			} else {
				out = append(out, s[i:i+size]...)
			}
			i += size
		}
	}
	return append(out, '"')
}

// doubleEscaped reports whether src is an object escaped once too often: {\"path\": …}.
func doubleEscaped(src []byte) bool {
	src = bytes.TrimLeft(src, "[ \t\r\n")
	if len(src) == 0 || src[0] != '{' {
		return false
	}
	src = bytes.TrimLeft(src[1:], " \t\r\n")
	return len(src) >= 2 && src[0] == '\\' && src[1] == '"'
}

// unescapeOnce removes one level of JSON string escaping.
func unescapeOnce(src []byte) []byte {
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		b := src[i]
		if b != '\\' || i+1 == len(src) {
			out = append(out, b)
			continue
		}
		i++
		switch n := src[i]; n {
		case '"', '\\', '/':
			out = append(out, n)
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'u':
			if i+5 <= len(src) && isHex(src[i+1:i+5]) {
				var v rune
				for _, h := range src[i+1 : i+5] {
					v = v<<4 | rune(hexValue(h))
				}
				out = utf8.AppendRune(out, v)
				i += 4
				continue
			}
			out = append(out, '\\', n)
		default:
			out = append(out, '\\', n)
		}
	}
	return out
}

func hexValue(h byte) byte {
	switch {
	case '0' <= h && h <= '9':
		return h - '0'
	case 'a' <= h && h <= 'f':
		return h - 'a' + 10
	default:
		return h - 'A' + 10
	}
}
