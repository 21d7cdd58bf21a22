package toolui

import (
	"fmt"
	"strings"
)

// A line diff for presenting edits: how many lines changed, and a few of them. It is
// Myers' algorithm on the lines left once the common prefix and suffix are trimmed, and
// it gives up on edits larger than maxEditDistance, counting the whole middle as
// replaced: a summary line must not cost seconds or megabytes.

const maxEditDistance = 400

type opKind byte

const (
	opEqual  opKind = ' '
	opDelete opKind = '-'
	opInsert opKind = '+'
)

type lineOp struct {
	kind opKind
	text string
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// countChanges returns the number of lines added and removed from old to new.
func countChanges(old, new string) (added, removed int) {
	if old == new {
		return 0, 0
	}
	for _, op := range diffLines(splitLines(old), splitLines(new)) {
		switch op.kind {
		case opInsert:
			added++
		case opDelete:
			removed++
		}
	}
	return added, removed
}

// diffLines returns an edit script from a to b.
func diffLines(a, b []string) []lineOp {
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	ops := make([]lineOp, 0, len(a)+len(b)-prefix-suffix)
	for _, l := range a[:prefix] {
		ops = append(ops, lineOp{opEqual, l})
	}
	ops = append(ops, myers(a[prefix:len(a)-suffix], b[prefix:len(b)-suffix])...)
	for _, l := range a[len(a)-suffix:] {
		ops = append(ops, lineOp{opEqual, l})
	}
	return ops
}

func myers(a, b []string) []lineOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 || n+m > 4*maxEditDistance*maxEditDistance {
		return replaced(a, b)
	}
	// trace[d] holds, for each diagonal k in [-d, d], the furthest x reached with d edits.
	var trace [][]int
	for d := 0; d <= maxEditDistance; d++ {
		v := make([]int, 2*d+1)
		for k := -d; k <= d; k += 2 {
			var x int
			switch {
			case d == 0:
				x = 0
			case k == -d || (k != d && at(trace[d-1], d-1, k-1) < at(trace[d-1], d-1, k+1)):
				x = at(trace[d-1], d-1, k+1)
			default:
				x = at(trace[d-1], d-1, k-1) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[k+d] = x
			if x >= n && y >= m {
				return backtrack(append(trace, v), a, b)
			}
		}
		trace = append(trace, v)
	}
	return replaced(a, b)
}

func at(v []int, d, k int) int { return v[k+d] }

func backtrack(trace [][]int, a, b []string) []lineOp {
	var rev []lineOp
	x, y := len(a), len(b)
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && at(prev, d-1, k-1) < at(prev, d-1, k+1)) {
			prevK = k + 1
		}
		prevX := at(prev, d-1, prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, lineOp{opEqual, a[x-1]})
			x, y = x-1, y-1
		}
		if x == prevX {
			rev = append(rev, lineOp{opInsert, b[y-1]})
			y--
		} else {
			rev = append(rev, lineOp{opDelete, a[x-1]})
			x--
		}
	}
	for x > 0 && y > 0 {
		rev = append(rev, lineOp{opEqual, a[x-1]})
		x, y = x-1, y-1
	}
	ops := make([]lineOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}

func replaced(a, b []string) []lineOp {
	ops := make([]lineOp, 0, len(a)+len(b))
	for _, l := range a {
		ops = append(ops, lineOp{opDelete, l})
	}
	for _, l := range b {
		ops = append(ops, lineOp{opInsert, l})
	}
	return ops
}

// ShortUnified returns at most maxLines lines of the edit as a unified diff with one line
// of context: hunk headers ("@@ -3,2 +3,3 @@"), then lines starting with ' ', '-' or '+'.
// When more would follow, the last line says how many more changed lines there are.
func (d Diff) ShortUnified(maxLines int) []string {
	if maxLines <= 0 {
		return nil
	}
	const context = 1
	ops := diffLines(splitLines(d.OldText), splitLines(d.NewText))
	var out []string
	shownChanges := 0
	totalChanges := 0
	for _, op := range ops {
		if op.kind != opEqual {
			totalChanges++
		}
	}
	oldLine, newLine := 1, 1
	for i := 0; i < len(ops); {
		if ops[i].kind == opEqual {
			oldLine, newLine, i = oldLine+1, newLine+1, i+1
			continue
		}
		// A hunk: from context lines before the change to context lines after the last
		// change that is at most 2*context equal lines away.
		start := max(0, i-context)
		for j := start; j < i; j++ {
			oldLine, newLine = oldLine-1, newLine-1
		}
		end := i
		for end < len(ops) {
			if ops[end].kind != opEqual {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == opEqual {
				run++
			}
			if run < len(ops) && run-end <= 2*context {
				end = run
				continue
			}
			end = min(run, end+context)
			break
		}
		oldCount, newCount := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != opInsert {
				oldCount++
			}
			if op.kind != opDelete {
				newCount++
			}
		}
		if len(out)+2 > maxLines {
			break
		}
		// An empty side is numbered by the line before it, as diff -u does.
		oldStart, newStart := oldLine, newLine
		if oldCount == 0 {
			oldStart--
		}
		if newCount == 0 {
			newStart--
		}
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@", oldStart, oldCount, newStart, newCount))
		for _, op := range ops[start:end] {
			if len(out) == maxLines-1 && shownChanges < totalChanges {
				break
			}
			out = append(out, string(op.kind)+op.text)
			if op.kind != opEqual {
				shownChanges++
			}
		}
		oldLine += oldCount
		newLine += newCount
		i = end
		if len(out) >= maxLines-1 {
			break
		}
	}
	if rest := totalChanges - shownChanges; rest > 0 {
		out = append(out, fmt.Sprintf("… %d more changed lines", rest))
	}
	return out
}
