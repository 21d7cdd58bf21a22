package toolui

import (
	"fmt"
	"unicode/utf8"
)

// SafeText returns text from an agent as it may be printed on a terminal or in a
// document: every character that would act instead of show is made visible. Newlines
// and tabs stay; "\r\n" is a newline. Other C0 controls and DEL become their Unicode
// control pictures (ESC is ␛, so "\x1b[2J" reads ␛[2J and clears nothing); C1 controls
// (U+0080–U+009F, which some terminals obey like ESC sequences), the bidirectional
// overrides and isolates (which reorder what is shown: U+202E), and the invisible
// separators and marks become "<U+202E>"; a byte that is not UTF-8 becomes "<0x9B>".
// Every renderer passes the agent's text through it (the JSON encoder excepted: its
// output is data, kept lossless; it writes these same characters as \u escapes).
func SafeText(s string) string {
	if safeASCII(s) {
		return s
	}
	return string(appendSafeText(make([]byte, 0, len(s)+16), s))
}

// safeASCII reports whether s needs no change: printable ASCII, newlines and tabs.
func safeASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7f || c < 0x20 && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

// appendSafeText appends SafeText(s) to dst.
func appendSafeText(dst []byte, s string) []byte {
	if safeASCII(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			i++
			continue
		case c == '\n' || c == '\t' || c >= 0x20 && c < 0x7f:
			dst = append(dst, c)
			i++
			continue
		case c < 0x20:
			dst = utf8.AppendRune(dst, 0x2400+rune(c))
			i++
			continue
		case c == 0x7f:
			dst = utf8.AppendRune(dst, 0x2421)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			dst = fmt.Appendf(dst, "<0x%02X>", c)
		case invisible(r):
			dst = fmt.Appendf(dst, "<U+%04X>", r)
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

// invisible reports whether r acts on the display (or hides) instead of showing: C1
// controls, bidirectional controls, and invisible separators and marks. The zero-width
// joiners stay: emoji need them.
func invisible(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200b, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029, r == 0x2060, r == 0xfeff:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
