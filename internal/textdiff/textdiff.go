// Package textdiff is parley's one line diff of two texts: the +/− counts a tool call or a
// turn's change shows, the hunks a short preview draws, and the unified diff a review
// prints. It is a thin layer over github.com/aymanbagabas/go-udiff (the Myers diff of
// golang.org/x/tools, whose search is bounded, so a huge rewrite costs a bounded effort
// and is shown as a larger replacement, never as seconds of work).
package textdiff

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Kind is what a line of a hunk does.
type Kind byte

const (
	Equal  Kind = ' '
	Delete Kind = '-'
	Insert Kind = '+'
)

// Line is one line of a hunk, without its line end.
type Line struct {
	Kind Kind
	Text string
}

// Hunk is a run of changed lines with the unchanged lines around them. Lines are
// numbered from 1; an empty side is numbered by the line before it, as diff -u does.
type Hunk struct {
	OldStart, OldCount int
	NewStart, NewCount int
	Lines              []Line
}

// Counts returns how many lines were added and removed from old to new. A missing
// newline at the end of either text is not a change of its own: "a" and "a\n" are equal.
func Counts(old, new string) (added, removed int) {
	old, new = withFinalNewline(old), withFinalNewline(new)
	if old == new {
		return 0, 0
	}
	for _, h := range hunks(old, new, 0) {
		for _, l := range h.Lines {
			switch l.Kind {
			case Insert:
				added++
			case Delete:
				removed++
			}
		}
	}
	return added, removed
}

// Hunks returns the changes from old to new with context unchanged lines around each
// (hunks closer than 2*context lines are joined). As with Counts, a missing final
// newline is ignored.
func Hunks(old, new string, context int) []Hunk {
	return hunks(withFinalNewline(old), withFinalNewline(new), context)
}

func hunks(old, new string, context int) []Hunk {
	if old == new {
		return nil
	}
	u, err := udiff.ToUnifiedDiff("", "", old, udiff.Lines(old, new), context)
	if err != nil {
		// Cannot happen: the edits were computed from old itself. Show a whole
		// replacement rather than nothing.
		return []Hunk{replacement(old, new)}
	}
	out := make([]Hunk, 0, len(u.Hunks))
	for _, h := range u.Hunks {
		o := Hunk{OldStart: h.FromLine, NewStart: h.ToLine, Lines: make([]Line, 0, len(h.Lines))}
		for _, l := range h.Lines {
			line := Line{Text: strings.TrimSuffix(l.Content, "\n")}
			switch l.Kind {
			case udiff.Delete:
				line.Kind = Delete
				o.OldCount++
			case udiff.Insert:
				line.Kind = Insert
				o.NewCount++
			default:
				line.Kind = Equal
				o.OldCount++
				o.NewCount++
			}
			o.Lines = append(o.Lines, line)
		}
		if o.OldCount == 0 {
			o.OldStart--
		}
		if o.NewCount == 0 {
			o.NewStart--
		}
		out = append(out, o)
	}
	return out
}

func replacement(old, new string) Hunk {
	h := Hunk{OldStart: 1, NewStart: 1}
	for _, l := range splitLines(old) {
		h.Lines = append(h.Lines, Line{Delete, l})
		h.OldCount++
	}
	for _, l := range splitLines(new) {
		h.Lines = append(h.Lines, Line{Insert, l})
		h.NewCount++
	}
	return h
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Unified returns the unified diff from old to new (with "--- oldLabel" and "+++
// newLabel" headers and context lines around each change), or "" when they are equal.
// Unlike Counts and Hunks it shows a missing final newline, as diff -u does.
func Unified(oldLabel, newLabel, old, new string, context int) string {
	if old == new {
		return ""
	}
	out, err := udiff.ToUnified(oldLabel, newLabel, old, udiff.Lines(old, new), context)
	if err != nil {
		return "" // cannot happen, as in hunks
	}
	return out
}

func withFinalNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
