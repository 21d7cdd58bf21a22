package tools

import (
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/lazy"
)

// ansiPattern matches terminal escape sequences: CSI, OSC ended by BEL or ST, VS Code's
// bare shell-integration markers, and two-byte escapes.
var ansiPattern = lazy.Regexp(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\]633;[A-Za-z](?:;[^\n\x07]*)?\x07?|\x1b[@-Z\\-_]`)

// cleanTerminal strips escape sequences and control characters (but newline and tab) and
// applies carriage returns the way a terminal shows them: a progress bar keeps its last state.
func cleanTerminal(s string) string {
	s = ansiPattern().ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		if j := strings.LastIndexByte(strings.TrimRight(line, "\r"), '\r'); j >= 0 {
			line = line[j+1:]
		}
		lines[i] = strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' || r == 0x7f {
				return -1
			}
			return r
		}, line)
	}
	return strings.Join(lines, "\n")
}

const (
	headLines   = 15
	tailLines   = 85
	maxOutBytes = 30000
	maxLineLen  = 2000
)

// truncateOutput keeps the first 15 and last 85 lines of a longer output, with a marker
// line saying how many were cut, then caps very long lines and the total size.
func truncateOutput(s string) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > headLines+tailLines {
		cut := len(lines) - headLines - tailLines
		kept := append(lines[:headLines:headLines], fmt.Sprintf("... [%d lines truncated] ...", cut))
		lines = append(kept, lines[len(lines)-tailLines:]...)
	}
	for i, l := range lines {
		if len(l) > maxLineLen {
			lines[i] = l[:maxLineLen] + fmt.Sprintf(" ... [%d characters truncated]", len(l)-maxLineLen)
		}
	}
	s = strings.Join(lines, "\n")
	if len(s) > maxOutBytes {
		half := maxOutBytes / 2
		s = s[:half] + fmt.Sprintf("\n... [%d bytes truncated] ...\n", len(s)-2*half) + s[len(s)-half:]
	}
	return s
}
