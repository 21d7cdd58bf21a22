package toolcall

// balance is the progress of a string-aware bracket scan that started at a '{' or '['.
// A StreamParser keeps it between chunks, so that a long call arriving in many small
// chunks is scanned once, not once per chunk.
type balance struct {
	pos      int  // next byte to scan
	depth    int  // open brackets
	inString bool // inside a "…" string
	escaped  bool // the previous byte was a backslash
	end      int  // > 0: the value closed; index just past it
	stop     int  // > 0: the stop string was met outside strings at this index
}

type balanceKey struct {
	start int
	stop  string
}

type progressKey struct {
	kind  byte
	start int
	stop  string
}

// keep remembers, while streaming, how far a loop over the items of a block got, so that
// the next chunk resumes it instead of reading every item again. The slices in progress
// are only ever appended to, and a resumed loop stores its own progress over the old one,
// so sharing their arrays is safe.
func (s *scanner) keep(key progressKey, progress any) {
	if s.final {
		return
	}
	if s.progress == nil {
		s.progress = make(map[progressKey]any)
	}
	s.progress[key] = progress
}

type findKey struct {
	from   int
	needle string
}

// balanced scans the JSON value starting at text[start] ('{' or '[') for the bracket that
// closes it, skipping brackets inside strings and escaped characters. A backslash outside
// strings also escapes the next byte, so that a double-escaped object ({\"a\": …}) does not
// open strings where it has none. The scan stops early where stop (if any) appears outside
// strings: a closing tag met before the value closed means the value is malformed and the
// block ends there. When neither happens before the end of the text, end and stop are 0.
func (s *scanner) balanced(start int, stop string) balance {
	key := balanceKey{start, stop}
	if end, ok := s.unclosed[key]; ok {
		return balance{pos: len(s.text), end: end}
	}
	b, ok := s.balances[key]
	if !ok {
		b = balance{pos: start}
	}
	if b.end > 0 || b.stop > 0 {
		return b
	}
	text := s.text
	i := b.pos
	for ; i < len(text); i++ {
		c := text[i]
		if b.escaped {
			b.escaped = false
			continue
		}
		if b.inString {
			switch c {
			case '\\':
				b.escaped = true
			case '"':
				b.inString = false
			}
			continue
		}
		switch c {
		case '"':
			b.inString = true
		case '\\':
			b.escaped = true
		case '{', '[':
			b.depth++
		case '}', ']':
			b.depth--
			if b.depth <= 0 {
				b.end = i + 1
				b.pos = i + 1
				s.keepBalance(key, b)
				return b
			}
		default:
			if stop == "" || c != stop[0] {
				continue
			}
			rest := text[i:]
			if hasPrefixFold(rest, stop) {
				b.stop = i
				b.pos = i
				s.keepBalance(key, b)
				return b
			}
			if isPartialFold(rest, stop) {
				// Perhaps the stop string, cut by the end of the text: look again later.
				b.pos = i
				s.keepBalance(key, b)
				return b
			}
		}
	}
	b.pos = i
	s.keepBalance(key, b)
	if s.final {
		s.matchBrackets(start, stop)
	}
	return b
}

// matchBrackets is called when the scan from start ran to the end of a complete text
// without closing. It records where each bracket opened inside it closes, so that scans
// starting there need not run to the end again: a reply that repeats unclosed JSON would
// otherwise cost time in the square of its length. A scan from an inner bracket outside
// strings sees exactly what the outer scan saw from there on.
func (s *scanner) matchBrackets(start int, stop string) {
	if s.unclosed == nil {
		s.unclosed = make(map[balanceKey]int)
	}
	var opens []int
	inString, escaped := false, false
	for i := start; i < len(s.text); i++ {
		c := s.text[i]
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '\\':
			escaped = true
		case c == '{' || c == '[':
			opens = append(opens, i)
		case c == '}' || c == ']':
			if len(opens) > 0 {
				s.unclosed[balanceKey{opens[len(opens)-1], stop}] = i + 1
				opens = opens[:len(opens)-1]
			}
		}
	}
	for _, o := range opens {
		s.unclosed[balanceKey{o, stop}] = 0
	}
}

func (s *scanner) keepBalance(key balanceKey, b balance) {
	if s.final {
		return // a complete text is scanned once
	}
	if s.balances == nil {
		s.balances = make(map[balanceKey]balance)
	}
	s.balances[key] = b
}

// find returns the index of the first needle (ASCII case-insensitive) at or after from, or
// -1. While streaming it remembers how far it has looked.
func (s *scanner) find(from int, needle string) int {
	if absent, ok := s.absent[needle]; ok && from >= absent {
		return -1 // a complete text: not after absent, so not after from
	}
	key := findKey{from, needle}
	start := from
	if seen, ok := s.finds[key]; ok {
		start = seen
	}
	if i := indexFold(s.text[start:], needle); i >= 0 {
		return start + i
	}
	if s.final {
		if s.absent == nil {
			s.absent = make(map[string]int)
		}
		if absent, ok := s.absent[needle]; !ok || from < absent {
			s.absent[needle] = from
		}
		return -1
	}
	if s.finds == nil {
		s.finds = make(map[findKey]int)
	}
	s.finds[key] = max(start, len(s.text)-len(needle)+1)
	return -1
}

// forget drops the memory of scans that started before pos: the text there is settled.
func (s *scanner) forget(pos int) {
	for k := range s.balances {
		if k.start < pos {
			delete(s.balances, k)
		}
	}
	for k := range s.finds {
		if k.from < pos {
			delete(s.finds, k)
		}
	}
	for k := range s.progress {
		if k.start < pos {
			delete(s.progress, k)
		}
	}
	for k := range s.junk {
		if k.from < pos {
			delete(s.junk, k)
		}
	}
}

// hasPrefixFold reports whether b starts with prefix, ignoring ASCII case.
func hasPrefixFold(b []byte, prefix string) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lower(b[i]) != lower(prefix[i]) {
			return false
		}
	}
	return true
}

// isPartialFold reports whether b is a proper prefix of s (a possible start of s cut off by
// the end of the text), ignoring ASCII case.
func isPartialFold(b []byte, s string) bool {
	if len(b) >= len(s) {
		return false
	}
	for i := range b {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// indexFold is bytes.Index ignoring ASCII case.
func indexFold(b []byte, needle string) int {
	if needle == "" {
		return 0
	}
	first := lower(needle[0])
	for i := 0; i+len(needle) <= len(b); i++ {
		if lower(b[i]) == first && hasPrefixFold(b[i:], needle) {
			return i
		}
	}
	return -1
}
