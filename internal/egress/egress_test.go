package egress

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

// Every test ends with every goroutine of its proxies (and servers) ended.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testProxy is a running proxy with what it logged and reported.
type testProxy struct {
	*Proxy
	mu       sync.Mutex
	refusals []Refusal
	log      bytes.Buffer
}

func (tp *testProxy) Refusals() []Refusal {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return slices.Clone(tp.refusals)
}

func (tp *testProxy) Log() string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.log.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func startProxy(t testing.TB, allow ...string) *testProxy {
	t.Helper()
	return startProxyDialing(t, nil, allow...)
}

func startProxyDialing(t testing.TB, dial func(ctx context.Context, network, address string) (net.Conn, error), allow ...string) *testProxy {
	t.Helper()
	tp := &testProxy{}
	p, err := start(t.Context(), Config{
		Allow:  allow,
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&tp.mu, &tp.log}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Refused: func(r Refusal) {
			tp.mu.Lock()
			tp.refusals = append(tp.refusals, r)
			tp.mu.Unlock()
		},
	}, dial)
	if err != nil {
		t.Fatal(err)
	}
	tp.Proxy = p
	t.Cleanup(func() { p.Close() })
	return tp
}

// authHeader is the Proxy-Authorization line the proxy's URL stands for.
func (p *Proxy) authHeader() string {
	return "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("parley:"+p.token)) + "\r\n"
}

// exchange sends raw to the proxy and reads its reply; the connection stays open for
// a tunnel.
func exchange(t *testing.T, p *Proxy, raw string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: strings.Fields(raw + " x")[0]})
	if err != nil {
		t.Fatalf("reading the proxy's reply to %q: %v", raw, err)
	}
	return resp, conn, br
}

// echoServer accepts connections on 127.0.0.1 and sends back what it reads, until the
// test ends.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				io.Copy(c, c)
			})
		}
	})
	return ln.Addr().String()
}

func TestConnectAllowedCarriesBytesBothWays(t *testing.T) {
	addr := echoServer(t)
	p := startProxy(t, addr)
	resp, conn, br := exchange(t, p.Proxy, "CONNECT "+addr+" HTTP/1.1\r\nHost: "+addr+"\r\n"+p.authHeader()+"\r\n")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT %s: %s", addr, resp.Status)
	}
	io.WriteString(conn, "ping\n")
	line, err := br.ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Fatalf("through the tunnel: %q, %v", line, err)
	}
	conn.(*net.TCPConn).CloseWrite()
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Fatalf("after the client's half close the tunnel should end cleanly: %q, %v", rest, err)
	}
	if !strings.Contains(p.Log(), "egress: tunnel") || !strings.Contains(p.Log(), addr) {
		t.Errorf("the log should name the destination reached:\n%s", p.Log())
	}
}

// A real client (Go's transport) reaches a TLS server through the tunnel.
func TestHTTPSThroughProxy(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != "" {
			t.Errorf("the proxy's password reached the server")
		}
		io.WriteString(w, "hello over tls")
	}))
	defer srv.Close()
	p := startProxy(t, srv.Listener.Addr().String())
	body := get(t, p.Proxy, srv.URL, srv.Client().Transport.(*http.Transport).TLSClientConfig)
	if body != "hello over tls" {
		t.Fatalf("body %q", body)
	}
}

func get(t *testing.T, p *Proxy, target string, tlsConfig *tls.Config) string {
	t.Helper()
	proxyURL, err := url.Parse(p.URL())
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: tlsConfig}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(target)
	if err != nil {
		t.Fatalf("GET %s through the proxy: %v", target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s through the proxy: %s %s", target, resp.Status, b)
	}
	return string(b)
}

