package conversation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

func formOf(t *testing.T, schema string) *Form {
	t.Helper()
	var s acp.ElicitationSchema
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	f, err := newForm(&s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func field(t *testing.T, f *Form, name string) Field {
	t.Helper()
	for _, x := range f.Fields {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("no field %s", name)
	return Field{}
}

func TestFormOrderAndKinds(t *testing.T) {
	f := formOf(t, `{"properties":{
		"z":{"type":"string"},"b":{"type":"boolean"},"a":{"type":"integer"},
		"pick":{"type":"string","oneOf":[{"const":"x","title":"Ex"}]},
		"many":{"type":"array","items":{"anyOf":[{"const":"p","title":"Pe"}]}},
		"odd":{"type":"_slider"}},
		"required":["z","a"]}`)
	var got []string
	for _, x := range f.Fields {
		got = append(got, x.Name+":"+string(x.Kind))
	}
	// In the schema's order, as the agent wrote it.
	want := []string{"z:text", "b:boolean", "a:integer", "pick:choice", "many:multi_choice", "odd:unknown"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	// A schema made in Go without an order: the required fields as listed, then by name.
	made, err := newForm(&acp.ElicitationSchema{
		Properties: map[string]acp.ElicitationPropertySchema{"c": {Boolean: &acp.BooleanPropertySchema{}}, "b": {Boolean: &acp.BooleanPropertySchema{}}, "a": {Boolean: &acp.BooleanPropertySchema{}}},
		Required:   []string{"c"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, x := range made.Fields {
		got = append(got, x.Name)
	}
	if diff := cmp.Diff([]string{"c", "a", "b"}, got); diff != "" {
		t.Errorf("fields of an unordered schema (-want +got):\n%s", diff)
	}
	if !f.Answerable {
		t.Error("an optional field of an unknown kind makes the form unanswerable")
	}
	if formOf(t, `{"properties":{"odd":{"type":"_slider"}},"required":["odd"]}`).Answerable {
		t.Error("a required field of an unknown kind leaves the form answerable")
	}
}

func TestFieldParse(t *testing.T) {
	f := formOf(t, `{"properties":{
		"name":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-z]+$"},
		"mail":{"type":"string","format":"email"},
		"day":{"type":"string","format":"date"},
		"when":{"type":"string","format":"date-time"},
		"site":{"type":"string","format":"uri"},
		"n":{"type":"number","minimum":0.5,"maximum":2},
		"i":{"type":"integer","minimum":1,"maximum":3,"default":2},
		"ok":{"type":"boolean"},
		"one":{"type":"string","enum":["red","green"]},
		"tier":{"type":"string","oneOf":[{"const":"t1","title":"Basic"},{"const":"t2","title":"Pro"}]},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2}},
		"required":["name","tags"]}`)
	for _, tc := range []struct {
		field, in string
		want      any
		err       string
	}{
		{"name", "ab", "ab", ""},
		{"name", "a", nil, "at least 2"},
		{"name", "abcde", nil, "at most 4"},
		{"name", "éé", nil, "must match"},
		{"name", "", nil, "required"},
		{"mail", "me@example.com", "me@example.com", ""},
		{"mail", "Me <me@example.com>", nil, "email"},
		{"mail", "", nil, ""}, // optional, left empty
		{"day", "2026-02-30", nil, "date"},
		{"day", "2026-02-28", "2026-02-28", ""},
		{"when", "2026-02-28T10:00:00Z", "2026-02-28T10:00:00Z", ""},
		{"when", "tomorrow", nil, "date and time"},
		{"site", "https://example.com", "https://example.com", ""},
		{"site", "example", nil, "URI"},
		{"n", "1.5", 1.5, ""},
		{"n", "3", nil, "at most 2"},
		{"n", "NaN", nil, "number"},
		{"i", "", int64(2), ""}, // the default
		{"i", "2.5", nil, "whole number"},
		{"i", "0", nil, "at least 1"},
		{"ok", "yes", true, ""},
		{"ok", "off", false, ""},
		{"ok", "maybe", nil, "yes or no"},
		{"one", "2", "green", ""},
		{"one", "Red", "red", ""},
		{"one", "blue", nil, "choose one of"},
		{"tier", "Pro", "t2", ""},
		{"tier", "t1", "t1", ""},
		{"tags", "a, c, a", []string{"a", "c"}, ""},
		{"tags", "1,2,3", nil, "at most 2"},
		{"tags", "d", nil, "not a choice"},
	} {
		got, err := field(t, f, tc.field).Parse(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s %q: error %v, want one with %q", tc.field, tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s %q: %v", tc.field, tc.in, err)
		case tc.err == "" && !cmp.Equal(got, tc.want):
			t.Errorf("%s %q = %#v, want %#v", tc.field, tc.in, got, tc.want)
		}
		if err != nil && tc.in != "" && strings.Contains(err.Error(), tc.in) && len(tc.in) > 1 {
			t.Errorf("%s: the error quotes what was typed: %v", tc.field, err)
		}
	}
}

// TestFormValidate checks a whole answer as a view without typing (a web form) gives
// it, JSON-decoded values included.
func TestFormValidate(t *testing.T) {
	f := formOf(t, `{"properties":{"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},"s":{"type":"string"}},"required":["n"]}`)
	got, err := f.Validate(map[string]any{"n": float64(3), "tags": []any{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(got["n"]) != "3" || string(got["tags"]) != `["b"]` || got["s"] != nil {
		t.Errorf("got %s", got)
	}
	for _, bad := range []map[string]any{
		{},                           // n is required
		{"n": 1.5},                   // not whole
		{"n": "3"},                   // not a number
		{"n": 1, "tags": []any{"z"}}, // not a choice
		{"n": 1, "extra": "x"},       // no such field
	} {
		if _, err := f.Validate(bad); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}

func TestSecretFields(t *testing.T) {
	f := formOf(t, `{"properties":{
		"password":{"type":"string"},
		"k":{"type":"string","title":"API key"},
		"t":{"type":"string","_meta":{"sensitive":true}},
		"w":{"type":"string","writeOnly":true},
		"f":{"type":"string","format":"password"},
		"name":{"type":"string","title":"Your name"}}}`)
	for _, x := range f.Fields {
		if want := x.Name != "name"; x.Secret != want {
			t.Errorf("%s: secret %v, want %v", x.Name, x.Secret, want)
		}
	}
}

func TestBadPatternIsRefused(t *testing.T) {
	var s acp.ElicitationSchema
	json.Unmarshal([]byte(`{"properties":{"x":{"type":"string","pattern":"(?<=a)b"}}}`), &s)
	if _, err := newForm(&s); err == nil {
		t.Error("a pattern parley cannot check was accepted")
	}
}

func TestURLElicitation(t *testing.T) {
	for _, tc := range []struct {
		url      string
		host     string
		punycode bool
	}{
		{"https://example.com/a", "example.com", false},
		{"https://xn--pple-43d.com/", "xn--pple-43d.com", true},
		{"https://аpple.com/", "аpple.com", true},
	} {
		req := &acp.CreateElicitationRequest{Message: "m", Mode: acp.ElicitationModeURL}
		req.URL, req.ElicitationID = tc.url, "e1"
		e, err := newElicitation("agent", req)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if u := e.URL; u.Host != tc.host || u.Punycode != tc.punycode {
			t.Errorf("%s: %+v", tc.url, *u)
		}
	}
}

// Only http and https pages on a named host, without credentials or characters that
// hide where they lead, may be opened for an agent.
func TestCheckPageURL(t *testing.T) {
	for _, ok := range []string{
		"https://example.com/a?b=c#d", "http://127.0.0.1:8080/", "HTTPS://Example.com/", "https://аpple.com/",
		"https://de.wikipedia.org/wiki/Straße",
	} {
		if err := CheckPageURL(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, tc := range []struct{ url, why string }{
		{"javascript:alert(1)", "not javascript:"},
		{"JavaScript:alert(1)", "not javascript:"},
		{"data:text/html,<script>alert(1)</script>", "not data:"},
		{"file:///etc/passwd", "not file:"},
		{"vscode://vscode.git/clone?url=x", "not vscode:"},
		{"blob:https://example.com/1234", "not blob:"},
		{"ftp://example.com/", "not ftp:"},
		{"ms-settings:", "not ms-settings:"},
		{"//example.com/", "no scheme"},
		{"example.com", "no scheme"},
		{" https://example.com/", "space"},
		{"https:example.com", "no host"},
		{"https:///path", "no host"},
		{"https://:443/", "no host"},
		{"https://bank.example@evil.example/", "user name"},
		{"https://user:pass@example.com/", "user name"},
		{"https://example.com/\u202egnp.exe", "control, invisible"},
		{"https://exa\u200bmple.com/", "control, invisible"},
		{"https://example.com/\u0085", "control, invisible"},
		{"https://example.com/a b", "space"},
		{"https://example.com/\n", "control"},
		{"https://example.com/\xff", "not valid text"},
	} {
		err := CheckPageURL(tc.url)
		if err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%q: %v, want a refusal saying %q", tc.url, err, tc.why)
		}
	}
}
