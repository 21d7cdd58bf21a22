package acp

import (
	"context"
	"errors"
	"fmt"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// Error is a JSON-RPC error object. A call returns one (find it with errors.As) when the
// peer answered with an error; a handler returns one to choose the code and message the
// peer sees. Any other error a handler returns reaches the peer as CodeInternalError with
// the error's text, or as CodeRequestCancelled when the request's context was cancelled.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Errorf returns an *Error with the given code (one of the Code constants, or any other
// integer the peer understands) and a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrMethodNotFound is what an ExtensionHandler returns for a method it does not know:
// a request is answered CodeMethodNotFound naming the method, a notification is ignored.
var ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "method not found"}

// ErrSessionNotFound answers a request for a session id the agent does not know.
func ErrSessionNotFound(id SessionID) *Error {
	return Errorf(CodeResourceNotFound, "session %q not found", id)
}

// ErrInvalidParams answers a request whose params are well-formed but unacceptable.
func ErrInvalidParams(format string, args ...any) *Error {
	return Errorf(CodeInvalidParams, format, args...)
}

// ErrTurnCancelled is the cause (context.Cause) of a context ended because the client
// cancelled the turn: the context of an agent's Prompt after session/cancel or
// session/close for its session, and the context of a client's RequestPermission when
// its turn is cancelled.
var ErrTurnCancelled = errors.New("acp: the turn was cancelled")

// IsClosed reports whether err means the connection is gone.
func IsClosed(err error) bool { return errors.Is(err, jsonrpc2.ErrClosed) }

// IsCancelled reports whether err means a request was cancelled: by the caller's context,
// or by the peer answering CodeRequestCancelled.
func IsCancelled(err error) bool {
	if errors.Is(err, context.Canceled) {
		return true
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code == CodeRequestCancelled
	}
	e, ok := errors.AsType[*jsonrpc2.Error](err)
	return ok && e.Code == CodeRequestCancelled
}

// toWire gives the JSON-RPC layer a handler's error: an *Error becomes the wire error it
// describes, ErrMethodNotFound the layer's own (so that it names the method, and a
// notification is ignored). Other errors pass unchanged.
func toWire(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrMethodNotFound) {
		return jsonrpc2.ErrMethodNotFound
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return &jsonrpc2.Error{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	return err
}

// fromWire gives a caller the peer's error answer as an *Error; other errors (the
// connection closed, the context ended, a result that did not decode) pass unchanged.
func fromWire(err error) error {
	if e, ok := err.(*jsonrpc2.Error); ok {
		return &Error{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	return err
}