func TestConnectRefused(t *testing.T) {
	allowed := echoServer(t)
	other := echoServer(t)
	var dialed atomic.Int32
	p := startProxyDialing(t, func(ctx context.Context, network, address string) (net.Conn, error) {
		dialed.Add(1)
		return new(net.Dialer).DialContext(ctx, network, address)
	}, allowed)
	resp, _, br := exchange(t, p.Proxy, "CONNECT "+other+" HTTP/1.1\r\n"+p.authHeader()+"\r\n")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("CONNECT %s (not allowed): %s", other, resp.Status)
	}
	body, _ := io.ReadAll(br)
	if !strings.Contains(string(body), other) {
		t.Errorf("the 403 should name the destination: %q", body)
	}
	if dialed.Load() != 0 {
		t.Errorf("a refused destination was dialed")
	}
	want := []Refusal{{Destination: other, Method: "CONNECT"}}
	if got := p.Refusals(); !slices.Equal(got, want) {
		t.Errorf("refusals %v, want %v", got, want)
	}
	if !strings.Contains(p.Log(), "destination refused") || !strings.Contains(p.Log(), other) {
		t.Errorf("the log should name the refused destination:\n%s", p.Log())
	}
}

// A plain http:// request is passed on in origin form, its Host the URL's, without the
// proxy's headers, and its streamed reply comes back piece by piece.
func TestPlainHTTPRequest(t *testing.T) {
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.RequestURI != "/v1/stream?x=1" {
			t.Errorf("request URI %q, want origin form", r.RequestURI)
		}
		for _, h := range []string{"Proxy-Authorization", "Proxy-Connection", "X-Hop"} {
			if r.Header.Get(h) != "" {
				t.Errorf("%s reached the server", h)
			}
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", body)
		w.(http.Flusher).Flush()
		<-next
		io.WriteString(w, "data: second\n\n")
	}))
	defer srv.Close()
	host := srv.Listener.Addr().String()
	p := startProxy(t, host)
	resp, _, br := exchange(t, p.Proxy, "POST "+srv.URL+"/v1/stream?x=1 HTTP/1.1\r\nHost: elsewhere.example:80\r\n"+p.authHeader()+
		"Proxy-Connection: keep-alive\r\nConnection: X-Hop\r\nX-Hop: 1\r\nContent-Length: 5\r\n\r\nfirst")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" || !resp.Close {
		t.Fatalf("reply %s %v (close %v)", resp.Status, resp.Header, resp.Close)
	}
	first := make([]byte, len("data: first\n\n"))
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != "data: first\n\n" {
		t.Fatalf("first event %q, %v (it must arrive before the server sends the second)", first, err)
	}
	close(next)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(rest) != "data: second\n\n" {
		t.Fatalf("rest %q, %v", rest, err)
	}
	if extra, _ := io.ReadAll(br); len(extra) != 0 {
		t.Errorf("after the reply: %q", extra)
	}
}

func TestPlainHTTPThroughGoTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "host %s", r.Host)
	}))
	defer srv.Close()
	p := startProxy(t, srv.Listener.Addr().String())
	if body := get(t, p.Proxy, srv.URL+"/x", nil); body != "host "+srv.Listener.Addr().String() {
		t.Fatalf("body %q", body)
	}
}

func TestPlainHTTPRefused(t *testing.T) {
	p := startProxy(t, "example.com:80")
	resp, _, _ := exchange(t, p.Proxy, "GET http://localhost:8080/ HTTP/1.1\r\nHost: localhost:8080\r\n"+p.authHeader()+"\r\n")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("GET http://localhost:8080/: %s", resp.Status)
	}
	want := []Refusal{{Destination: "localhost:8080", Method: "GET"}}
	if got := p.Refusals(); !slices.Equal(got, want) {
		t.Errorf("refusals %v, want %v", got, want)
	}
}

func TestPasswordRequired(t *testing.T) {
	addr := echoServer(t)
	p := startProxy(t, addr)
	for name, auth := range map[string]string{
		"none":      "",
		"wrong":     "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("parley:guess")) + "\r\n",
		"no colon":  "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(p.token)) + "\r\n",
		"bearer":    "Proxy-Authorization: Bearer " + p.token + "\r\n",
		"not b64":   "Proxy-Authorization: Basic !!!\r\n",
		"other hdr": "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("parley:"+p.token)) + "\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			resp, _, _ := exchange(t, p.Proxy, "CONNECT "+addr+" HTTP/1.1\r\n"+auth+"\r\n")
			if resp.StatusCode != http.StatusProxyAuthRequired || !strings.HasPrefix(resp.Header.Get("Proxy-Authenticate"), "Basic") {
				t.Fatalf("CONNECT with %s: %s %v", name, resp.Status, resp.Header)
			}
		})
	}
	if len(p.Refusals()) != 0 {
		t.Errorf("a request without the password is not a destination refused: %v", p.Refusals())
	}
}

