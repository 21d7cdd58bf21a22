package json

import (
	"bytes"
	"errors"
)

// errSyntax is returned by the scanner for input that is not a JSON object.
var errSyntax = errors.New("json: not a well-formed object")

// EachMember calls fn for every top-level member of the JSON object data, in order, with
// the member's decoded name and its raw value. It stops early when fn returns false. It
// reads only as far as it must, so it also works on a prefix of a document: it returns
// an error at the point where the input ends or goes wrong, after reporting every member
// it could read whole.
func EachMember(data []byte, fn func(name string, value []byte) bool) error {
	var nameErr error
	_, err := scanObject(data, func(quotedName, value []byte) bool {
		name, err := decodeName(quotedName)
		if err != nil {
			nameErr = err
			return false
		}
		return fn(name, value)
	})
	if nameErr != nil {
		return nameErr
	}
	return err
}

// scanObject calls fn for every top-level member of the JSON object data with the member
// name still quoted and escaped, so that callers can look names up without allocating.
// It returns the index just past the object's closing brace.
func scanObject(data []byte, fn func(quotedName, value []byte) bool) (int, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return 0, errSyntax
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, errSyntax
		}
		end, err := skipString(data, i)
		if err != nil {
			return 0, err
		}
		quotedName := data[i:end]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return 0, errSyntax
		}
		start := skipSpace(data, i+1)
		end, err = skipValue(data, start)
		if err != nil {
			return 0, err
		}
		if !fn(quotedName, data[start:end]) {
			return end, nil
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return 0, errSyntax
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// Member returns the raw value of the top-level member name of the object data, or nil
// when there is none.
func Member(data []byte, name string) []byte {
	var found []byte
	scanObject(data, func(quotedName, value []byte) bool {
		inner := quotedName[1 : len(quotedName)-1]
		if plainString(inner) {
			if string(inner) != name {
				return true
			}
		} else if decoded, err := decodeName(quotedName); err != nil || decoded != name {
			return true
		}
		found = value
		return false
	})
	return found
}

func decodeName(quoted []byte) (string, error) {
	if inner := quoted[1 : len(quoted)-1]; plainString(inner) {
		return string(inner), nil
	}
	var s string
	if err := Unmarshal(quoted, &s); err != nil {
		return "", err
	}
	return s, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at data[i] == '"'. It
// finds each quote with bytes.IndexByte and takes the first one not escaped (preceded by
// an even number of backslashes).
func skipString(data []byte, i int) (int, error) {
	for j := i + 1; j < len(data); {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		backslashes := 0
		for b := q - 1; b > i && data[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
	return 0, errSyntax
}

// skipValue returns the index just past the JSON value starting at data[i]. It checks
// nesting and strings, not the spelling of literals: callers that need the value decode it.
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errSyntax
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, err := skipString(data, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errSyntax
	default:
		j := i
		for j < len(data) {
			c := data[j]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			j++
		}
		if j == i {
			return 0, errSyntax
		}
		if j == i || j == len(data) {
			// Inside an object a scalar is always followed by more input; at the end of
			// the data it may have been cut off.
			return 0, errSyntax
		}
		return j, nil
	}
}
