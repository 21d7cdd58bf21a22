package toolui

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// SafeText returns text from an agent as it may be printed on a terminal or in a
// document: every character that would act instead of show, or that shows nothing, is
// made visible. Newlines and tabs stay; "\r\n" is a newline. Other C0 controls and DEL
// become their Unicode control pictures (ESC is ␛, so "\x1b[2J" reads ␛[2J and clears
// nothing); the characters Invisible names become "<U+202E>"; a byte that is not UTF-8
// becomes "<0x9B>". Every renderer passes the agent's text through it (the JSON
// encoder excepted: its output is data, kept lossless; it writes these same characters
// as \u escapes, see EscapeHidden).
//
// The web page and the VS Code extension apply the same rule (web/src/visible.ts, its
// table generated from this file's; testdata/visible.json is the cases both test).
func SafeText(s string) string {
	if safeASCII(s) {
		return s
	}
	var st SafeStream
	return string(st.appendText(make([]byte, 0, len(s)+16), s, false))
}

// SafeStream is SafeText for text that comes in pieces, an agent's reply chunk by
// chunk: a variation selector or a joiner is judged by the character before it, which
// may have come in the piece before, so the stream remembers it. The zero value starts
// a text; Reset starts another.
//
// A joiner (or a keycap's variation selector) at the end of a piece is judged without
// the character after it, which has not come yet: it is kept when the one before it
// could be joined. One such character carries nothing on its own, and what follows it is
// judged as usual, so a stream's pieces cannot hide text either.
type SafeStream struct {
	prev rune // the last character shown as itself; 0 when none (or it was replaced)
}

// Append appends piece, made safe, to dst.
func (st *SafeStream) Append(dst []byte, piece string) []byte {
	return st.appendText(dst, piece, true)
}

// String returns piece made safe.
func (st *SafeStream) String(piece string) string {
	if safeASCII(piece) {
		if piece != "" {
			st.prev = rune(piece[len(piece)-1])
		}
		return piece
	}
	return string(st.appendText(make([]byte, 0, len(piece)+16), piece, true))
}

// Reset forgets the text before: what comes next is judged as the start of a text.
func (st *SafeStream) Reset() { st.prev = 0 }

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
	var st SafeStream
	return st.appendText(dst, s, false)
}

// appendText appends s made safe to dst; open says that more text may follow s.
func (st *SafeStream) appendText(dst []byte, s string, open bool) []byte {
	if safeASCII(s) {
		if s != "" {
			st.prev = rune(s[len(s)-1])
		}
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
			st.prev = rune(c)
			i++
			continue
		case c < 0x20:
			dst = utf8.AppendRune(dst, 0x2400+rune(c))
			st.prev = 0
			i++
			continue
		case c == 0x7f:
			dst = utf8.AppendRune(dst, 0x2421)
			st.prev = 0
			i++
			continue
		}
		r, n, hide := judge(s, i, st.prev, open)
		switch {
		case r == utf8.RuneError && n <= 1:
			dst = fmt.Appendf(dst, "<0x%02X>", c)
			st.prev = 0
		case hide:
			dst = fmt.Appendf(dst, "<U+%04X>", r)
			st.prev = 0
		default:
			dst = append(dst, s[i:i+n]...)
			st.prev = r
		}
		i += n
	}
	return dst
}

// Invisible reports whether SafeText shows r by its code point wherever it is. These are
// the characters that act on the display instead of showing, or show nothing:
//
//   - the C1 controls (U+0080–U+009F), which some terminals obey like ESC sequences;
//   - the format characters (Unicode category Cf): the bidirectional marks, embeddings,
//     overrides and isolates (which reorder what is shown: U+202E), the soft hyphen, the
//     zero-width space and the word joiner, the invisible operators (U+2061–U+2064), the
//     deprecated format characters (U+206A–U+206F), the byte order mark, the
//     interlinear annotation characters, the Mongolian vowel separator, the shorthand
//     and musical format controls, the tag characters (U+E0000–U+E007F), and the rest;
//     but not the prepended concatenation marks (U+0600–U+0605…), which show a sign;
//   - the other default-ignorable code points (the combining grapheme joiner U+034F, the
//     Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the Khmer inherent vowels, and
//     the code points Unicode keeps for more of them);
//   - the line and paragraph separators (U+2028, U+2029), which break a line where the
//     text has none;
//   - the noncharacters (U+FDD0–U+FDEF, U+FFFE, U+FFFF and their kin in every plane).
//
// Some are judged by where they are instead (see judge). Invisible does not report the
// zero-width joiner and non-joiner (kept between two characters they can join: letters
// of the scripts that use them, Arabic, Persian, the Indic scripts…, and emoji; shown
// elsewhere) nor the variation selectors (one kept after a visible character that is
// not ASCII, or in a keycap; shown elsewhere). It reports the tag characters, which are
// kept only as the tags of an emoji flag (🏴 and a subdivision code, as England's).
//
// Spaces stay (they show as space), and so do the private-use characters (fonts draw
// icons there) and characters unassigned in Go's Unicode tables (newer emoji).
func Invisible(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true
	case r == 0x200c, r == 0x200d:
		return false
	case unicode.Is(unicode.Cf, r):
		return !unicode.Is(unicode.Prepended_Concatenation_Mark, r)
	}
	return unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Zl, unicode.Zp, unicode.Noncharacter_Code_Point)
}

