package remote

import (
	"bufio"
	"context"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestParseAddress(t *testing.T) {
	for _, c := range []struct{ raw, env, ws, show, token, err string }{
		{"http://127.0.0.1:8123/?token=abc", "", "ws://127.0.0.1:8123/acp", "http://127.0.0.1:8123/", "abc", ""},
		{"https://box.example/parley/?token=abc", "", "wss://box.example/parley/acp", "https://box.example/parley/", "abc", ""},
		{"https://box.example/parley", "fromenv", "wss://box.example/parley/acp", "https://box.example/parley", "fromenv", ""},
		{"ws://h:1/p/acp", "e", "ws://h:1/p/acp", "http://h:1/p/acp", "e", ""},
		{"http://h:1/?token=url", "env", "ws://h:1/acp", "http://h:1/", "url", ""}, // the address's own wins
		{"http://h:1/", "", "", "", "", "no token"},
		{"ftp://h:1/?token=x", "", "", "", "", "http:// or https://"},
		{"127.0.0.1:8123", "x", "", "", "", "not an address"},
	} {
		got, err := ParseAddress(c.raw, c.env)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one saying %q", c.raw, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "token=x") {
				t.Errorf("%q: the error shows the token: %v", c.raw, err)
			}
			continue
		}
		if err != nil || got.WS != c.ws || got.Show != c.show || got.Token != c.token {
			t.Errorf("%q: %+v, %v; want %s, %s, %s", c.raw, got, err, c.ws, c.show, c.token)
		}
	}
}

// fakeServer accepts parley's ACP WebSocket and hands each connection to serve.
func fakeServer(t *testing.T, serve func(ws *websocket.Conn)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Sec-WebSocket-Protocol"), "parley-token.good") {
			http.Error(w, "parley: wrong token", http.StatusForbidden)
			return
		}
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"acp"}})
		if err != nil {
			return
		}
		serve(ws)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// pipeClient is the client's side of a relay: what it writes is the relay's input, what
// the relay writes it reads.
type pipeClient struct {
	io.Reader
	io.WriteCloser
	closeIn func() error
}

func (p pipeClient) Close() error { p.WriteCloser.Close(); return p.closeIn() }

func newPipeClient() (relaySide pipeClient, toRelay io.WriteCloser, fromRelay *bufio.Reader) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	return pipeClient{Reader: inR, WriteCloser: outW, closeIn: inR.Close}, inW, bufio.NewReader(outR)
}

// The server closing the connection (a revoked token) answers the request waiting for
// its answer with the close reason, and the relay ends with a *GoneError.
func TestRelayAnswersPendingWithTheCloseReason(t *testing.T) {
	url := fakeServer(t, func(ws *websocket.Conn) {
		ctx := context.Background()
		ws.Read(ctx) // the request, never answered
		ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{}}`))
		ws.Close(websocket.StatusPolicyViolation, "the token was revoked")
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a hang guard
	defer cancel()
	c, err := Dial(ctx, url, Options{Token: "good"})
	if err != nil {
		t.Fatal(err)
	}
	side, in, out := newPipeClient()
	done := make(chan error, 1)
	go func() { done <- Relay(ctx, c, side) }()
	io.WriteString(in, `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{}}`+"\n")
	first, _ := out.ReadString('\n')
	if !strings.Contains(first, "session/update") {
		t.Errorf("the server's notification came as %q", first)
	}
	answer, _ := out.ReadString('\n')
	if !strings.Contains(answer, `"id":5`) || !strings.Contains(answer, "the token was revoked") {
		t.Errorf("the pending request was answered %q; want an error for id 5 with the close reason", answer)
	}
	err = <-done
	if g, ok := errors.AsType[*GoneError](err); !ok || !strings.Contains(g.Reason, "the token was revoked") {
		t.Errorf("Relay returned %v; want a *GoneError with the close reason", err)
	}
}

func TestDialSaysWhatTheServerSaid(t *testing.T) {
	url := fakeServer(t, func(ws *websocket.Conn) { ws.CloseNow() })
	_, err := Dial(t.Context(), url, Options{Token: "bad"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 403: wrong token") || strings.Contains(err.Error(), "bad") {
		t.Errorf("a wrong token: %v; want the server's words, without the token", err)
	}
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	_, err = Dial(t.Context(), plain.URL+"/?token=x", Options{})
	if err == nil || !strings.Contains(err.Error(), "not a parley server") {
		t.Errorf("a server that is not parley: %v", err)
	}
}

// A server whose certificate a private CA signs: refused with a word about --tls-ca,
// reached with it.
func TestDialPrivateCA(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"acp"}})
		if err != nil {
			return
		}
		ws.Close(websocket.StatusNormalClosure, "")
	}))
	defer srv.Close()
	t.Setenv("SSL_CERT_FILE", filepath.Join(t.TempDir(), "none.pem")) // not this machine's CAs either
	_, err := Dial(t.Context(), srv.URL+"/?token=x", Options{})
	if err == nil || !strings.Contains(err.Error(), "--tls-ca") {
		t.Errorf("a certificate of an unknown CA: %v; want a word about --tls-ca", err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(t.Context(), srv.URL+"/?token=x", Options{CAFile: ca})
	if err != nil {
		t.Fatalf("with --tls-ca: %v", err)
	}
	c.Close("done")
}

// The end of the client's input closes the WebSocket normally, saying why, and the
// relay returns nil.
func TestRelayEndOfInputClosesNormally(t *testing.T) {
	closed := make(chan error, 1)
	url := fakeServer(t, func(ws *websocket.Conn) {
		_, _, err := ws.Read(context.Background())
		closed <- err
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a hang guard
	defer cancel()
	c, err := Dial(ctx, url, Options{Token: "good"})
	if err != nil {
		t.Fatal(err)
	}
	side, in, _ := newPipeClient()
	done := make(chan error, 1)
	go func() { done <- Relay(ctx, c, side) }()
	in.Close()
	if err := <-done; err != nil {
		t.Errorf("Relay after the end of input: %v, want nil", err)
	}
	var ce websocket.CloseError
	if err := <-closed; !errors.As(err, &ce) || ce.Code != websocket.StatusNormalClosure || ce.Reason != "the client's input ended" {
		t.Errorf("the server saw %v; want a normal close saying the input ended", err)
	}
}
