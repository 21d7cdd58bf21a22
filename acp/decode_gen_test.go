package acp

import (
	"reflect"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// The generated decoders (json.DecodeMembers, a case for each field) must decode as the
// reflective json.UnmarshalObject they replaced: the same fields, the same Extra, the
// same failures, on ordinary input and on the odd kinds (a value that does not fit an
// optional field, null, a member given twice, an escaped name, an unknown member).
func TestGeneratedDecodersDecodeAsUnmarshalObject(t *testing.T) {
	toolCalls := []string{
		`{"toolCallId":"t1","title":"Read","kind":"read","status":"pending","content":[{"type":"content","content":{"type":"text","text":"x"}}],"locations":[{"path":"/a","line":3}],"rawInput":{"a":[1, 2]},"_meta":{"k":"v"}}`,
		`{"toolCallId":"t1","title":"Read","kind":7,"status":null,"rawInput":null,"z":{"y":1}}`,
		`{"toolCallId":"t1","title":5}`,
		`{"toolCallId":"t1","title":"a","title":"b","\u006bind":"edit","locations":"no"}`,
		`{"toolCallId":"t1","title":"é\n","content":[{"type":"diff","path":"/p","newText":"n"}],"locations":[{"path":5}]}`,
		`{"toolCallId":null,"title":"x"}`, `null`, `{}`, `{"toolCallId":"t1",}`, `{"toolCallId":"t1"} x`,
	}
	texts := []string{
		`{"text":"hi","annotations":{"audience":["user"],"priority":0.5}}`,
		`{"text":"hi","annotations":"bad","_meta":[1]}`, `{"text":"hi","annotations":null}`,
		`{"text":"a\"b","extra":{"deep":[true,false,null]}}`, `{"text":1}`, `{"text":"x","annotations":{"audience":7}}`,
	}
	for _, in := range toolCalls {
		type plain ToolCall
		compareDecoders[ToolCall, plain](t, in)
	}
	for _, in := range texts {
		type plain TextContent
		compareDecoders[TextContent, plain](t, in)
	}
}

// compareDecoders decodes in with T's generated UnmarshalJSON and with UnmarshalObject
// into P, T's plain alias.
func compareDecoders[T any, P any](t *testing.T, in string) {
	t.Helper()
	var got T
	gotErr := any(&got).(json.Unmarshaler).UnmarshalJSON([]byte(in))
	var want P
	extra, wantErr := json.UnmarshalObject([]byte(in), &want)
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%s: generated decoder: %v, UnmarshalObject: %v", in, gotErr, wantErr)
	}
	if gotErr != nil {
		if gotErr.Error() != wantErr.Error() {
			t.Errorf("%s: generated decoder fails with %q, UnmarshalObject with %q", in, gotErr, wantErr)
		}
		return
	}
	reflect.ValueOf(&want).Elem().FieldByName("Extra").Set(reflect.ValueOf(Extra(extra)))
	if !reflect.DeepEqual(any(got), any(*(*T)(reflect.ValueOf(&want).UnsafePointer()))) {
		t.Errorf("%s:\ngenerated decoder %#v\nUnmarshalObject   %#v", in, got, want)
	}
}
