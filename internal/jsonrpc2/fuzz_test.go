package jsonrpc2

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// FuzzDecodeMessage: any line either decodes or is reported as a decode error, never a
// panic; what decodes survives an encode/decode round trip.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk"}}}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":null}`,
		`[]`, `{`, `{"a":"\u00e9\"}"}`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := decodeMessage(line)
		if err != nil {
			if _, ok := errors.AsType[*decodeError](err); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		var out []byte
		if m.method != "" {
			out = appendRequest(nil, m.id, m.method, compactOrNil(t, m.params))
		} else {
			out = appendResponse(nil, m.id, compactOrNil(t, m.result), m.err)
		}
		if bytes.Count(out, []byte("\n")) != 1 {
			t.Fatalf("encoded message is not one line: %q", out)
		}
		m2, err := decodeMessage(out[:len(out)-1])
		if err != nil {
			t.Fatalf("re-decoding %q: %v", out, err)
		}
		if m2.id != m.id || m2.method != m.method || (m.err == nil) != (m2.err == nil) {
			t.Fatalf("round trip changed the message: %+v -> %+v", m, m2)
		}
	})
}

func compactOrNil(t *testing.T, raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	c, err := json.Compact(raw)
	if err != nil {
		t.Fatalf("compacting a value of a valid message: %v", err)
	}
	return c
}

// FuzzLineReader: the framer returns exactly the non-blank lines of its input (without
// \r\n), and reports lines over the limit instead of returning them.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n  \nccc"), 4)
	f.Add([]byte("xxxxxxxx\nshort\n"), 3)
	f.Add([]byte("four\r\nfive5\r\nfour\r"), 4)
	f.Fuzz(func(t *testing.T, input []byte, limit int) {
		if limit <= 0 || limit > 1<<20 {
			limit = 16
		}
		// Expected outcome per raw line: its text, or nil for "reported too long".
		var want [][]byte
		raws := bytes.Split(input, []byte("\n"))
		for i, raw := range raws {
			size := len(raw) // raw has no newline: Split removed it; nor the \r of \r\n
			if i < len(raws)-1 && bytes.HasSuffix(raw, []byte("\r")) {
				size--
			}
			switch l := bytes.TrimRight(raw, "\r"); {
			case size > limit:
				want = append(want, nil)
			case len(bytes.TrimSpace(l)) > 0:
				want = append(want, l)
			}
		}
		lr := NewLineReader(bytes.NewReader(input), limit)
		for i := 0; ; i++ {
			line, err := lr.ReadLine()
			if errors.Is(err, io.EOF) {
				if i != len(want) {
					t.Fatalf("got %d lines, want %d", i, len(want))
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("extra line %q (%v)", line, err)
			}
			if _, tooLong := errors.AsType[*LineTooLongError](err); tooLong != (want[i] == nil) {
				t.Fatalf("line %d: got %q, %v; want %q", i, line, err, want[i])
			}
			if err == nil && !bytes.Equal(line, want[i]) {
				t.Fatalf("line %d: got %q, want %q", i, line, want[i])
			}
		}
	})
}

// The \r of a \r\n that falls at the end of the reader's buffer, its \n read next, still
// does not count against the limit.
func TestLineReaderCRLFAcrossTheBuffer(t *testing.T) {
	const buffered = 64 << 10 // NewLineReader's buffer
	line := bytes.Repeat([]byte("x"), buffered-1)
	input := append(append(bytes.Clone(line), "\r\n"...), "next\r\n"...)
	lr := NewLineReader(bytes.NewReader(input), len(line))
	for _, want := range [][]byte{line, []byte("next")} {
		got, err := lr.ReadLine()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("got %d bytes, %v; want %d bytes", len(got), err, len(want))
		}
	}
}

// TestDecodeMessageEscapedNames: member names are compared decoded, as encoding/json
// would, so an escaped spelling of "method" is still the method.
func TestDecodeMessageEscapedNames(t *testing.T) {
	m, err := decodeMessage([]byte(`{"jsonrpc":"2.0","\u006dethod":"a\/b","par\u0061ms":{"x":1},"id":7}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.method != "a/b" || string(m.params) != `{"x":1}` || m.id != Int64ID(7) {
		t.Fatalf("decoded %+v", m)
	}
	if _, err := decodeMessage([]byte(`{"jsonrpc":"2.0","method":"m"`)); err == nil {
		t.Fatal("a line cut off decoded")
	}
}

// TestDecodeReusing: the previous line's method is reused only for the same name spelt
// plainly, never for another value that reads alike.
func TestDecodeReusing(t *testing.T) {
	for _, c := range []struct{ line, reuse, want string }{
		{`{"jsonrpc":"2.0","method":"a/b"}`, "a/b", "a/b"},
		{`{"jsonrpc":"2.0","method":"a\/b"}`, "a/b", "a/b"},
		{`{"jsonrpc":"2.0","method":"\\n"}`, `\n`, `\n`},
		{`{"jsonrpc":"2.0","method":"a"}`, "b", "a"},
	} {
		m, err := decodeReusing([]byte(c.line), c.reuse)
		if err != nil || m.method != c.want {
			t.Errorf("decodeReusing(%s, %q) = %q, %v; want %q", c.line, c.reuse, m.method, err, c.want)
		}
	}
	if _, err := decodeReusing([]byte(`{"jsonrpc":"2.0","method":123}`), "2"); err == nil {
		t.Error("a number taken for the method")
	}
}
