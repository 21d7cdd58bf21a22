package jsonrpc2

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/parley-acp/parley/internal/json"
)

// Standard and ACP error codes.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error object. Handlers return one to choose the code the peer sees;
// Call returns one when the peer answered with an error.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// Errorf returns an Error with the given code and a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrMethodNotFound is returned by a handler that does not know the method; the peer gets
// -32601 naming the method (for a notification, nothing: it is ignored).
var ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "method not found"}

// ErrClosed is returned by calls on a closed connection, and by calls whose response can
// no longer arrive because the connection closed.
var ErrClosed = errors.New("jsonrpc2: connection closed")

// ID is a request id: a number or a string (or null) as the sender chose it. The zero ID
// means "no id" (a notification).
type ID struct {
	raw string // canonical JSON text of the id, "" for none
}

// Int64ID returns a numeric id.
func Int64ID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// StringID returns a string id.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: string(b)}
}

// IsValid reports whether the id is present.
func (id ID) IsValid() bool { return id.raw != "" }

// String returns the id's JSON text.
func (id ID) String() string { return id.raw }

// MarshalJSON encodes the id with its original JSON type.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON accepts a number, a string or null.
func (id *ID) UnmarshalJSON(b []byte) error {
	parsed, err := parseID(b)
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

// parseID canonicalises an id so that the same id always has the same text: integers in
// decimal, strings re-quoted by the one encoder.
func parseID(b []byte) (ID, error) {
	if len(b) == 0 {
		return ID{}, errors.New("empty id")
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return ID{}, fmt.Errorf("id: %w", err)
		}
		return StringID(s), nil
	case 'n':
		if string(b) == "null" {
			return ID{raw: "null"}, nil
		}
	default:
		if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return Int64ID(n), nil
		}
		if f, err := strconv.ParseFloat(string(b), 64); err == nil {
			if f == float64(int64(f)) {
				return Int64ID(int64(f)), nil
			}
			return ID{raw: string(b)}, nil
		}
	}
	return ID{}, fmt.Errorf("id must be a number, a string or null, not %.40s", b)
}

// Request is an incoming request or notification.
type Request struct {
	ID     ID // !ID.IsValid() for a notification
	Method string
	Params json.RawMessage // nil when absent

	// checked says that Params is part of a line this package checked as valid JSON,
	// so DecodeParams need not check it again (a handler's own Request is checked).
	checked bool
}

// IsCall reports whether the request expects a response.
func (r *Request) IsCall() bool { return r.ID.IsValid() }

// DecodeParams decodes the request's params into v. A failure is an *Error with code
// -32602, ready to be returned by the handler. Absent or null params leave v untouched.
func DecodeParams(r *Request, v any) error {
	if len(r.Params) == 0 || string(r.Params) == "null" {
		return nil
	}
	unmarshal := json.Unmarshal
	if r.checked {
		unmarshal = json.UnmarshalValid
	}
	if err := unmarshal(r.Params, v); err != nil {
		return Errorf(CodeInvalidParams, "invalid params for %s: %v", r.Method, err)
	}
	return nil
}

// message is one decoded line: a request, a notification or a response.
type message struct {
	id     ID
	method string
	params json.RawMessage
	result json.RawMessage
	err    *Error
}

func (m *message) isResponse() bool { return m.method == "" && m.id.IsValid() }

// decodeError is a line that is not a valid JSON-RPC message; id is set when the line had
// a usable one, so the error can be answered to it.
type decodeError struct {
	code   int64
	msg    string
	id     ID
	prefix prefixInfo // for a line that is not JSON at all
}

func (e *decodeError) Error() string { return e.msg }

// decodeMessage parses one line. It validates the JSON and the envelope; params and result
// stay raw (sub-slices of line, which the caller must not reuse).
func decodeMessage(line []byte) (message, error) { return decodeReusing(line, "") }