const (
	zwnj      = 0x200c
	zwj       = 0x200d
	blackFlag = 0x1f3f4
	cancelTag = 0xe007f
	keycap    = 0x20e3
)

// judge decides the character at s[i] (not ASCII): it returns it, how many bytes of s
// are passed on or replaced with it (a flag's tag sequence is one run), and whether it
// is shown by its code point. prev is the character before it if that was shown as
// itself, else 0; open says more text may follow s.
func judge(s string, i int, prev rune, open bool) (r rune, n int, hide bool) {
	r, n = utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return r, n, false
	}
	switch {
	case r == zwj || r == zwnj:
		next, _ := utf8.DecodeRuneInString(s[i+n:])
		if i+n == len(s) && open {
			return r, n, !joinsAfter(prev)
		}
		return r, n, !joinsAfter(prev) || !joinsBefore(next)
	case unicode.Is(unicode.Variation_Selector, r):
		if prev >= 0x80 && selectable(prev) {
			return r, n, false
		}
		// A keycap: 1, #, * then U+FE0F then U+20E3.
		if r == 0xfe0f && (prev >= '0' && prev <= '9' || prev == '#' || prev == '*') {
			next, _ := utf8.DecodeRuneInString(s[i+n:])
			return r, n, !(next == keycap || i+n == len(s) && open)
		}
		return r, n, true
	case r == blackFlag:
		return r, n + flagTags(s[i+n:]), false
	}
	return r, n, Invisible(r)
}

// selectable reports whether a variation selector after r (shown, not ASCII) selects a
// form of it: r is a visible character (a letter, mark, number, symbol or punctuation),
// not a space, a control or another selector.
func selectable(r rune) bool {
	return !Invisible(r) && !unicode.Is(unicode.Variation_Selector, r) && unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.S, unicode.P)
}

// joinsAfter reports whether a joiner after r (shown) can join it to what follows:
// r is a letter or mark of a script that joins (not Latin, Greek, Cyrillic or the East
// Asian ones, whose letters never take a joiner), a symbol (an emoji: 👩‍💻, with its
// skin tone, a modifier symbol), or the variation selector that made it one (❤️‍🔥).
func joinsAfter(r rune) bool {
	return r >= 0x80 && (joiningLetter(r) || unicode.Is(unicode.S, r) || unicode.Is(unicode.Variation_Selector, r))
}

// joinsBefore reports whether a joiner before r can join r to what precedes it.
func joinsBefore(r rune) bool {
	return r >= 0x80 && !Invisible(r) && (joiningLetter(r) || unicode.Is(unicode.S, r))
}

func joiningLetter(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M) &&
		!unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// flagTags returns the length of the tag sequence at the start of s that makes the
// black flag before it a subdivision's flag (🏴 g b e n g, cancel: England's): two to six
// tag letters and digits and the cancel tag. 0 when there is none: the tags are then
// judged one by one, and shown by their code points.
func flagTags(s string) int {
	n := 0
	for count := 0; count <= 6; count++ {
		r, size := utf8.DecodeRuneInString(s[n:])
		switch {
		case r == cancelTag && count >= 2:
			return n + size
		case r >= 0xe0061 && r <= 0xe007a, r >= 0xe0030 && r <= 0xe0039:
			n += size
		default:
			return 0
		}
	}
	return 0
}
