package toolui

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// emulate plays output on a terminal of the given width with unlimited height and
// returns what the screen shows at the end, colors dropped: what a person sees after
// the live renderer's rewriting. It knows the sequences the renderer writes (cursor up,
// erase to the end of the screen or line, colors) and wraps at the last column.
func emulate(out string, width int) string {
	var screen [][]rune
	row, col := 0, 0
	put := func(r rune) {
		for len(screen) <= row {
			screen = append(screen, nil)
		}
		line := screen[row]
		for len(line) <= col {
			line = append(line, ' ')
		}
		line[col] = r
		screen[row] = line
		col++
		if col >= width {
			row, col = row+1, 0
		}
	}
	for i := 0; i < len(out); {
		switch c := out[i]; c {
		case '\n':
			row, col = row+1, 0 // a terminal's output processing makes it \r\n
			i++
			continue
		case '\r':
			col = 0
			i++
			continue
		case '\x1b':
			j := i + 2
			for j < len(out) && (out[j] < '@' || out[j] > '~') {
				j++
			}
			n, err := strconv.Atoi(out[i+2 : j])
			if err != nil {
				n = 0
			}
			switch out[j] {
			case 'A':
				row = max(0, row-max(n, 1))
			case 'J':
				if row < len(screen) {
					if col < len(screen[row]) {
						screen[row] = screen[row][:col]
					}
					screen = screen[:row+1]
				}
			case 'K':
				if row < len(screen) && col < len(screen[row]) {
					screen[row] = screen[row][:col]
				}
			}
			i = j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		put(r)
		i += size
	}
	var b strings.Builder
	for _, line := range screen {
		b.WriteString(strings.TrimRight(string(line), " "))
		b.WriteByte('\n')
	}
	return b.String()
}
