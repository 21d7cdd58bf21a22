package tui

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// renderPlain is the rendering of md at width as the screen shows its text.
func renderPlain(md string, width int) []string {
	return strip(newMarkdown(true).render(md, width))
}

func TestMarkdownConstructs(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     []string
	}{
		{"headings", "# One\n\n## Two\n\n### Three", []string{"One", "", "Two", "", "Three"}},
		{"emphasis", "*it* **bold** ~~gone~~ ~one~ `code`", []string{"it bold gone one code"}},
		{"tildes that do not pair", "a ~~b~ c ~", []string{"a ~~b~ c ~"}},
		{"escapes and entities", `\*not\* &amp; &copy; &#x41;`, []string{"*not* & © A"}},
		{"link", "see [the docs](https://example.com/d) now", []string{"see the docs (https://example.com/d) now"}},
		{"link that is its address", "[https://go.dev](https://go.dev) and <https://x.org>", []string{"https://go.dev and https://x.org"}},
		{"image", "![a cat](cat.png)", []string{"image: a cat (cat.png)"}},
		{"fenced code", "```go\nfunc f() {\n    return\n}\n```", []string{"   func f() {", "       return", "   }"}},
		{"indented code", "text\n\n    x := 1", []string{"text", "", "   x := 1"}},
		{"quote", "> quoted\n>\n> > inner", []string{"│ quoted", "│", "│ │ inner"}},
		{"unordered nested", "- a\n  - b\n    - c\n- d", []string{"• a", "  ◦ b", "    ▪ c", "• d"}},
		{"ordered", "9. nine\n10. ten", []string{" 9. nine", "10. ten"}},
		{"ordered from its start", "3) three\n4) four", []string{"3) three", "4) four"}},
		{"loose", "- a\n\n- b", []string{"• a", "", "• b"}},
		{"tasks", "- [ ] to do\n- [x] done\n- [y] not a task", []string{"[ ] to do", "[x] done", "• [y] not a task"}},
		{"rule", "a\n\n---\n\nb", []string{"a", "", strings.Repeat("─", 40), "", "b"}},
		{"html block", "<div>\nhi\n</div>", []string{"<div>", "hi", "</div>"}},
		{"inline html", "a <b>b</b> c", []string{"a <b>b</b> c"}},
		{"hard break", "one  \ntwo\\\nthree", []string{"one", "two", "three"}},
		{"soft break", "one\ntwo", []string{"one two"}},
		{"table", "| a | bb |\n|---|---:|\n| 1 | 2 |", []string{" a │ bb", "───┼────", " 1 │  2"}},
		{"table between text", "before\n\n| a | b |\n|---|---|\n| `x` | **y** |\n\nafter", []string{"before", "", " a │ b", "───┼───", " x │ y", "", "after"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, renderPlain(tc.md, 40)); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.md, diff)
			}
		})
	}
}

// Each construct is drawn in a style of its own, and a line's styles end on it.
func TestMarkdownStyles(t *testing.T) {
	md := newMarkdown(true)
	for _, tc := range []struct{ md, sgr string }{
		{"**b**", "\x1b[1m"},
		{"*i*", "\x1b[3m"},
		{"~~s~~", "\x1b[9m"},
		{"`c`", "48;5;236m"},
		{"```\nc\n```", "48;5;236m"},
		{"[l](u)", "\x1b[4;"},
		{"# h", "\x1b[1;4;"},
	} {
		lines := md.render(tc.md, 40)
		if !strings.Contains(lines[0], tc.sgr) {
			t.Errorf("%q: %q lacks %q", tc.md, lines[0], tc.sgr)
		}
		if !strings.HasSuffix(strings.TrimRight(lines[0], " "), "\x1b[m") {
			t.Errorf("%q: %q does not end its style", tc.md, lines[0])
		}
	}
	light := newMarkdown(false).render("`c`", 40)[0]
	if dark := md.render("`c`", 40)[0]; light == dark {
		t.Errorf("light and dark draw inline code alike: %q", light)
	}
}

