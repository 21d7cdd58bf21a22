package tui

import (
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
)

// packed lays pieces (a key and its words, an answer and its key) out on lines of at
// most width cells, sep between them on a line, indent before each line; a piece is
// never split across lines unless it is wider than a line on its own. A narrow terminal
// shows every piece, on more lines, instead of cutting the last ones off.
func packed(pieces []string, sep, indent string, width int) []string {
	room := max(width-xansi.StringWidth(indent), 1)
	var lines []string
	var cur strings.Builder
	used := 0
	flush := func() {
		if used > 0 {
			lines = append(lines, indent+cur.String())
			cur.Reset()
			used = 0
		}
	}
	sw := xansi.StringWidth(sep)
	for _, p := range pieces {
		w := xansi.StringWidth(p)
		if used > 0 && used+sw+w > room {
			flush()
		}
		if w > room {
			for _, l := range plainLines(p, room) {
				lines = append(lines, indent+l)
			}
			continue
		}
		if used > 0 {
			cur.WriteString(sep)
			used += sw
		}
		cur.WriteString(p)
		used += w
	}
	flush()
	return lines
}

// wrapAll wraps each line at width.
func wrapAll(lines []string, width int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, plainLines(l, width)...)
	}
	return out
}
