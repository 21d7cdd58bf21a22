package acp

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// ConnOptions configure either side of a connection; nil means defaults.
type ConnOptions struct {
	// MaxLineBytes limits one incoming message (64 MiB when 0).
	MaxLineBytes int
	// Logger receives protocol problems nobody else can be told about.
	Logger *slog.Logger
	// Extensions answers methods this package does not know (names starting with "_",
	// and non-standard ones such as "authentication/status"); nil answers -32601 to
	// requests and ignores notifications.
	Extensions ExtensionHandler
	// OnBadInput is told of every line from the peer that was not a valid message.
	OnBadInput func(err error)
	// CancelGrace is how long a client's Prompt waits for the agent's answer after it sent
	// session/cancel because its context ended (DefaultCancelGrace when 0).
	CancelGrace time.Duration
	// CloseTimeout bounds the orderly end of the connection (see jsonrpc2.Options).
	CloseTimeout time.Duration
}

// DefaultCancelGrace is ConnOptions.CancelGrace's default: a well-behaved agent answers a
// cancelled prompt at once.
const DefaultCancelGrace = 10 * time.Second

// ExtensionHandler answers extension methods. params are raw so that nothing is lost.
type ExtensionHandler interface {
	HandleExtension(ctx context.Context, method string, params json.RawMessage, isNotification bool) (any, error)
}

// AfterResponse has fn's notifications follow the response to the request being handled
// in ctx on the wire, right behind it, before anything the client sends in reaction. An
// agent uses it to send a session's setup updates after the session/new response (ACP's
// ordering rule). fn must send with the ctx it is given, and only notifications.
func AfterResponse(ctx context.Context, fn func(ctx context.Context)) {
	jsonrpc2.AfterResponse(ctx, fn)
}

// route is one method's decoder and handler.
type route func(ctx context.Context, req *jsonrpc2.Request) (any, error)

// routeOf decodes the params into Req and calls fn. A nil response becomes {}: every ACP
// result is an object.
func routeOf[Req, Resp any](fn func(context.Context, *Req) (*Resp, error)) route {
	return func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		var req Req
		if err := jsonrpc2.DecodeParams(r, &req); err != nil {
			return nil, err
		}
		resp, err := fn(ctx, &req)
		if err != nil {
			return nil, err
		}
		if resp == nil {
			return struct{}{}, nil
		}
		return resp, nil
	}
}

// notificationOf decodes the params into Req and calls fn.
func notificationOf[Req any](fn func(context.Context, *Req) error) route {
	return func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		var req Req
		if err := jsonrpc2.DecodeParams(r, &req); err != nil {
			return nil, err
		}
		return nil, fn(ctx, &req)
	}
}

// router dispatches by method name and hands the rest to the extension handler.
type router struct {
	routes     map[string]route
	extensions ExtensionHandler
	// start, when set, sees every request in arrival order before its handler runs (see
	// jsonrpc2.Starter) and gives the handler its context.
	start func(ctx context.Context, req *jsonrpc2.Request) context.Context
}

// StartRequest implements jsonrpc2.Starter.
func (rt *router) StartRequest(ctx context.Context, req *jsonrpc2.Request) context.Context {
	if rt.start == nil {
		return ctx
	}
	return rt.start(ctx, req)
}

func (rt *router) Handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if r, ok := rt.routes[req.Method]; ok {
		return r(ctx, req)
	}
	if rt.extensions != nil {
		return rt.extensions.HandleExtension(ctx, req.Method, req.Params, !req.IsCall())
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

// call is a typed request.
func call[Resp any](ctx context.Context, c *jsonrpc2.Conn, method string, params any) (*Resp, error) {
	resp := new(Resp)
	if err := c.Call(ctx, method, params, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// newRPC starts the JSON-RPC connection under an ACP connection. bind runs before the
// connection reads anything: it stores rpc in its owner and returns the routes, so no
// handler can run against a half-built connection.
func newRPC(stream io.ReadWriteCloser, opts *ConnOptions, bind func(rpc *jsonrpc2.Conn) *router) {
	if opts == nil {
		opts = &ConnOptions{}
	}
	jsonrpc2.NewConn(stream, jsonrpc2.BinderFunc(func(rpc *jsonrpc2.Conn) jsonrpc2.Options {
		rt := bind(rpc)
		rt.extensions = opts.Extensions
		return jsonrpc2.Options{
			Handler:      rt,
			MaxLineBytes: opts.MaxLineBytes,
			Logger:       opts.Logger,
			OnBadInput:   opts.OnBadInput,
			CloseTimeout: opts.CloseTimeout,
		}
	}))
}

// Error codes as errors, for handlers to return.

// ErrSessionNotFound answers a request for a session id the agent does not know.
func ErrSessionNotFound(id SessionID) error {
	return jsonrpc2.Errorf(CodeResourceNotFound, "session %q not found", id)
}

// ErrInvalidParams answers a request whose params are well-formed but unacceptable.
func ErrInvalidParams(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, format, args...)
}
