package main

import (
	"strings"
	"testing"
)

// A misspelt agent name is a slip of the keyboard: every flag that takes one says which
// agent was meant; a name unlike any says nothing of the kind.
func TestAgentNameSuggestsTheClosest(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--agent", "elisa", "hi"},
		{"chat", "--agent", "elisa"},
		{"login", "--agent", "elisa"},
		{"web", "--agent", "elisa", "--no-open"},
		{"run", "--agent", "cladue", "hi"},
	} {
		r := parley(t, "", args...)
		want := "did you mean eliza?"
		if args[2] == "cladue" {
			want = "did you mean claude?"
		}
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("parley %s: exit %d, stderr %q; want %q", strings.Join(args, " "), r.code, r.stderr, want)
		}
	}
	if r := parley(t, "", "run", "--agent", "zzzzzz", "hi"); !strings.Contains(r.stderr, "unknown agent") || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("a name unlike any: stderr %q; want no suggestion", r.stderr)
	}
}
