package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/version"
)

// RunShim is `parley mcp-shim`: it serves the vscode_tools server at url (a session's
// McpServerHTTP address, reached with secret) to an agent on stdin/stdout.
//
// It is an MCP proxy made of two go-sdk sessions: a client of the bridge over streamable
// HTTP, and a server on stdio that mirrors the bridge's tool list (and so sends the agent
// notifications/tools/list_changed whenever the bridge does) and forwards every tools/call
// as it comes, concurrently. It returns when the agent closes stdin, the bridge ends the
// session, or ctx ends; in the last case the caller must also unblock stdin (closing it),
// since a plain io.Reader cannot be interrupted.
func RunShim(ctx context.Context, url, secret string, stdin io.Reader, stdout io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	changed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "parley-mcp-shim", Version: version.String()}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select { // one pending refresh covers any number of changes
			case changed <- struct{}{}:
			default:
			}
		},
	})
	remote, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: secretTransport{secret: secret, next: transport}},
		MaxRetries: -1, // the bridge is local: if it is gone, it is gone
	}, nil)
	if err != nil {
		return fmt.Errorf("connecting to the vscode_tools server at %s: %w", url, err)
	}
	defer remote.Close()

	m := &toolMirror{
		server: mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: version.String()}, &mcp.ServerOptions{
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		}),
		remote: remote,
		tools:  make(map[string][]byte),
	}
	m.server.AddReceivingMiddleware(forwardCalls(remote))
	if err := m.sync(ctx); err != nil {
		return err
	}
	local, err := m.server.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}, nil)
	if err != nil {
		return fmt.Errorf("serving MCP on stdio: %w", err)
	}

	localDone := make(chan error, 1)
	go func() { localDone <- local.Wait() }()
	remoteDone := make(chan struct{})
	go func() { remote.Wait(); close(remoteDone) }()

	for {
		select {
		case <-changed:
			if err := m.sync(ctx); err != nil {
				local.Close()
				<-localDone
				return err
			}
		case err := <-localDone:
			// The agent closing its end, whichever way, is the normal end.
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, context.Canceled) {
				err = nil
			}
			return err
		case <-remoteDone:
			local.Close()
			<-localDone
			return errors.New("the vscode_tools server closed the session")
		case <-ctx.Done():
			local.Close()
			<-localDone
			return ctx.Err()
		}
	}
}

// toolMirror keeps the shim's stdio server listing the bridge's tools. Only RunShim's
// goroutine uses it.
type toolMirror struct {
	server *mcp.Server
	remote *mcp.ClientSession
	tools  map[string][]byte // name → JSON of the tool as last registered
}

func (m *toolMirror) sync(ctx context.Context) error {
	next := make(map[string]*mcp.Tool)
	for tool, err := range m.remote.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing the vscode_tools tools: %w", err)
		}
		if schema, ok := tool.InputSchema.(map[string]any); !ok || schema["type"] != "object" {
			continue // the bridge normalises schemas; never let AddTool panic anyway
		}
		next[tool.Name] = tool
	}
	var removed []string
	for name := range m.tools {
		if _, ok := next[name]; !ok {
			removed = append(removed, name)
			delete(m.tools, name)
		}
	}
	if len(removed) > 0 {
		m.server.RemoveTools(removed...)
	}
	for name, tool := range next {
		data, err := json.Marshal(tool)
		if err != nil {
			return fmt.Errorf("encoding tool %q: %w", name, err)
		}
		if string(m.tools[name]) == string(data) {
			continue
		}
		m.tools[name] = data
		m.server.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("unreachable: forwardCalls answers tools/call") // never called
		})
	}
	return nil
}

// forwardCalls sends tools/call straight to the bridge, whatever the mirror holds, so that
// the bridge alone decides about names (prefix, unknown tools) and the agent's
// cancellation reaches the bridge through ctx.
func forwardCalls(remote *mcp.ClientSession) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call.Params == nil {
				return next(ctx, method, req)
			}
			// Not _meta: under newer protocol versions it carries the stdio side's
			// per-request protocol fields, which the HTTP side negotiates for itself.
			params := &mcp.CallToolParams{Name: call.Params.Name}
			if len(call.Params.Arguments) > 0 {
				params.Arguments = call.Params.Arguments
			}
			res, err := remote.CallTool(ctx, params)
			if err != nil {
				var rpcErr *jsonrpc.Error
				if errors.As(err, &rpcErr) {
					return nil, rpcErr
				}
				return nil, err
			}
			return res, nil
		}
	}
}

// secretTransport adds a session's secret header to every request.
type secretTransport struct {
	secret string
	next   http.RoundTripper
}

func (t secretTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(SecretHeader, t.secret)
	return t.next.RoundTrip(r)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