// decodeReusing is decodeMessage that takes the method name method, rather than a copy,
// for a line whose method is spelt as that name without escapes: the reader passes the
// previous line's, and a flood of session/update notifications copies none.
func decodeReusing(line []byte, method string) (message, error) {
	var m message
	var version, rawID, rawMethod, rawErr, params, result []byte
	var hasResult bool
	// One pass checks the line (also JSON nested deeper than the decoder allows) and
	// finds its members; what it found is used only once the whole line proved valid.
	object, valid := json.ValidMembers(line, func(quotedName, value []byte) {
		name := quotedName[1 : len(quotedName)-1]
		if bytes.IndexByte(name, '\\') >= 0 { // a peer may spell "method" as "\u006dethod"
			decoded, _ := json.DecodeString(quotedName)
			name = []byte(decoded)
		}
		switch string(name) { // compared, not copied

		case "jsonrpc":
			version = value
		case "id":
			rawID = value
		case "method":
			rawMethod = value
		case "params":
			params = value
		case "result":
			result, hasResult = value, true
		case "error":
			rawErr = value
		}
	})
	if !valid {
		p := readPrefix(line)
		return message{}, &decodeError{code: CodeParseError, msg: "parse error: the line is not valid JSON (or is nested too deeply)", id: p.id, prefix: p}
	}
	if !object {
		return message{}, &decodeError{code: CodeInvalidRequest, msg: "invalid request: a message must be a JSON object"}
	}
	m.params, m.result = params, result
	if rawID != nil {
		id, err := parseID(rawID)
		if err != nil {
			return m, &decodeError{code: CodeInvalidRequest, msg: "invalid request: " + err.Error()}
		}
		m.id = id
	}
	if string(version) != `"2.0"` {
		return m, &decodeError{code: CodeInvalidRequest, msg: `invalid request: "jsonrpc" must be "2.0"`, id: m.id}
	}
	if rawMethod != nil {
		var err error
		if inner := rawMethod[1:max(1, len(rawMethod)-1)]; method != "" && rawMethod[0] == '"' && string(inner) == method && bytes.IndexByte(inner, '\\') < 0 {
			m.method = method
		} else if m.method, err = json.DecodeString(rawMethod); err != nil || m.method == "" {
			return m, &decodeError{code: CodeInvalidRequest, msg: "invalid request: \"method\" must be a non-empty string", id: m.id}
		}
		if len(m.params) > 0 && m.params[0] != '{' && m.params[0] != '[' && string(m.params) != "null" {
			return m, &decodeError{code: CodeInvalidRequest, msg: "invalid request: \"params\" must be an object or an array", id: m.id}
		}
		return m, nil
	}
	if rawID == nil {
		return m, &decodeError{code: CodeInvalidRequest, msg: "invalid request: a message needs a \"method\" or an \"id\""}
	}
	switch {
	case rawErr != nil && string(rawErr) != "null":
		m.err = new(Error)
		if err := json.Unmarshal(rawErr, m.err); err != nil {
			return m, &decodeError{code: CodeInvalidRequest, msg: "invalid response: malformed \"error\""}
		}
	case hasResult:
	default:
		return m, &decodeError{code: CodeInvalidRequest, msg: "invalid response: it needs a \"result\" or an \"error\""}
	}
	return m, nil
}

// prefixInfo is what the top-level members of a line that cannot be decoded whole
// (malformed, nested too deeply, cut off at the line limit) tell, up to the problem.
type prefixInfo struct {
	id        ID
	hasMethod bool // a request or a notification (a "method" member, maybe unreadable)
	hasResult bool // "result" or "error": a response
}

func readPrefix(prefix []byte) prefixInfo {
	var p prefixInfo
	var rawID []byte
	json.EachMember(prefix, func(name string, value []byte) bool {
		switch name {
		case "id":
			rawID = value
		case "method":
			p.hasMethod = true
		case "result", "error":
			p.hasResult = true
		}
		return true
	})
	if rawID != nil {
		p.id, _ = parseID(rawID)
	}
	if !p.hasMethod && !p.hasResult {
		// The member that could not be read may be the method ({"id":1,"method":).
		p.hasMethod = bytes.Contains(prefix, []byte(`"method"`))
	}
	return p
}

// appendRequest encodes a request (id valid) or notification (id invalid) as one line.
func appendRequest(buf []byte, id ID, method string, params json.RawMessage) []byte {
	buf = appendRequestHead(buf, id, method)
	if len(params) > 0 {
		buf = append(buf, `,"params":`...)
		buf = append(buf, params...)
	}
	return append(buf, "}\n"...)
}

// appendRequestHead begins a request's line: everything before its params.
func appendRequestHead(buf []byte, id ID, method string) []byte {
	buf = append(buf, `{"jsonrpc":"2.0",`...)
	if id.IsValid() {
		buf = append(buf, `"id":`...)
		buf = append(buf, id.raw...)
		buf = append(buf, ',')
	}
	buf = append(buf, `"method":`...)
	return appendString(buf, method)
}

// appendNotification encodes a notification as one line, its params appended in place
// when they encode themselves (json.Appender) and through encodeValue otherwise.
func appendNotification(buf []byte, method string, params any) ([]byte, error) {
	a, ok := json.AppenderOf(params)
	if !ok {
		p, err := encodeValue(params)
		if err != nil {
			return nil, err
		}
		return appendRequest(buf, ID{}, method, p), nil
	}
	buf = append(appendRequestHead(buf, ID{}, method), `,"params":`...)
	buf, err := a.AppendJSON(buf)
	if err != nil {
		return nil, err
	}
	return append(buf, "}\n"...), nil
}

// appendResponse encodes a response as one line.
func appendResponse(buf []byte, id ID, result json.RawMessage, rerr *Error) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	if id.IsValid() {
		buf = append(buf, id.raw...)
	} else {
		buf = append(buf, "null"...)
	}
	if rerr != nil {
		e, err := json.Marshal(rerr)
		if err != nil {
			e = []byte(`{"code":-32603,"message":"internal error: unencodable error"}`)
		}
		buf = append(buf, `,"error":`...)
		buf = append(buf, e...)
	} else {
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		buf = append(buf, `,"result":`...)
		buf = append(buf, result...)
	}
	return append(buf, "}\n"...)
}

func appendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			b, _ := json.Marshal(s)
			return append(buf, b...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// encodeValue encodes params or a result. Raw JSON is compacted when it could hold a
// newline, so that every message stays one line.
func encodeValue(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		for _, c := range v {
			if c == '\n' || c == '\r' {
				return json.Compact(v)
			}
		}
		if !json.Valid(v) {
			return nil, errors.New("raw JSON value is not valid")
		}
		return v, nil
	default:
		return json.Marshal(v)
	}
}
