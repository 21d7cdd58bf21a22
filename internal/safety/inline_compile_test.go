package safety

import "testing"

// TestEveryLanguageCompiles: the languages' expressions are compiled on first use, so a
// broken one would otherwise surface only when code of its language is judged.
func TestEveryLanguageCompiles(t *testing.T) {
	for name, s := range languages() {
		s.compile()
		if s.dynamic == nil {
			t.Errorf("%s: no expression for code built at run time", name)
		}
	}
}
