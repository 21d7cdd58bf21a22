package wsline

import "testing"

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:          `{"a":1}`,
		"{\n  \"a\": 1\n}": `{"a":1}`,
		"not json\nat all": "not json at all",
		"":                 "",
	} {
		if got := string(OneLine([]byte(in))); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
