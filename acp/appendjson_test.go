package acp

import (
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// The generated encoders write member by member what encoding/json wrote for the whole
// struct (json.MarshalObject, the encoder they replaced and still fall back to): these
// compare the two on values that exercise each rule (omitempty, omitzero, nil pointers,
// escaping, extras that a field or the discriminator overrides).
func TestMemberEncoderMatchesEncodingJSON(t *testing.T) {
	prio := 0.5
	odd := "a<b>&c \"q\" \\ \u2028 \x01 \xff é"
	type plainText TextContent
	type plainAnnotations Annotations
	type plainChunk ContentChunk
	type plainToolCall ToolCall
	texts := []TextContent{
		{},
		{Text: odd},
		{Text: "x", Annotations: &Annotations{}},
		{Text: "x", Annotations: &Annotations{Audience: []Role{}, Priority: &prio, LastModified: "now"}, Meta: Meta{"k": json.RawMessage(`[1, 2]`)}},
		{Text: "x", Meta: Meta{}, Extra: Extra{"text": json.RawMessage(`"stale"`), "new": json.RawMessage(`{ "a" : 1 }`), "annotations": json.RawMessage(`{}`)}},
	}
	for _, x := range texts {
		same(t, x, x.MarshalJSON, func() ([]byte, error) { return json.MarshalObject(plainText(x), json.Extra(x.Extra)) })
		same(t, x, func() ([]byte, error) { return x.encodeMembers("type", "text") }, func() ([]byte, error) {
			return json.MarshalVariant("type", "text", plainText(x), json.Extra(x.Extra))
		})
		if x.Annotations != nil {
			a := *x.Annotations
			same(t, a, a.MarshalJSON, func() ([]byte, error) { return json.MarshalObject(plainAnnotations(a), json.Extra(a.Extra)) })
		}
	}
	chunks := []ContentChunk{
		{Content: TextBlock("hi")},
		{Content: TextBlock(odd), MessageID: "m1", Extra: Extra{"sessionUpdate": json.RawMessage(`"stale"`), "messageId": json.RawMessage(`"old"`)}},
	}
	for _, x := range chunks {
		same(t, x, func() ([]byte, error) { return x.encodeMembers("sessionUpdate", "agent_message_chunk") }, func() ([]byte, error) {
			return json.MarshalVariant("sessionUpdate", "agent_message_chunk", plainChunk(x), json.Extra(x.Extra))
		})
	}
	calls := []ToolCall{
		{},
		{ToolCallID: "c", Title: odd, Kind: ToolKindRead, Content: []ToolCallContent{}, RawInput: json.RawMessage(`{"a":[1,2]}`)},
	}
	for _, x := range calls {
		same(t, x, x.MarshalJSON, func() ([]byte, error) { return json.MarshalObject(plainToolCall(x), json.Extra(x.Extra)) })
	}
}

// same fails unless got (the generated encoder) gives what want (encoding/json) gives.
func same(t *testing.T, x any, got, want func() ([]byte, error)) {
	t.Helper()
	g, gerr := got()
	w, werr := want()
	if string(g) != string(w) || (gerr == nil) != (werr == nil) {
		t.Errorf("%T %+v:\n got  %s (%v)\n want %s (%v)", x, x, g, gerr, w, werr)
	}
}
