package json

import "unicode/utf8"

// QuotedLen is how many bytes s takes inside a JSON string as Marshal writes it (without
// the quotes): a control character takes six (\u0001), or two for the ones with a short
// form, a quote or backslash two, U+2028 and U+2029 six, an invalid byte six (\ufffd).
// It lets a caller bound an answer by its size on the wire before encoding it.
func QuotedLen(s []byte) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
