// Package mcpclient connects to the MCP servers an ACP client hands an agent in
// session/new: stdio servers are started as child processes, HTTP servers are reached
// with the streamable HTTP transport and the headers the client gave. Both parley's own
// agents (eliza and the coding agent) use it, so the details live in one place.
package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/internal/proc"
	"github.com/parley-acp/parley/internal/version"
)

// Server describes one MCP server as ACP's session/new gives it.
type Server struct {
	Name string
	// Stdio servers.
	Command string
	Args    []string
	Env     []string // KEY=VALUE, added to parley's own environment
	// HTTP servers.
	URL     string
	Headers map[string]string
}

// Connect starts or reaches the server and completes the MCP handshake.
func Connect(ctx context.Context, s Server) (*mcp.ClientSession, error) {
	var transport mcp.Transport
	switch {
	case s.URL != "":
		transport = &mcp.StreamableClientTransport{
			Endpoint:   s.URL,
			HTTPClient: &http.Client{Transport: headerTransport{headers: s.Headers, base: http.DefaultTransport}},
			MaxRetries: -1,
		}
	case s.Command != "":
		t, err := startServer(s)
		if err != nil {
			return nil, fmt.Errorf("starting MCP server %q: %w", s.Name, err)
		}
		transport = t
	default:
		return nil, errors.New("MCP server has neither a command nor a URL")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "parley", Version: version.String()}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to MCP server %q: %w", s.Name, err)
	}
	return session, nil
}

// startServer starts a stdio server under internal/proc, like every process parley starts:
// a session of its own (no controlling terminal), a marker its descendants inherit, and
// its whole tree ended when the connection closes (or at a forced exit).
func startServer(s Server) (mcp.Transport, error) {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stderr = nil // an MCP server's stderr is its own business
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p, err := proc.Start(cmd)
	if err != nil {
		return nil, err
	}
	return &mcp.IOTransport{Reader: stdout, Writer: stopOnClose{stdin, p}}, nil
}

// serverStopGrace is how long a stdio MCP server has to end once its input closed.
const serverStopGrace = 2 * time.Second

// stopOnClose closes the server's stdin and then stops it (its tree with it), when the
// MCP connection closes.
type stopOnClose struct {
	io.WriteCloser
	p *proc.Process
}

func (s stopOnClose) Close() error {
	err := s.WriteCloser.Close()
	ctx, cancel := context.WithTimeout(context.Background(), serverStopGrace+killWait)
	defer cancel()
	s.p.Stop(ctx, serverStopGrace)
	return err
}

// killWait bounds the wait for the server after it was killed.
const killWait = 5 * time.Second

// headerTransport adds the client-given headers (such as a per-session secret) to every
// request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}

// ResultText flattens a tool result's content into text, the way a chat shows it.
func ResultText(res *mcp.CallToolResult) string {
	var out string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out += c.Text
		case *mcp.ImageContent:
			out += fmt.Sprintf("[image %s]", c.MIMEType)
		case *mcp.AudioContent:
			out += fmt.Sprintf("[audio %s]", c.MIMEType)
		case *mcp.ResourceLink:
			out += fmt.Sprintf("[resource %s]", c.URI)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				out += c.Resource.Text
			}
		}
	}
	return out
}
