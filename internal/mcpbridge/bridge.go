// Package mcpbridge serves VS Code's tools to an ACP agent as a synthetic MCP server
// named vscode_tools, the name the VS Code client and agents expect for it.
//
// A Bridge owns one loopback HTTP listener. Each ACP session gets its own go-sdk MCP
// server behind a stateful streamable HTTP handler, at its own path and guarded by its
// own secret header, so that one agent cannot reach another session's tools. Agents that
// cannot speak MCP over HTTP get the same server through the stdio shim (RunShim).
//
// The tool list is replaced per chat request with Session.SetTools; the go-sdk announces
// every change with notifications/tools/list_changed. A tool call is handed to the owner
// through the session's CallFunc, which blocks until VS Code has run the tool; calls are
// independent, so several may be in flight at once.
package mcpbridge

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
)

// ServerName is the name of the synthetic MCP server, as agents see it.
const ServerName = "vscode_tools"

// SecretHeader carries a session's secret on every HTTP request to its endpoint.
const SecretHeader = "X-Parley-Secret"

// SecretEnv is the environment variable through which the stdio shim receives the
// secret, so that it never appears on a command line.
const SecretEnv = "PARLEY_MCP_SECRET"

// Options configure a Bridge. The zero value is usable.
type Options struct {
	// Logger receives warnings (skipped tools) and the go-sdk's logs. Nil discards them.
	Logger *slog.Logger
	// Executable is the parley binary that agents without HTTP MCP support start as the
	// stdio shim. Empty means os.Executable().
	Executable string
}

// Bridge serves the vscode_tools MCP servers of all ACP sessions on one loopback port.
type Bridge struct {
	logger     *slog.Logger
	sdkLogger  *slog.Logger // the go-sdk's, its info records as debug
	executable string
	listener   net.Listener
	server     *http.Server
	served     chan struct{} // closed when the HTTP server has stopped serving

	mu       sync.Mutex
	closed   bool
	sessions map[string]*Session // by URL path
	ids      map[string]*Session // by ACP session id
}

// New starts listening on 127.0.0.1 on a free port.
func New(opts Options) (*Bridge, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	executable := opts.Executable
	if executable == "" {
		var err error
		if executable, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("finding parley's executable for the MCP shim: %w", err)
		}
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the vscode_tools MCP server: %w", err)
	}
	b := &Bridge{
		logger:     logger,
		sdkLogger:  sdkLogger(logger),
		executable: executable,
		listener:   listener,
		served:     make(chan struct{}),
		sessions:   make(map[string]*Session),
		ids:        make(map[string]*Session),
	}
	b.server = &http.Server{Handler: http.HandlerFunc(b.serveHTTP)}
	go func() {
		defer close(b.served)
		b.server.Serve(listener)
	}()
	return b, nil
}

// Port is the loopback port the bridge listens on, from New on: a confined agent whose
// network is limited must be allowed it (see vscodelm's Serve).
func (b *Bridge) Port() uint16 { return uint16(b.listener.Addr().(*net.TCPAddr).Port) }

// AddSession creates the vscode_tools server of ACP session id. onCall receives the
// agent's tool calls; it may be called concurrently.
func (b *Bridge) AddSession(id string, onCall CallFunc) (*Session, error) {
	if onCall == nil {
		return nil, errors.New("mcpbridge: AddSession needs a CallFunc")
	}
	secret, err := randomHex(32)
	if err != nil {
		return nil, err
	}
	token, err := randomHex(16)
	if err != nil {
		return nil, err
	}
	path := "/mcp/" + token
	s := newSession(b, id, "http://"+b.listener.Addr().String()+path, secret, onCall)

	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.shutdown()
		return nil, errors.New("mcpbridge: bridge is closed")
	}
	if _, dup := b.ids[id]; dup {
		s.shutdown()
		return nil, fmt.Errorf("mcpbridge: session %q already exists", id)
	}
	b.sessions[path] = s
	b.ids[id] = s
	s.path = path
	return s, nil
}

// Session returns the session with ACP session id, or nil.
func (b *Bridge) Session(id string) *Session {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ids[id]
}

func (b *Bridge) removeSession(s *Session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ids[s.id] == s {
		delete(b.ids, s.id)
	}
	delete(b.sessions, s.path)
}

// Close closes every session, ends their pending calls, and stops the listener.
func (b *Bridge) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	sessions := make([]*Session, 0, len(b.ids))
	for _, s := range b.ids {
		sessions = append(sessions, s)
	}
	b.sessions, b.ids = map[string]*Session{}, map[string]*Session{}
	b.mu.Unlock()

	for _, s := range sessions {
		s.shutdown()
	}
	// Close, not Shutdown: agents keep a standalone SSE stream open that would never idle.
	err := b.server.Close()
	<-b.served
	return err
}

func (b *Bridge) serveHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	s := b.sessions[r.URL.Path]
	b.mu.Unlock()
	if s == nil {
		http.NotFound(w, r)
		return
	}
	got := r.Header.Get(SecretHeader)
	if subtle.ConstantTimeCompare([]byte(got), []byte(s.secret)) != 1 {
		http.Error(w, "missing or wrong "+SecretHeader, http.StatusUnauthorized)
		return
	}
	s.handler.ServeHTTP(w, r)
}

func randomHex(n int) (string, error) {
	buf := make([]byte, n)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	return hex.EncodeToString(buf), nil
}

// NewCallID returns a random UUID (version 4) for a tool call.
func NewCallID() string {
	var u [16]byte
	rand.Read(u[:]) // crypto/rand.Read never fails (Go 1.24+)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return strings.Join([]string{h[0:8], h[8:12], h[12:16], h[16:20], h[20:32]}, "-")
}
