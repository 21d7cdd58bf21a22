package toolui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/parley-acp/parley/internal/json"
)

// visibleCase is a case of testdata/visible.json, which the web page's and the VS Code
// extension's tests read too: the one rule, three implementations.
type visibleCase struct {
	Name string `json:"name"`
	In   string `json:"in"`
	Want string `json:"want"`
}

func visibleCases(t *testing.T) []visibleCase {
	t.Helper()
	data, err := os.ReadFile("testdata/visible.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []visibleCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("testdata/visible.json: %v", err)
	}
	return cases
}

func TestSafeText(t *testing.T) {
	for _, c := range visibleCases(t) {
		if got := SafeText(c.In); got != c.Want {
			t.Errorf("%s: SafeText(%+q) = %+q, want %+q", c.Name, c.In, got, c.Want)
		}
	}
	// What JSON cannot hold: bytes that are not UTF-8.
	if got, want := SafeText("bad \xff byte \xed\xa0\x80"), "bad <0xFF> byte <0xED><0xA0><0x80>"; got != want {
		t.Errorf("SafeText = %q, want %q", got, want)
	}
}

// Each case's JSON, escaped, decodes to the same text and holds none of the characters
// SafeText replaced.
func TestEscapeHiddenKeepsTheTextAndShowsNoHiddenCharacter(t *testing.T) {
	for _, c := range visibleCases(t) {
		b, err := MarshalJSON(map[string]string{"text": c.In})
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]string
		if err := json.Unmarshal(b, &back); err != nil || back["text"] != c.In {
			t.Errorf("%s: %s decodes to %+q (%v), want %+q", c.Name, b, back["text"], err, c.In)
		}
		for _, r := range hiddenIn(c.In, c.Want) {
			if raw, shown := strings.Count(string(b), string(r)), strings.Count(c.Want, string(r)); raw != shown {
				t.Errorf("%s: %U is raw %d times in %s, SafeText keeps it %d times", c.Name, r, raw, b, shown)
			}
		}
		if strings.ContainsRune(string(b), 0x7f) {
			t.Errorf("%s: DEL got through: %s", c.Name, b)
		}
	}
	if got, want := string(EscapeHidden(nil, []byte("\"\U000E0041\"\n"))), `"\udb40\udc41"`+"\n"; got != want {
		t.Errorf("a tag character is escaped as %s, want %s (a surrogate pair)", got, want)
	}
}

// hiddenIn returns the characters of in that SafeText wrote as <U+…> in want.
func hiddenIn(in, want string) []rune {
	var out []rune
	for _, r := range in {
		if r >= 0x80 && strings.Contains(want, fmt.Sprintf("<U+%04X>", r)) {
			out = append(out, r)
		}
	}
	return out
}

// Every member of the class, from Unicode's own property tables: each is shown by its
// code point wherever it is, and each of the judged kinds is shown when out of place.
func TestInvisibleCoversTheUnicodeProperties(t *testing.T) {
	for _, tab := range []*unicode.RangeTable{unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Noncharacter_Code_Point, unicode.Zl, unicode.Zp} {
		for r := rune(0x80); r <= unicode.MaxRune; r++ {
			if !unicode.Is(tab, r) {
				continue
			}
			judged := r == zwj || r == zwnj || r == blackFlag
			pcm := unicode.Is(unicode.Prepended_Concatenation_Mark, r)
			if got := Invisible(r); got == (judged || pcm) {
				t.Errorf("Invisible(%U) = %v", r, got)
			}
			if judged || pcm {
				continue
			}
			// Alone, after ASCII, and after an emoji: shown by its code point.
			for _, s := range []string{string(r), "a" + string(r), "\u2764" + string(r)} {
				if got := SafeText(s); strings.ContainsRune(got, r) {
					t.Fatalf("SafeText(%+q) = %+q", s, got)
				}
			}
		}
	}
	for r := rune(0x80); r <= 0x9f; r++ {
		if !Invisible(r) || strings.ContainsRune(SafeText(string(r)), r) {
			t.Errorf("C1 control %U is not shown by its code point", r)
		}
	}
	// The selectors are judged: each is shown alone, after ASCII and after a space.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.Is(unicode.Variation_Selector, r) {
			continue
		}
		for _, s := range []string{string(r), "a" + string(r), " " + string(r)} {
			if got := SafeText(s); strings.ContainsRune(got, r) {
				t.Errorf("SafeText(%+q) = %+q", s, got)
			}
		}
	}
}

// A stream judges a piece's first character by the end of the piece before.
func TestSafeStreamJudgesAcrossPieces(t *testing.T) {
	for _, c := range []struct {
		pieces []string
		want   string
	}{
		{[]string{"warning \u26a0", "\ufe0f done"}, "warning \u26a0\ufe0f done"},
		{[]string{"a", "\ufe0f"}, "a<U+FE0F>"},
		{[]string{"\U0001F469\u200d", "\U0001F4BB"}, "\U0001F469\u200d\U0001F4BB"},
		{[]string{"\U0001F469", "\u200d\U0001F4BB"}, "\U0001F469\u200d\U0001F4BB"},
		{[]string{"a\u200d", "b"}, "a<U+200D>b"},
		// A joiner ending a piece is judged by what is before it: one alone hides nothing.
		{[]string{"\U0001F469\u200d", "b"}, "\U0001F469\u200db"},
		{[]string{"\u2764", "\x1b", "\ufe0f"}, "\u2764␛<U+FE0F>"},
		{[]string{"ok", "\U000E0041"}, "ok<U+E0041>"},
	} {
		var st SafeStream
		var got []byte
		for _, p := range c.pieces {
			got = st.Append(got, p)
		}
		if string(got) != c.want {
			t.Errorf("stream of %+q = %+q, want %+q", c.pieces, got, c.want)
		}
		st.Reset()
		var s strings.Builder
		for _, p := range c.pieces {
			s.WriteString(st.String(p))
		}
		if s.String() != c.want {
			t.Errorf("String of %+q = %+q, want %+q", c.pieces, s.String(), c.want)
		}
	}
	var st SafeStream
	st.Append(nil, "\u26a0")
	st.Reset()
	if got := string(st.Append(nil, "\ufe0f")); got != "<U+FE0F>" {
		t.Errorf("after Reset, a selector = %q", got)
	}
}
