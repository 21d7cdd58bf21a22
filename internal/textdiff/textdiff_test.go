package textdiff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCounts(t *testing.T) {
	tests := []struct {
		old, new       string
		added, removed int
	}{
		{"", "a\nb\n", 2, 0},
		{"a\nb\n", "", 0, 2},
		{"a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"a\nb\nc\nd\n", "a\nc\nd\ne\n", 1, 1},
		{"same\n", "same\n", 0, 0},
		{"no newline", "no newline\n", 0, 0},
		{"x\ny", "x\nz", 1, 1},
	}
	for _, tt := range tests {
		if a, r := Counts(tt.old, tt.new); a != tt.added || r != tt.removed {
			t.Errorf("Counts(%q, %q) = +%d −%d, want +%d −%d", tt.old, tt.new, a, r, tt.added, tt.removed)
		}
	}
}

func TestCountsOfAHugeRewriteAreExact(t *testing.T) {
	var a, b strings.Builder
	for i := range 5000 {
		a.WriteString(string(rune('a'+i%26)) + "\n")
		b.WriteString(string(rune('A'+i%26)) + "\n")
	}
	if added, removed := Counts(a.String(), b.String()); added != 5000 || removed != 5000 {
		t.Errorf("+%d −%d, want +5000 −5000", added, removed)
	}
}

func TestHunks(t *testing.T) {
	got := Hunks("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\nthree\n4\n5\n6\n7\n8\nnine\n10\n", 1)
	want := []Hunk{
		{OldStart: 2, OldCount: 3, NewStart: 2, NewCount: 3, Lines: []Line{{Equal, "2"}, {Delete, "3"}, {Insert, "three"}, {Equal, "4"}}},
		{OldStart: 8, OldCount: 3, NewStart: 8, NewCount: 3, Lines: []Line{{Equal, "8"}, {Delete, "9"}, {Insert, "nine"}, {Equal, "10"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Hunks (-want +got):\n%s", diff)
	}
	// A pure insertion numbers its empty old side by the line before it.
	got = Hunks("a\nb\n", "a\nnew\nb\n", 0)
	if len(got) != 1 || got[0].OldStart != 1 || got[0].OldCount != 0 || got[0].NewStart != 2 || got[0].NewCount != 1 {
		t.Errorf("insertion: %+v", got)
	}
}

func TestUnified(t *testing.T) {
	got := Unified("a/x", "b/x", "one\ntwo\n", "one\n2\n", 3)
	want := "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
	if got != want {
		t.Errorf("Unified:\n%s\nwant:\n%s", got, want)
	}
	if Unified("a", "b", "same", "same", 3) != "" {
		t.Error("equal texts have a diff")
	}
}
