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
	// MaxLineBytes limits one incoming message (64 MiB when 0). A longer line is skipped
	// and answered with CodeInvalidRequest; the connection goes on.
	MaxLineBytes int
	// Logger receives protocol problems nobody else can be told about (nil discards them).
	Logger *slog.Logger
	// OnBadInput is told of every line from the peer that was not a valid message.
	OnBadInput func(err error)
	// CancelGrace is how long a client's Prompt waits for the agent's answer after it sent
	// session/cancel because its context ended (DefaultCancelGrace when 0).
	CancelGrace time.Duration
	// CloseTimeout bounds the orderly end of the connection: Close waits this long for
	// handlers to return and for queued messages to be written, then abandons what is
	// left and closes the stream (3 seconds when 0).
	CloseTimeout time.Duration
	// ExitGrace is how long Close of a connection made by StartAgent waits for the agent
	// to exit once its stdin is closed, before it signals it to stop (DefaultExitGrace
	// when 0).
	ExitGrace time.Duration
}

// DefaultCancelGrace is ConnOptions.CancelGrace's default: a well-behaved agent answers a
// cancelled prompt at once.
const DefaultCancelGrace = 10 * time.Second

// ExtensionHandler is implemented by an Agent or a Client that serves extension methods:
// names starting with "_", and methods this package does not know (such as
// "authentication/status"). params are raw so that nothing is lost. For a notification
// (isNotification true) the result is ignored. Return ErrMethodNotFound for a method the
// handler does not know. Without an ExtensionHandler, requests are answered
// CodeMethodNotFound and notifications are ignored.
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

// WhenQueued arranges for fn to run once the response to the request handled in ctx is
// queued for writing: whatever fn (or a goroutine it starts) sends from then on goes out
// after that response. It reports false outside a request handler (fn is not run).
func WhenQueued(ctx context.Context, fn func()) bool {
	return jsonrpc2.WhenQueued(ctx, fn)
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
}

func (rt *router) Handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if r, ok := rt.routes[req.Method]; ok {
		result, err := r(ctx, req)
		return result, toWire(err)
	}
	if rt.extensions != nil {
		result, err := rt.extensions.HandleExtension(ctx, req.Method, req.Params, !req.IsCall())
		return result, toWire(err)
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

// call is a typed request.
func call[Resp any](ctx context.Context, c *jsonrpc2.Conn, method string, params any) (*Resp, error) {
	resp := new(Resp)
	if err := c.Call(ctx, method, params, resp); err != nil {
		return nil, fromWire(err)
	}
	return resp, nil
}

// callRaw is an untyped request, for extension methods.
func callRaw(ctx context.Context, c *jsonrpc2.Conn, method string, params, result any) error {
	return fromWire(c.Call(ctx, method, params, result))
}

// newRPC starts the JSON-RPC connection under an ACP connection. bind runs before the
// connection reads anything: it stores rpc in its owner and returns the routes, so no
// handler can run against a half-built connection. prepare, if not nil, runs for each
// request in arrival order with the notifications (see jsonrpc2.Options.Prepare).
func newRPC(stream io.ReadWriteCloser, opts *ConnOptions, prepare func(context.Context, *jsonrpc2.Request) context.Context, bind func(rpc *jsonrpc2.Conn) *router) {
	if opts == nil {
		opts = &ConnOptions{}
	}
	jsonrpc2.NewConn(stream, jsonrpc2.BinderFunc(func(rpc *jsonrpc2.Conn) jsonrpc2.Options {
		return jsonrpc2.Options{
			Handler:      bind(rpc),
			Prepare:      prepare,
			MaxLineBytes: opts.MaxLineBytes,
			Logger:       opts.Logger,
			OnBadInput:   opts.OnBadInput,
			CloseTimeout: opts.CloseTimeout,
		}
	}))
}