func TestMarkdownWrapsAtTheWidth(t *testing.T) {
	text := "The change moves **startup work** to first use, so that `parley --version` pays only " +
		"for what it prints; see [the issue](https://example.com/a/rather/long/address/that/goes/on/and/on/and/on/issues/32).\n\n" +
		"- a list item long enough to be wrapped under its own first line, not under its bullet\n\n" +
		"> a quote long enough to be wrapped, each of its lines after the bar that marks it a quote\n\n" +
		"```\n" + strings.Repeat("x", 120) + "\n```\n\n" +
		"| name | what |\n|---|---|\n| wrap | a cell long enough that the table does not fit in fifty columns and must wrap |"
	for _, width := range []int{50, 80} {
		lines := newMarkdown(true).render(text, width)
		for _, l := range lines {
			if w := xansi.StringWidth(l); w > width {
				t.Errorf("width %d: a line of %d cells: %q", width, w, xansi.Strip(l))
			}
		}
		plain := strings.Join(strip(lines), "\n")
		for _, want := range []string{"startup work", "parley --version", "• a list item", "│ a quote", "wrap"} {
			if !strings.Contains(plain, want) {
				t.Errorf("width %d lacks %q:\n%s", width, want, plain)
			}
		}
		if strings.Count(plain, "x") < 120 {
			t.Errorf("width %d: the long code line lost characters:\n%s", width, plain)
		}
	}
	if diff := cmp.Diff([]string{"• a list item long enough to be", "  wrapped under its own first"}, renderPlain("- a list item long enough to be wrapped under its own first", 32)); diff != "" {
		t.Errorf("a list item's second line (-want +got):\n%s", diff)
	}
}

func TestMarkdownWideRunes(t *testing.T) {
	for _, width := range []int{10, 21, 50} {
		lines := renderPlain("日本語のテキストはとても長いのでここで折り返されるべきです 😀😀😀😀😀😀😀😀😀😀😀😀😀😀 👩‍👩‍👧‍👦 and text", width)
		var got strings.Builder
		for _, l := range lines {
			if w := xansi.StringWidth(l); w > width {
				t.Errorf("width %d: %q is %d cells", width, l, w)
			}
			got.WriteString(l)
		}
		if !strings.Contains(got.String(), "👩‍👩‍👧‍👦") {
			t.Errorf("width %d: the family emoji was cut apart: %q", width, lines)
		}
	}
	lines := renderPlain("| 名前 | 値 |\n|---|---|\n| 東京 | 😀 |", 40)
	if diff := cmp.Diff([]string{" 名前 │ 値", "──────┼────", " 東京 │ 😀"}, lines); diff != "" {
		t.Errorf("a table of wide characters (-want +got):\n%s", diff)
	}
}

// ourSGR is the one kind of sequence the renderer writes: SGR, of digits and semicolons.
var ourSGR = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// checkNoEscapes fails when a line holds a control character other than the renderer's
// own SGR sequences.
func checkNoEscapes(t *testing.T, input string, lines []string) {
	t.Helper()
	for _, l := range lines {
		if !utf8.ValidString(l) {
			t.Fatalf("input %q: the line %q is not UTF-8", input, l)
		}
		for _, r := range ourSGR.ReplaceAllString(l, "") {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				t.Fatalf("input %q: the line %q holds %U", input, l, r)
			}
		}
	}
}

func TestMarkdownHostileInput(t *testing.T) {
	for _, in := range []string{
		"hi \x1b]52;c;AAAA\x07 \x1b[2J there",
		"**\x1b[31mred\x1b[0m**",
		"`\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\`",
		"```\n\x1b[H\x9b2J\xc2\x9b31m\n```",
		"[x](\x1b[2Jhttp://a)",
		"&#27;[2J &#x9b;31m &#7; &#0;",
		"| \x1b[1m | \x1b]0;title\x07 |\n|---|---|\n| a | b |",
		"<span>\x1bP+q\x1b\\</span>",
		"- [ ] \x1b[5mblink",
	} {
		lines := newMarkdown(true).render(in, 30)
		checkNoEscapes(t, in, lines)
		if !strings.Contains(strings.Join(lines, ""), "␛") && strings.Contains(in, "\x1b") {
			t.Errorf("%q: its ESC is not shown as ␛: %q", in, lines)
		}
	}
}

func FuzzRenderMarkdown(f *testing.F) {
	f.Add("# T\n\n**b** *i* `c` [l](u)\n\n- a\n  - b\n\n1. x\n\n> q\n\n```\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |", 50)
	f.Add("\x1b]52;c;AAAA\x07 \x1b[2J \x9b31m &#27;[1m", 10)
	f.Add("日本語 😀👩‍👩‍👧‍👦 ~~s~~ <b>h</b>\n\n- [x] t", 20)
	f.Fuzz(func(t *testing.T, text string, width int) {
		width = 10 + abs(width)%150
		lines := newMarkdown(width%2 == 0).render(text, width)
		checkNoEscapes(t, text, lines)
		for _, l := range lines {
			if w := xansi.StringWidth(l); w > width {
				t.Fatalf("input %q at %d: a line of %d cells: %q", text, width, w, l)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