func TestMalformedRequestsAnswered(t *testing.T) {
	p := startProxy(t, "example.com:443")
	auth := p.authHeader()
	for _, tc := range []struct {
		name, raw string
		status    int
	}{
		{"garbage", "hello\r\n\r\n", http.StatusBadRequest},
		{"bad version", "GET http://example.com/ HTTP/9\r\n\r\n", http.StatusBadRequest},
		{"origin form", "GET / HTTP/1.1\r\nHost: example.com\r\n" + auth + "\r\n", http.StatusBadRequest},
		{"https absolute", "GET https://example.com/ HTTP/1.1\r\n" + auth + "\r\n", http.StatusBadRequest},
		{"connect no port", "CONNECT example.com HTTP/1.1\r\n" + auth + "\r\n", http.StatusBadRequest},
		{"connect port 0", "CONNECT example.com:0 HTTP/1.1\r\n" + auth + "\r\n", http.StatusBadRequest},
		{"connect port text", "CONNECT example.com:https HTTP/1.1\r\n" + auth + "\r\n", http.StatusBadRequest},
		{"connect path", "CONNECT /example.com:443 HTTP/1.1\r\n" + auth + "\r\n", http.StatusBadRequest},
		{"connect user", "CONNECT u@example.com:443 HTTP/1.1\r\n" + auth + "\r\n", http.StatusBadRequest},
		{"connect odd host", "CONNECT exa%6dple.com:443 HTTP/1.1\r\n" + auth + "\r\n", http.StatusBadRequest},
		{"headers too large", "CONNECT example.com:443 HTTP/1.1\r\nX: " + strings.Repeat("a", maxHeaderBytes) + "\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _, br := exchange(t, p.Proxy, tc.raw)
			if resp.StatusCode != tc.status {
				t.Fatalf("%q: %s, want %d", tc.raw[:min(len(tc.raw), 60)], resp.Status, tc.status)
			}
			if _, err := io.ReadAll(br); err != nil {
				t.Fatalf("the connection should end after the answer: %v", err)
			}
		})
	}
	if len(p.Refusals()) != 0 {
		t.Errorf("malformed requests are not refusals of a destination: %v", p.Refusals())
	}
}

// Close ends a tunnel that carries nothing, and returns only when its goroutines have
// (TestMain's leak check sees the rest).
func TestCloseEndsIdleTunnels(t *testing.T) {
	addr := echoServer(t)
	p := startProxy(t, addr)
	resp, _, br := exchange(t, p.Proxy, "CONNECT "+addr+" HTTP/1.1\r\n"+p.authHeader()+"\r\n")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT: %s", resp.Status)
	}
	p.Close()
	if _, err := br.ReadByte(); err == nil {
		t.Fatal("the tunnel still carries bytes after Close")
	}
	if _, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.Port())); err == nil {
		t.Fatal("the proxy still accepts connections after Close")
	}
}

// Start's context ends the proxy as Close does.
func TestStartContextEndsProxy(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	p, err := Start(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	p.Close()
	if _, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.Port())); err == nil {
		t.Fatal("the proxy still accepts connections after its context ended")
	}
}

func TestBadAllowListRefusedAtStart(t *testing.T) {
	_, err := Start(t.Context(), Config{Allow: []string{"example.com:443", "example.org"}})
	if err == nil || !strings.Contains(err.Error(), `"example.org"`) {
		t.Fatalf("Start with an entry without a port: %v", err)
	}
}

