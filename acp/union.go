package acp

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/parley-acp/parley/internal/json"
)

var errMalformed = errors.New("acp: malformed JSON")

// readKind returns the discriminator of a union: the member tag of the object data, and
// whether it is there at all. A tag that is not a string reads as the empty kind, which no
// variant has, so the object is kept as an unknown variant. The kind usually aliases
// data; callers switch on string(kind), which does not allocate.
func readKind(union string, data []byte, tag string) (kind []byte, present bool, err error) {
	if !isObject(data) {
		return nil, false, errNotObject(union)
	}
	raw := json.Member(data, tag)
	if raw == nil {
		return nil, false, nil
	}
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, true, nil
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
		// A kind that matches a known one is a plain string; anything stranger ends up
		// in Unknown, which is validated whole.
		return inner, true, nil
	}
	var decoded string
	if err := json.Unmarshal(raw, &decoded); err != nil {
		return nil, true, err
	}
	return []byte(decoded), true, nil
}

func isObject(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}

// unknownVariant returns a copy of data to keep as a union's unknown variant.
func unknownVariant(data []byte) (json.RawMessage, error) {
	if !json.Valid(data) {
		return nil, errMalformed
	}
	return append(json.RawMessage(nil), data...), nil
}

// unknownKind reads the discriminator back from an unknown variant, for Kind methods.
func unknownKind(raw json.RawMessage, tag string) string {
	var kind string
	json.Unmarshal(json.Member(raw, tag), &kind)
	return kind
}

func errMissing(typ, member string) error {
	return fmt.Errorf("acp: %s is missing %q", typ, member)
}

func errEmptyUnion(union string) error {
	return fmt.Errorf("acp: %s has no variant set", union)
}

func errNotObject(typ string) error {
	return fmt.Errorf("acp: %s must be a JSON object", typ)
}
