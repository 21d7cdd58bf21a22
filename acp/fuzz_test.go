package acp

import (
	"bytes"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// FuzzSessionNotificationRoundTrip checks that whatever decodes also encodes, and that
// encoding is a fixed point: decoding the encoding and encoding again gives the same bytes.
func FuzzSessionNotificationRoundTrip(f *testing.F) {
	for _, u := range sessionUpdates {
		f.Add([]byte(u.json))
	}
	f.Add([]byte(`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}},"_meta":"bad","SESSIONID":1}`))
	f.Add([]byte(`{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","locations":"x","content":[{"type":"diff","path":1}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var n SessionNotification
		if err := json.Unmarshal(data, &n); err != nil {
			return
		}
		enc, err := json.Marshal(&n)
		if err != nil {
			t.Fatalf("decoded %s but cannot encode it: %v", data, err)
		}
		var again SessionNotification
		if err := json.Unmarshal(enc, &again); err != nil {
			t.Fatalf("cannot decode our own encoding %s (of %s): %v", enc, data, err)
		}
		enc2, err := json.Marshal(&again)
		if err != nil {
			t.Fatalf("cannot re-encode %s: %v", enc, err)
		}
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not a fixed point\ninput:  %s\nfirst:  %s\nsecond: %s", data, enc, enc2)
		}
		if again.Update.Kind() != n.Update.Kind() {
			t.Fatalf("kind changed from %q to %q", n.Update.Kind(), again.Update.Kind())
		}
	})
}
