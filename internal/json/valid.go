package json

// maxDepth is how deeply arrays and objects may nest, as in encoding/json (whose decoder
// refuses deeper input), so that Valid and Unmarshal agree on what is valid.
const maxDepth = 10000

// Valid reports whether data is valid JSON, exactly as encoding/json.Valid does (the same
// grammar, no check of UTF-8, the same limit on nesting), in one pass without its
// byte-at-a-time state machine: every line parley reads is checked, so on a flood of
// session/update notifications this is a good part of the reading.
func Valid(data []byte) bool {
	_, ok := validValue(data, nil)
	return ok
}

// ValidMembers is Valid that also calls fn for every top-level member of data when data
// is an object, with its name still quoted and its raw value, in order: one pass both
// checks a line and finds its members. object reports whether data is an object. Calls
// made before data turned out not to be valid are to be ignored.
func ValidMembers(data []byte, fn func(quotedName, value []byte)) (object, ok bool) {
	return validValue(data, fn)
}

// validValue checks that data holds one JSON value between optional white space. The
// open containers are a stack of their opening brackets; member, when set, is called for
// each member of a top-level object.
func validValue(data []byte, member func(quotedName, value []byte)) (object, ok bool) {
	var stackSpace [64]byte
	stack := stackSpace[:0]
	var name []byte // the top-level member being read, and where its value starts
	valueStart := 0
	i := skipSpace(data, 0)
	object = i < len(data) && data[i] == '{'
	for {
		// A value starts at i.
		if i >= len(data) {
			return object, false
		}
		switch c := data[i]; c {
		case '{', '[':
			if len(stack) >= maxDepth {
				return object, false
			}
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == closer(c) {
				i++
				break // empty: a whole value
			}
			stack = append(stack, c)
			if c == '{' {
				var quoted []byte
				if quoted, i, ok = validName(data, i); !ok {
					return object, false
				}
				if len(stack) == 1 {
					name, valueStart = quoted, i
				}
			}
			continue
		case '"':
			if i, ok = validString(data, i); !ok {
				return object, false
			}
		case 't':
			if i, ok = literal(data, i, "true"); !ok {
				return object, false
			}
		case 'f':
			if i, ok = literal(data, i, "false"); !ok {
				return object, false
			}
		case 'n':
			if i, ok = literal(data, i, "null"); !ok {
				return object, false
			}
		default:
			if i, ok = validNumber(data, i); !ok {
				return object, false
			}
		}
		// A value ended at i: see what follows it, closing the containers it ends.
		for {
			end := i
			i = skipSpace(data, i)
			if len(stack) == 0 {
				return object, i == len(data)
			}
			if i >= len(data) {
				return object, false
			}
			c, top := data[i], stack[len(stack)-1]
			if member != nil && len(stack) == 1 && top == '{' && (c == ',' || c == '}') {
				member(name, data[valueStart:end])
			}
			if c == ',' {
				i = skipSpace(data, i+1)
				if top == '{' {
					var quoted []byte
					if quoted, i, ok = validName(data, i); !ok {
						return object, false
					}
					if len(stack) == 1 {
						name, valueStart = quoted, i
					}
				}
				break // the next value
			}
			if c != closer(top) {
				return object, false
			}
			stack = stack[:len(stack)-1]
			i++ // the container just closed is a value that ended
		}
	}
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// validName reads a member name at i and the colon after it; it returns the quoted name
// and where the value starts.
func validName(data []byte, i int) (quoted []byte, next int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	end, ok := validString(data, i)
	if !ok {
		return nil, 0, false
	}
	j := skipSpace(data, end)
	if j >= len(data) || data[j] != ':' {
		return nil, 0, false
	}
	return data[i:end], skipSpace(data, j+1), true
}

// validString returns the index just past the string starting at data[i] == '"': no
// control characters, only JSON's escapes. Bytes of 0x80 and above are taken as they are.
func validString(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		c := data[j]
		if !stringSpecial[c] {
			continue
		}
		switch {
		case c == '"':
			return j + 1, true
		case c < 0x20:
			return 0, false
		}
		// A backslash.
		j++
		if j >= len(data) {
			return 0, false
		}
		switch data[j] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if j+4 >= len(data) {
				return 0, false
			}
			for _, h := range data[j+1 : j+5] {
				if !isHex(h) {
					return 0, false
				}
			}
			j += 4
		default:
			return 0, false
		}
	}
	return 0, false
}

// stringSpecial is the bytes a string's scan must stop at.
var stringSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func literal(data []byte, i int, word string) (int, bool) {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return 0, false
	}
	return i + len(word), true
}

// validNumber returns the index just past the number at i:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(data []byte, i int) (int, bool) {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return 0, false
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return 0, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}
