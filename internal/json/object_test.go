package json

import (
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	Deep  string `json:"deep"`
	Extra Extra  `json:"-"`
}

type sample struct {
	Name     string          `json:"name"`
	Count    int             `json:"count,omitempty"`
	Ratio    float64         `json:"ratio,omitempty"`
	Flag     bool            `json:"flag,omitempty"`
	Big      uint64          `json:"big,omitempty"`
	Ptr      *string         `json:"ptr,omitempty"`
	List     []string        `json:"list,omitzero"`
	Raw      RawMessage      `json:"raw,omitzero"`
	Inner    *inner          `json:"inner,omitempty"`
	Required int             `json:"required"`
	Any      any             `json:"any,omitempty"`
	Skipped  string          `json:"-"`
	Map      map[string]bool `json:"map,omitzero"`
	Embedded
}

type Embedded struct {
	Promoted string `json:"promoted,omitempty"`
}

func TestUnmarshalObject(t *testing.T) {
	const in = `{"name":"n","count":-3,"ratio":1.5,"flag":true,"big":18446744073709551615,"ptr":"p",
		"list":["a"],"raw":{"x": [1, 2]},"inner":{"deep":"d"},"required":7,"any":{"k":1},
		"map":{"m":true},"promoted":"e","unknown":[true],"-":1,"Skipped":"s"}`
	var s sample
	extra, err := UnmarshalObject([]byte(in), &s)
	if err != nil {
		t.Fatal(err)
	}
	p := "p"
	want := sample{
		Name: "n", Count: -3, Ratio: 1.5, Flag: true, Big: 18446744073709551615, Ptr: &p,
		List: []string{"a"}, Raw: RawMessage(`{"x": [1, 2]}`), Inner: &inner{Deep: "d"}, Required: 7,
		Any: map[string]any{"k": float64(1)}, Map: map[string]bool{"m": true},
		Embedded: Embedded{Promoted: "e"},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", s, want)
	}
	wantExtra := Extra{"unknown": RawMessage(`[true]`), "-": RawMessage(`1`), "Skipped": RawMessage(`"s"`)}
	if !reflect.DeepEqual(extra, wantExtra) {
		t.Errorf("extra = %s, want %s", extra, wantExtra)
	}
}

func TestUnmarshalObjectMatchesNamesExactly(t *testing.T) {
	var s sample
	extra, err := UnmarshalObject([]byte(`{"name":"a","NAME":"b","Name":"c"}`), &s)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "a" || len(extra) != 2 || string(extra["NAME"]) != `"b"` || string(extra["Name"]) != `"c"` {
		t.Errorf("name %q, extra %s: other spellings must stay unknown", s.Name, extra)
	}
}

func TestUnmarshalObjectEscapedNamesAndValues(t *testing.T) {
	var s sample
	extra, err := UnmarshalObject([]byte(`{"n\u0061me":"a\nb\u00e9","ünknown":1}`), &s)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "a\nbé" || string(extra["ünknown"]) != "1" {
		t.Errorf("name %q, extra %s", s.Name, extra)
	}
}

func TestUnmarshalObjectWrongTypes(t *testing.T) {
	// An optional member of the wrong type leaves its field zero and stays in Extra, so
	// it is written back as it came.
	var s sample
	extra, err := UnmarshalObject([]byte(`{"name":"n","count":"three","ptr":5,"list":{"a":1},"inner":[1]}`), &s)
	if err != nil {
		t.Fatal(err)
	}
	if s.Count != 0 || s.Ptr != nil || s.List != nil || s.Inner != nil {
		t.Errorf("fields not reset: %+v", s)
	}
	for _, name := range []string{"count", "ptr", "list", "inner"} {
		if extra[name] == nil {
			t.Errorf("%s not kept in Extra: %s", name, extra)
		}
	}
	out, err := MarshalObject(s, extra)
	if err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{`"count":"three"`, `"ptr":5`, `"list":{"a":1}`, `"inner":[1]`} {
		if !strings.Contains(string(out), member) {
			t.Errorf("re-encoded %s lacks %s", out, member)
		}
	}

	// A required member of the wrong type is an error that names it.
	_, err = UnmarshalObject([]byte(`{"required":"seven"}`), &s)
	if err == nil || !strings.Contains(err.Error(), `"required"`) {
		t.Errorf("error = %v, want one about member \"required\"", err)
	}
}

func TestUnmarshalObjectNullAndMalformed(t *testing.T) {
	var s sample
	if extra, err := UnmarshalObject([]byte(` null `), &s); err != nil || extra != nil {
		t.Errorf("null: extra %v, err %v", extra, err)
	}
	for _, in := range []string{
		``, `[]`, `"x"`, `{`, `{"name":}`, `{"name":"a"} x`, `{"name":"a",}`,
		`{"unknown":tru}`, `{"unknown":{]}`, `{"raw":[1,}`, `{"count":1e}`, `{"name":"a` + "\x01" + `"}`,
		`{"a` + "\x01" + `":1}`,
	} {
		if _, err := UnmarshalObject([]byte(in), &s); err == nil {
			t.Errorf("%q decoded without error", in)
		}
	}
	if _, err := UnmarshalObject([]byte(`{}`), s); err == nil {
		t.Error("a non-pointer decoded without error")
	}
}

func TestUnmarshalVariantSkipsTheTag(t *testing.T) {
	var s sample
	extra, err := UnmarshalVariant([]byte(`{"type":"x","name":"n","other":1}`), &s, "type")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "n" || len(extra) != 1 || extra["other"] == nil {
		t.Errorf("name %q, extra %s", s.Name, extra)
	}
}

func TestMarshalVariant(t *testing.T) {
	for _, tc := range []struct {
		v     any
		extra Extra
		want  string
	}{
		{struct{}{}, nil, `{"kind":"k"}`},
		{struct {
			A string `json:"a"`
		}{"<&>"}, Extra{"z": RawMessage(` [ 1 ] `), "kind": RawMessage(`"stale"`)}, `{"kind":"k","a":"<&>","z":[1]}`},
	} {
		got, err := MarshalVariant("kind", "k", tc.v, tc.extra)
		if err != nil || string(got) != tc.want {
			t.Errorf("MarshalVariant(%+v) = %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
}

func TestMarshalKeepsHTMLCharacters(t *testing.T) {
	got, err := Marshal(map[string]string{"code": "if a < b && c > d {}"})
	if err != nil || string(got) != `{"code":"if a < b && c > d {}"}` {
		t.Errorf("Marshal = %s, %v", got, err)
	}
}

func TestMember(t *testing.T) {
	data := []byte(`{"a":1, "b" : {"c":2}, "\u0064":3}`)
	for name, want := range map[string]string{"a": "1", "b": `{"c":2}`, "d": "3", "c": ""} {
		if got := string(Member(data, name)); got != want {
			t.Errorf("Member(%q) = %q, want %q", name, got, want)
		}
	}
}

func BenchmarkUnmarshalObject(b *testing.B) {
	data := []byte(`{"name":"a fairly ordinary string value","count":42,"flag":true,"list":["x","y"]}`)
	b.ReportAllocs()
	for b.Loop() {
		var s sample
		if _, err := UnmarshalObject(data, &s); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWithoutMember(t *testing.T) {
	var v any
	if err := Unmarshal([]byte(`{"$mid":1,"a":[{"$mid":2,"b":"$mid"}],"c":{"d":{"$mid":3}}}`), &v); err != nil {
		t.Fatal(err)
	}
	got, err := Marshal(WithoutMember(v, "$mid"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":[{"b":"$mid"}],"c":{"d":{}}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
