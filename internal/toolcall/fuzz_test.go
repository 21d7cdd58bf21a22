package toolcall

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/json"
)

// FuzzParse checks that Parse never panics, that every call's arguments are a JSON
// object, and that streaming the text in chunks (cut where cuts says) finds the same
// calls and problems and shows exactly the prose.
func FuzzParse(f *testing.F) {
	for _, cases := range [][]parseCase{malformations, shapes, stringCases} {
		for _, c := range cases {
			f.Add(c.text, []byte{3, 1, 7, 2})
		}
	}
	f.Add("<tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"\\", []byte{1})
	f.Add("```json\n[{\"name\": \"list_files\"}, {\"tool\": \"x\"}]\n```", []byte{5, 9})
	for _, piece := range markupPieces {
		f.Add("a "+piece+` {"name": "read_file", "arguments": {"path": "x"}} `+piece+" b", []byte{2, 5})
	}
	f.Fuzz(func(t *testing.T, text string, cuts []byte) {
		if len(text) > 4<<10 {
			return // long inputs are TestDegenerateRepliesStayFast's; here they slow minimizing
		}
		calls, problems, prose := Parse(text, known)
		for _, c := range calls {
			args := bytes.TrimSpace(c.Arguments)
			if len(args) == 0 || args[0] != '{' || !json.Valid(args) || !utf8.Valid(args) {
				t.Fatalf("call %q has arguments %q, not a JSON object", c.Name, c.Arguments)
			}
		}
		want := summarize(calls, problems, prose)

		var chunks []string
		rest := text
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(n, int(cuts[i%len(cuts)])%32+1)
			}
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		got, shown := stream(chunks)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("streamed in %q: result differs from Parse (-parse +stream):\n%s", chunks, diff)
		}
		if utf8.ValidString(text) {
			for _, s := range shown {
				if !utf8.ValidString(s) {
					t.Fatalf("streamed in %q: showed a piece of a character: %q", chunks, s)
				}
			}
		}
	})
}
