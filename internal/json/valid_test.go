package json

import (
	stdjson "encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// point has its own UnmarshalJSON, as every protocol type does, so Unmarshal and
// UnmarshalValid both call it directly.
type point struct {
	X     int `json:"x"`
	Extra Extra
}

func (p *point) UnmarshalJSON(b []byte) error {
	type plain point
	extra, err := UnmarshalObject(b, (*plain)(p))
	p.Extra = extra
	return err
}

func TestUnmarshalValidDecodesAsUnmarshal(t *testing.T) {
	data := []byte(" {\"x\":3,\"y\":[1,{\"z\":null}]}\n")
	var a, b point
	if err := Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if err := UnmarshalValid(data, &b); err != nil {
		t.Fatal(err)
	}
	if a.X != 3 || b.X != 3 || string(a.Extra["y"]) != string(b.Extra["y"]) || string(b.Extra["y"]) != `[1,{"z":null}]` {
		t.Fatalf("Unmarshal gave %+v, UnmarshalValid %+v", a, b)
	}
}

// validCases are inputs on which Valid must agree with encoding/json.Valid.
var validCases = []string{
	``, ` `, `null`, `nul`, `nullx`, `true`, `false`, `tru`, ` 1 `, `-`, `-0`, `01`, `1.`, `1.5`,
	`1e`, `1e+`, `1E-7`, `-12.5e10`, `+1`, `.5`, `"`, `""`, `"a`, `"\"`, `"\\"`, `"\u00e9"`,
	`"\u00g9"`, `"\u00e"`, `"\x"`, `"\/"`, "\"\x01\"", "\"\x7f\xff\"", `[]`, `[`, `[1,]`, `[,1]`,
	`[1 2]`, `[1,[2,[3]]]`, `{}`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{1:2}`,
	`{"a":1}x`, `{"a":[1,{"b":null}],"c":"d"}`, ` {"a" : 1 , "b" : { } } `, `{"a":1]`, `[1}`,
	`{"a":{"b":[]}}`, `[[],{}]`, "\t\r\n[\n]\n", `1 2`, `{"a":1}{}`,
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	cases := validCases
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		cases = append(cases,
			strings.Repeat("[", depth)+strings.Repeat("]", depth),
			strings.Repeat(`{"a":`, depth-1)+"{}"+strings.Repeat("}", depth-1),
			strings.Repeat("[", depth)+"1"+strings.Repeat("]", depth))
	}
	for _, c := range cases {
		if got, want := Valid([]byte(c)), stdjson.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%.60q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

func TestValidMembers(t *testing.T) {
	data := []byte(` { "a" : 1 , "b":{"c":[2, 3]},"d":"x" } `)
	var got []string
	object, ok := ValidMembers(data, func(name, value []byte) { got = append(got, string(name)+"="+string(value)) })
	want := []string{`"a"=1`, `"b"={"c":[2, 3]}`, `"d"="x"`}
	if !object || !ok || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("ValidMembers = %v, %v, members %q; want true, true, %q", object, ok, got, want)
	}
	if object, ok := ValidMembers([]byte(`[{"a":1}]`), func(name, value []byte) { t.Errorf("member %s of an array", name) }); object || !ok {
		t.Fatalf("an array: object %v, ok %v", object, ok)
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var members [][]byte
		object, ok := ValidMembers(data, func(name, value []byte) { members = append(members, name, value) })
		if want := stdjson.Valid(data); ok != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, ok, want)
		}
		if !ok || !object {
			return
		}
		var m map[string]stdjson.RawMessage
		if err := stdjson.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(members); i += 2 {
			var name string
			if err := stdjson.Unmarshal(members[i], &name); err != nil {
				t.Fatalf("member name %q: %v", members[i], err)
			}
			if !stdjson.Valid(members[i+1]) {
				t.Fatalf("member %q: value %q not valid", name, members[i+1])
			}
		}
	})
}

func BenchmarkValid(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_0123456789","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk 12345 "}}}}`)
	b.Run("parley", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			Valid(line)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			stdjson.Valid(line)
		}
	})
}

func TestPlainStringAndSkipString(t *testing.T) {
	naive := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 || c == '\\' || c == '"' {
				return false
			}
		}
		return utf8.Valid(b)
	}
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghi", "abcdefg\"", "abcdefgh\\", "abc\x1fdefgh",
		"0123456789abcdef\x7f", "é tout à fait", "abcdefgh\xff", "\x20\x20\x20\x20\x20\x20\x20\x20", "~~~~~~~~!"} {
		if got, want := plainString([]byte(s)), naive([]byte(s)); got != want {
			t.Errorf("plainString(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]int{`"abc"x`: 5, `"a\"b"`: 6, `"a\\"b`: 5, `"a\\\"b"`: 8, `"\\\\"`: 6, `"abc`: 0, `"a\"`: 0} {
		end, err := skipString([]byte(s), 0)
		if end != want || (err != nil) != (want == 0) {
			t.Errorf("skipString(%q) = %d, %v; want %d", s, end, err, want)
		}
	}
}
