package json

import (
	"strings"
	"testing"
)

// FuzzQuotedLen checks QuotedLen against what Marshal writes.
func FuzzQuotedLen(f *testing.F) {
	for _, s := range []string{"", "plain", "\x01\x1f\n\t\r\b\f\"\\", "é€😀", "\u2028\u2029", "\xff\xfe bad", "<>&", "\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := QuotedLen([]byte(s)), len(b)-2; got != want {
			t.Fatalf("QuotedLen(%q) = %d, Marshal wrote %d: %s", s, got, want, b)
		}
	})
}

func TestQuotedLenOfControlBytes(t *testing.T) {
	if got := QuotedLen([]byte(strings.Repeat("\x01", 1000))); got != 6000 {
		t.Errorf("1000 control bytes: %d", got)
	}
}
