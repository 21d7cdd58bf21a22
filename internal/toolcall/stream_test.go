package toolcall

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// stream feeds chunks to a StreamParser and returns what it found and everything it
// showed, in order.
func stream(chunks []string) (result, []string) {
	p := NewStreamParser(known)
	var shown []string
	for _, c := range chunks {
		shown = append(shown, p.Feed(c))
	}
	calls, problems, trailing := p.Finish()
	shown = append(shown, trailing)
	return summarize(calls, problems, strings.Join(shown, "")), shown
}

// checkStream checks that streaming text split at every byte, and byte by byte, gives
// what Parse gives on the whole text.
func checkStream(t *testing.T, text string) {
	t.Helper()
	want := parse(text)
	check := func(how string, chunks []string) {
		t.Helper()
		got, shown := stream(chunks)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("streamed %s: result differs from Parse (-parse +stream):\n%s", how, diff)
		}
		if utf8.ValidString(text) {
			for _, s := range shown {
				if !utf8.ValidString(s) {
					t.Fatalf("streamed %s: showed a piece of a character: %q", how, s)
				}
			}
		}
	}
	for i := 0; i <= len(text); i++ {
		check("split at "+itoa(i), []string{text[:i], text[i:]})
	}
	bytewise := make([]string, len(text))
	for i := 0; i < len(text); i++ {
		bytewise[i] = text[i : i+1]
	}
	check("byte by byte", bytewise)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestStreamHoldsBack checks what may be shown while a reply is still arriving.
func TestStreamHoldsBack(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		shown  []string // what each Feed returns
	}{
		{"a tag split across chunks",
			[]string{"Let me check. <tool_", "call>{\"name\": \"read_file\", ", "\"arguments\": {\"path\": \"a\"}}</tool_call>", " Next."},
			[]string{"Let me check. ", "", "", " Next."}},
		{"a Mistral tag split across chunks",
			[]string{"ok [TOOL_", "CALLS]read_file[ARGS]{\"path\": \"a\"}", "\nmore"},
			[]string{"ok ", "", "\nmore"}},
		{"a fence split across chunks",
			[]string{"see `", "``go\ncode\n``", "`\n"},
			[]string{"see ", "```go\ncode\n", ""}}, // a call may follow the closing fence
		{"the completion marker and its prefixes",
			[]string{"Done. [TAS", "K_COMP", "LETE] bye"},
			[]string{"Done. ", "", " bye"}},
		{"a bracket that is not a tag",
			[]string{"a [", "link](x) b"},
			[]string{"a ", "[link](x) b"}},
		{"a brace that is not a call",
			[]string{"if x {", " y } and {\"a\": 1}"},
			[]string{"if x ", "{ y } and {\"a\": 1}"}},
		{"JSON that may be a call is held until it closes",
			[]string{"x {\"name\": \"my-app\",", " \"version\": 1} y"},
			[]string{"x ", "{\"name\": \"my-app\", \"version\": 1} y"}},
		{"a character split across chunks",
			[]string{"caf\xc3", "\xa9 ok"},
			[]string{"caf", "é ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewStreamParser(known)
			var shown []string
			for _, c := range tt.chunks {
				shown = append(shown, p.Feed(c))
			}
			if diff := cmp.Diff(tt.shown, shown); diff != "" {
				t.Errorf("shown (-want +got):\n%s", diff)
			}
			checkStream(t, strings.Join(tt.chunks, ""))
		})
	}
}

func TestStreamCompletedAndCallStarted(t *testing.T) {
	p := NewStreamParser(known)
	p.Feed("Working. <tool_call>")
	if !p.CallStarted() {
		t.Error("CallStarted = false after an opening tag")
	}
	p.Feed(`{"name": "list_files", "arguments": {}}</tool_call> [TASK_COMPLETE`)
	if p.Completed() {
		t.Error("Completed = true before the marker is whole")
	}
	p.Feed("]")
	if !p.Completed() {
		t.Error("Completed = false after the marker")
	}
	calls, problems, trailing := p.Finish()
	if len(calls) != 1 || len(problems) != 0 || trailing != "" {
		t.Errorf("Finish = %+v, %+v, %q", calls, problems, trailing)
	}
	if got := p.Feed("late"); got != "" {
		t.Errorf("Feed after Finish = %q", got)
	}
}

