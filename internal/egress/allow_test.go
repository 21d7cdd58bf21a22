package egress

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestParseRule(t *testing.T) {
	for entry, want := range map[string]string{
		"api.example.com:443":   "api.example.com:443",
		"API.Example.COM.:443":  "api.example.com:443",
		"*.example.com:443":     "*.example.com:443",
		"127.0.0.1:11434":       "127.0.0.1:11434",
		"[::1]:8080":            "[::1]:8080",
		"[::ffff:10.0.0.1]:80":  "10.0.0.1:80",
		"my_host-1.internal:22": "my_host-1.internal:22",
	} {
		r, err := parseRule(entry)
		if err != nil || r.String() != want {
			t.Errorf("parseRule(%q) = %v, %v; want %s", entry, r, err, want)
		}
	}
	for _, entry := range []string{
		"", "example.com", "example.com:", ":443", "example.com:0", "example.com:65536", "example.com:+1",
		"example.com:https", "*:443", "*.:443", "*example.com:443", "a.*.example.com:443", "exa mple.com:443",
		"exa%6dple.com:443", "-a.example.com:443", "a..example.com:443", "[fe80::1%eth0]:80", "::1:80",
		strings.Repeat("a", 64) + ".com:443", "example.com:443/path", "http://example.com:443",
	} {
		if r, err := parseRule(entry); err == nil {
			t.Errorf("parseRule(%q) = %v, want an error", entry, r)
		}
	}
}

func TestRuleMatches(t *testing.T) {
	rules, err := parseRules([]string{"api.example.com:443", "*.example.org:443", "127.0.0.1:11434", "[::1]:8080"})
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{rules: rules}
	for dest, want := range map[string]bool{
		"api.example.com:443":      true,
		"API.EXAMPLE.COM.:443":     true,
		"api.example.com:80":       false, // another port
		"example.com:443":          false,
		"evil-api.example.com:443": false,
		"api.example.com.evil:443": false,
		"a.example.org:443":        true,
		"a.b.example.org:443":      true,
		"example.org:443":          false, // *.example.org is what is under it
		"badexample.org:443":       false,
		"127.0.0.1:11434":          true,
		"[::ffff:127.0.0.1]:11434": true,  // the same address
		"localhost:11434":          false, // a name never matches an address rule
		"127.0.0.2:11434":          false,
		"[::1]:8080":               true,
		"[0:0:0:0:0:0:0:1]:8080":   true,
	} {
		d, err := parseDestination(dest)
		if err != nil {
			t.Errorf("parseDestination(%q): %v", dest, err)
			continue
		}
		if got := p.allowed(d); got != want {
			t.Errorf("allowed(%s) = %v, want %v", dest, got, want)
		}
	}
}

// fakeConn is a client connection that sends a fixed input and keeps what it is sent.
type fakeConn struct {
	io.Reader
	out bytes.Buffer
}

func (c *fakeConn) Write(b []byte) (int, error)      { return c.out.Write(b) }
func (c *fakeConn) Close() error                     { return nil }
func (c *fakeConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *fakeConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *fakeConn) SetDeadline(time.Time) error      { return nil }
func (c *fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fakeConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzServe feeds any bytes to the proxy as a client's request: it must answer (or end
// the connection) without a panic, and dial nothing but an allowed destination.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		"CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n",
		"CONNECT evil.example.net:443 HTTP/1.1\r\n\r\n",
		"CONNECT 127.0.0.1:11434 HTTP/1.1\r\n\r\n",
		"CONNECT [::ffff:127.0.0.1]:11434 HTTP/1.1\r\n\r\n",
		"GET http://a.example.org/x HTTP/1.1\r\nHost: b\r\n\r\n",
		"GET http://a.example.org:443/x HTTP/1.1\r\n\r\n",
		"POST http://127.0.0.1:11434/api HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nhi",
		"GET http://[::1]:8080/ HTTP/1.0\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"CONNECT api.example.com:443 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"\x00\x01\x02",
	} {
		f.Add(seed, true)
	}
	rules, err := parseRules([]string{"api.example.com:443", "*.example.org:443", "127.0.0.1:11434", "[::1]:8080"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string, withPassword bool) {
		p, err := newProxy(context.Background(), Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.cancel()
		p.rules = rules
		p.dial = func(ctx context.Context, network, address string) (net.Conn, error) {
			d, err := parseDestination(address)
			if err != nil || !p.allowed(d) {
				t.Fatalf("dialed %q for request %q", address, raw)
			}
			return nil, errors.New("no network in this test")
		}
		if withPassword {
			if line, rest, ok := strings.Cut(raw, "\r\n"); ok {
				raw = line + "\r\n" + p.authHeader() + rest
			}
		}
		c := &fakeConn{Reader: strings.NewReader(raw)}
		p.serve(c)
		if out := c.out.String(); out != "" && !strings.HasPrefix(out, "HTTP/1.1 ") {
			t.Fatalf("answer %q", out)
		}
	})
}

// A client that connects and says nothing is dropped when the header timeout passes,
// with 408.
func TestSilentClientTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := newProxy(t.Context(), Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.cancel()
		client, server := net.Pipe()
		defer client.Close()
		var wg sync.WaitGroup
		ended := false
		wg.Go(func() {
			defer server.Close()
			p.serve(server)
			ended = true
		})
		time.Sleep(headerTimeout - time.Second)
		synctest.Wait()
		if ended {
			t.Fatal("the proxy gave up on a client before the header timeout")
		}
		var got []byte
		var readErr error
		wg.Go(func() { got, readErr = io.ReadAll(client) })
		time.Sleep(time.Second)
		wg.Wait()
		if !ended || readErr != nil || !strings.HasPrefix(string(got), "HTTP/1.1 408 ") {
			t.Fatalf("after the header timeout: ended %v, %q, %v", ended, got, readErr)
		}
	})
}
