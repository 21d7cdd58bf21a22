package agents

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"node agent.mjs --x", []string{"node", "agent.mjs", "--x"}},
		{`  a  'b c'  "d \"e\""  f\ g `, []string{"a", "b c", `d "e"`, "f g"}},
		{`x ''`, []string{"x", ""}},
	} {
		spec, err := ParseCommand(tc.line)
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if got := append([]string{spec.Command}, spec.Args...); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.line, got, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", "a 'b", `a "b`} {
		if _, err := ParseCommand(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestLookupUnknownNamesTheKnownOnes(t *testing.T) {
	_, err := Lookup("nope")
	if err == nil || !strings.Contains(err.Error(), "eliza") {
		t.Errorf("got %v", err)
	}
}
