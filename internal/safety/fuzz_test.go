package safety

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func FuzzAnalyze(f *testing.F) {
	for _, c := range readTable(f) {
		f.Add(c.command)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 4096 {
			return // long inputs only slow the fuzzer's minimizing down
		}
		// A hang would only stall the fuzzer: report it with its input instead.
		done := make(chan struct{})
		go func() {
			defer close(done)
			Analyze(line, tableContext)
			AnalyzeArgv([]string{"sh", "-c", line}, tableContext)
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("Analyze(%q) did not return", line)
		}
		a := Analyze(line, tableContext)
		if a.Tier > Critical {
			t.Fatalf("tier %d", a.Tier)
		}
		if a.Tier > None && a.Reason() == "" {
			t.Fatalf("%q is %s with no reason", line, a.Tier)
		}
		if a.Err != nil && a.Tier < High {
			t.Fatalf("%q cannot be parsed but is %s", line, a.Tier)
		}
		if again := Analyze(line, tableContext); again.Shape().Key() != a.Shape().Key() || again.Tier != a.Tier {
			t.Fatalf("%q: two analyses differ: %s %q, %s %q", line, a.Tier, a.Shape().Key(), again.Tier, again.Shape().Key())
		}
		for _, c := range a.Commands {
			_ = c.Full()
			_ = c.Core()
		}
		// Hiding a command in sh -c never makes it look safer. A line that starts with
		// - or + is not a script there: sh takes it for its own options.
		if a.Err == nil && utf8.ValidString(line) && !strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "+") {
			wrapped := AnalyzeArgv([]string{"sh", "-c", line}, tableContext)
			if wrapped.Tier < a.Tier {
				t.Fatalf("%q is %s, but sh -c of it is %s (%s)", line, a.Tier, wrapped.Tier, wrapped.Reason())
			}
		}
	})
}
