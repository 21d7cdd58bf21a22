package toolstate

import (
	"fmt"

	"github.com/parley-acp/parley/internal/textdiff"
)

// countChanges returns the number of lines added and removed from old to new.
func countChanges(old, new string) (added, removed int) { return textdiff.Counts(old, new) }

// ShortUnified returns at most maxLines lines of the edit as a unified diff with one line
// of context: hunk headers ("@@ -3,2 +3,3 @@"), then lines starting with ' ', '-' or '+'.
// When more would follow, the last line says how many more changed lines there are.
func (d Diff) ShortUnified(maxLines int) []string {
	if maxLines <= 0 {
		return nil
	}
	hunks := textdiff.Hunks(d.OldText, d.NewText, 1)
	total := 0
	for _, h := range hunks {
		for _, l := range h.Lines {
			if l.Kind != textdiff.Equal {
				total++
			}
		}
	}
	var out []string
	shown := 0
	for _, h := range hunks {
		if len(out)+2 > maxLines {
			break
		}
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldCount, h.NewStart, h.NewCount))
		for _, l := range h.Lines {
			if len(out) == maxLines-1 && shown < total {
				break
			}
			out = append(out, string(l.Kind)+l.Text)
			if l.Kind != textdiff.Equal {
				shown++
			}
		}
		if len(out) >= maxLines-1 {
			break
		}
	}
	if rest := total - shown; rest > 0 {
		out = append(out, "… "+Count(rest, "more changed line", "more changed lines"))
	}
	return out
}
