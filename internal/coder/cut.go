package coder

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/internal/lazy"
)

// Cutting a text that is too large for the window to a head and a tail, with a note in
// between that says what was left out and how to read it: a file's lines by their
// numbers (read_file shows them), a command's or a search's output by narrowing it.

// numberedLine is a line as read_file shows it: its number, a tab, the text.
var numberedLine = lazy.Regexp(`^\s*(\d+)\t`)

// cutToFit returns text cut to about limit tokens: the first and last lines that fit
// (two fifths of the limit each, so the note and the estimate's error have room) with
// a note between them; text that fits is returned as it is. tool names the tool that
// produced the text ("" for other text), which decides what the note advises.
func cutToFit(text string, limit int, tool string, cal *calibration) string {
	if cal.estimate(rawTokens(text)) <= limit {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	part := max(limit*2/5, 1)
	head, headTokens := 0, 0
	for head < len(lines) {
		n := cal.estimate(rawTokens(lines[head]))
		if headTokens+n > part {
			break
		}
		headTokens += n
		head++
	}
	tail, tailTokens := len(lines), 0
	for tail > head {
		n := cal.estimate(rawTokens(lines[tail-1]))
		if tailTokens+n > part {
			break
		}
		tailTokens += n
		tail--
	}
	if head == 0 && tail == len(lines) { // one huge line: cut by characters instead
		return cutChars(text, limit, cal)
	}
	note := cutNote(lines[head:tail], len(lines), tool)
	return strings.Join(lines[:head], "") + "\n" + note + "\n" + strings.Join(lines[tail:], "")
}

// cutChars keeps the start and end of a text that has no lines to cut between.
func cutChars(text string, limit int, cal *calibration) string {
	perToken := float64(len(text)) / max(float64(cal.estimate(rawTokens(text))), 1)
	keep := int(float64(limit*2/5) * perToken)
	if keep*2 >= len(text) {
		return text
	}
	start, end := validPrefix(text, keep), validSuffix(text, keep)
	return start + fmt.Sprintf("\n[… %d characters left out to fit the context window …]\n", len(text)-len(start)-len(end)) + end
}

func validPrefix(s string, n int) string {
	for n > 0 && n < len(s) && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func validSuffix(s string, n int) string {
	i := len(s) - n
	for i < len(s) && !isRuneStart(s[i]) {
		i++
	}
	return s[i:]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// cutNote says what was left out and how to see it.
func cutNote(left []string, total int, tool string) string {
	if tool == "read_file" {
		first, last := lineNumber(left[0]), lineNumber(left[len(left)-1])
		if first > 0 && last >= first {
			return fmt.Sprintf("[… lines %d-%d left out to fit the context window: read them with read_file and start_line=%d, end_line=%d, a part at a time …]", first, last, first, last)
		}
	}
	advice := ""
	switch tool {
	case "run_terminal_command":
		advice = ": run a narrower command (grep, head, tail, sed -n 'A,Bp') to see them"
	case "search_workspace":
		advice = ": narrow the pattern, the path or the glob to see them"
	case "list_files":
		advice = ": list a subdirectory or use a pattern to see them"
	case "":
	default:
		advice = ": ask for less at a time to see them"
	}
	return fmt.Sprintf("[… %d of %d lines left out to fit the context window%s …]", len(left), total, advice)
}

func lineNumber(line string) int {
	m := numberedLine().FindStringSubmatch(line)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