func TestEnviron(t *testing.T) {
	p := startProxy(t)
	env := p.Environ([]string{"PATH=/bin", "HTTPS_PROXY=http://corp:3128", "no_proxy=localhost", "NODE_USE_ENV_PROXY=0", "HOME=/h"})
	get := func(name string) []string {
		var values []string
		for _, kv := range env {
			if n, v, _ := strings.Cut(kv, "="); n == name {
				values = append(values, v)
			}
		}
		return values
	}
	for name, want := range map[string]string{
		"PATH": "/bin", "HOME": "/h", "HTTPS_PROXY": p.URL(), "http_proxy": p.URL(), "ALL_PROXY": p.URL(),
		"no_proxy": "", "NO_PROXY": "", "NODE_USE_ENV_PROXY": "1",
	} {
		if got := get(name); !slices.Equal(got, []string{want}) {
			t.Errorf("%s = %q, want once %q", name, got, want)
		}
	}
	u, err := url.Parse(p.URL())
	if err != nil || u.Hostname() != "127.0.0.1" || u.Port() != fmt.Sprint(p.Port()) {
		t.Fatalf("URL %q: %v", p.URL(), err)
	}
	if pw, _ := u.User.Password(); pw != p.token || len(pw) < 20 {
		t.Errorf("the URL should carry the proxy's password")
	}
}

// The reply's framing is the proxy's own: a known length stays, an unknown one is
// chunked for HTTP/1.1 and ends with the connection for HTTP/1.0, HEAD keeps the
// length it announces, and a client expecting 100 Continue gets it from the proxy.
func TestPlainHTTPFraming(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/sized" {
			w.Header().Set("Content-Length", "5")
			io.WriteString(w, "sized")
			return
		}
		w.(http.Flusher).Flush() // no length: chunked
		fmt.Fprintf(w, "streamed %s", body)
	}))
	defer srv.Close()
	p := startProxy(t, srv.Listener.Addr().String())
	auth := p.authHeader()
	for _, tc := range []struct {
		name, raw, wantBody string
		wantLength          int64
		wantChunked         bool
	}{
		{"sized", "GET " + srv.URL + "/sized HTTP/1.1\r\n" + auth + "\r\n", "sized", 5, false},
		{"head", "HEAD " + srv.URL + "/sized HTTP/1.1\r\n" + auth + "\r\n", "", 5, false},
		{"chunked", "GET " + srv.URL + "/s HTTP/1.1\r\n" + auth + "\r\n", "streamed ", -1, true},
		{"http/1.0", "GET " + srv.URL + "/s HTTP/1.0\r\n" + auth + "\r\n", "streamed ", -1, false},
		{"expect", "POST " + srv.URL + "/s HTTP/1.1\r\n" + auth + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\nhi", "streamed hi", -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _, br := exchange(t, p.Proxy, tc.raw)
			if tc.name == "expect" {
				if resp.StatusCode != http.StatusContinue {
					t.Fatalf("first reply %s, want 100 Continue", resp.Status)
				}
				var err error
				if resp, err = http.ReadResponse(br, nil); err != nil {
					t.Fatal(err)
				}
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil || string(body) != tc.wantBody || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s %q, %v", resp.Status, body, err)
			}
			chunked := slices.Equal(resp.TransferEncoding, []string{"chunked"})
			if tc.name == "head" {
				if resp.Header.Get("Content-Length") != "5" {
					t.Errorf("HEAD's Content-Length %q, want the origin's 5", resp.Header.Get("Content-Length"))
				}
			} else if resp.ContentLength != tc.wantLength || chunked != tc.wantChunked {
				t.Errorf("length %d chunked %v, want %d %v", resp.ContentLength, chunked, tc.wantLength, tc.wantChunked)
			}
		})
	}
}

// An allowed destination nobody listens on is answered 502, naming it.
func TestUnreachableDestination(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := startProxy(t, addr)
	resp, _, br := exchange(t, p.Proxy, "CONNECT "+addr+" HTTP/1.1\r\n"+p.authHeader()+"\r\n")
	body, _ := io.ReadAll(br)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), addr) {
		t.Fatalf("CONNECT to a closed port: %s %q", resp.Status, body)
	}
	if len(p.Refusals()) != 0 {
		t.Errorf("an allowed destination that does not answer is not a refusal: %v", p.Refusals())
	}
}