// TestStreamLongCallIsScannedOnce checks that a large call arriving in small chunks costs
// time in proportion to its size, not its size times the number of chunks.
func TestStreamLongCallIsScannedOnce(t *testing.T) {
	content := strings.Repeat(`line with "quotes" and {braces}\n`, 20000) // ~700 KB
	text := `<tool_call>{"name": "write_file", "arguments": {"path": "big.txt", "content": "` + content + `"}}</tool_call>`
	p := NewStreamParser(known)
	for i := 0; i < len(text); i += 16 {
		p.Feed(text[i:min(i+16, len(text))])
	}
	calls, problems, _ := p.Finish()
	if len(calls) != 1 || len(problems) != 0 {
		t.Fatalf("calls = %d, problems = %+v", len(calls), problems)
	}
}

// markupPieces are the fragments TestStreamMatchesParseOnMutations splices into replies.
var markupPieces = []string{
	"<tool_call>", "</tool_call>", "{", "}", "[", "]", `"`, `\`, "```", "```json\n", "json",
	"[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "name", ":", ",", "\n", " ", "\t", "'", "`", "<",
	"read_file", `"name"`, `"arguments"`, `{"name": "read_file", "arguments": {`, `"}}`,
	`{"tool": "list_files"`, "[{", `\n`, `\"`, "tool_calls", `"function"`, `"type": "function"`,
	"null", "true", "1", "<function=", "<parameter=path>", "</parameter>", "</function>",
	"<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<|python_tag|>", "<|eom_id|>",
	"<|tool_call>", "<tool_call|>", "<|tool_call|>", `<|"|>`, "call:", "<tool_calls>",
	"[TASK_COMPLETE]", "[TASK", "[TOOL_", "<tool_", "``", "“", "”", "é", "\xc3", "<think>", "</think>",
}

// TestStreamMatchesParseOnMutations splices markup into the test replies at random and
// checks that streaming them in random chunks gives what Parse gives. It is the fuzz
// test's property, run on inputs built from the fragments that matter.
func TestStreamMatchesParseOnMutations(t *testing.T) {
	var seeds []string
	for _, cases := range [][]parseCase{malformations, shapes, stringCases} {
		for _, c := range cases {
			seeds = append(seeds, c.text)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		b := []byte(seeds[r.IntN(len(seeds))])
		for k := r.IntN(20); k > 0; k-- {
			pos := r.IntN(len(b) + 1)
			if r.IntN(3) == 0 {
				b = append(b[:pos:pos], b[min(len(b), pos+r.IntN(10)):]...)
			} else {
				b = append(b[:pos:pos], append([]byte(markupPieces[r.IntN(len(markupPieces))]), b[pos:]...)...)
			}
		}
		text := string(b)
		var chunks []string
		for rest := text; len(rest) > 0; {
			k := min(len(rest), r.IntN(8)+1)
			chunks = append(chunks, rest[:k])
			rest = rest[k:]
		}
		want := parse(text)
		got, _ := stream(chunks)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("streamed in %q: result differs from Parse (-parse +stream):\n%s", chunks, diff)
		}
	}
}

// degenerateReplies are replies that repeat a fragment until they are n bytes long, as
// small models stuck in a loop do, behind prefixes that leave the parsers mid-call.
func degenerateReplies(n int) []string {
	var out []string
	for _, piece := range []string{
		`[{"name": "x", `, `{"name": "read_file", "arguments": {"path": "a`, "<tool_call>", "<tool_call>{",
		"[TOOL_CALLS]", "[TOOL_CALLS]a", "```json\n{", "```json\n{\"a\":1}\n", "[", "{", "<", "`",
		"<tool_call>x ", `{"name": "x", "arguments": {"c": "`, "</p>", `\`, "<function=x>", "<parameter=y>",
		"<arg_key>", `"a`, `a", "`, "{\n", "[TASK",
	} {
		for _, prefix := range []string{"", "<tool_call>", "<tool_call>{\"name\": \"x\", \"arguments\": {\"c\": \"",
			"<tool_call><function=x>", "<tool_call>x"} {
			out = append(out, prefix+strings.Repeat(piece, n/len(piece)))
		}
	}
	return out
}

// parseDegenerate runs Parse and a StreamParser fed in 7-byte chunks over text.
func parseDegenerate(text string) {
	Parse(text, known)
	p := NewStreamParser(known)
	for i := 0; i < len(text); i += 7 {
		p.Feed(text[i:min(i+7, len(text))])
	}
	p.Finish()
}

// TestDegenerateReplies: such replies parse without a panic and to completion. That they
// take time in proportion to their length is BenchmarkDegenerateReplies' job (compare its
// sizes with benchstat: 4x the bytes should cost about 4x the time, not 16x).
func TestDegenerateReplies(t *testing.T) {
	for _, text := range degenerateReplies(16 << 10) {
		parseDegenerate(text)
	}
}
