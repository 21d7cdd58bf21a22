package remote

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// TokenEnv is the variable the token may come in instead of the address: a command
// line is there for every process of the machine to read (ps), the environment is not.
const TokenEnv = "PARLEY_TOKEN"

// tokenProtocol is the WebSocket subprotocol that carries the token (internal/webui).
const tokenProtocol = "parley-token."

// Options say how to reach the server.
type Options struct {
	// Token is used when the address carries none (it is $PARLEY_TOKEN for the commands).
	Token string
	// CAFile, when set, is a PEM file of the certificates that sign the server's (a
	// private CA), trusted besides the system's.
	CAFile string
	// DialTimeout bounds the connection and its handshake (30s when 0).
	DialTimeout time.Duration
}

// Target is a server address taken apart.
type Target struct {
	WS    string // the ACP WebSocket: ws(s)://host:port[/prefix]/acp
	Show  string // the address as given, without its token, for messages
	Token string
}

// ParseAddress reads the address parley web printed: http(s)://host:port[/prefix]/?token=…
// (ws and wss are taken too; a path that already ends in /acp is kept). The token comes
// from the address, else from token.
func ParseAddress(raw, token string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return Target{}, fmt.Errorf("--connect %q is not an address: give the one parley web printed (http://HOST:PORT/?token=…)", redact(raw))
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	case "ws", "wss":
	default:
		return Target{}, fmt.Errorf("--connect %q: the address starts with http:// or https:// (the one parley web printed)", redact(raw))
	}
	if t := u.Query().Get("token"); t != "" {
		token = t
	}
	if token == "" {
		return Target{}, fmt.Errorf("--connect %s: no token: give the address with its ?token=… as parley web printed it, or (better: ps shows a command line) the token in $%s", redact(raw), TokenEnv)
	}
	path := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(path, "/acp") {
		path += "/acp"
	}
	show := *u
	show.RawQuery, show.Fragment, show.User = "", "", nil
	show.Scheme = strings.Replace(strings.Replace(show.Scheme, "wss", "https", 1), "ws", "http", 1)
	u.Path, u.RawPath, u.RawQuery, u.Fragment, u.User = path, "", "", "", nil
	return Target{WS: u.String(), Show: show.String(), Token: token}, nil
}

// redact is an address for a message: without its token.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an address that cannot be read)"
	}
	if q := u.Query(); q.Has("token") {
		q.Set("token", "…")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Conn is an open connection to a parley server's ACP WebSocket.
type Conn struct {
	ws   *websocket.Conn
	addr string

	mu     sync.Mutex
	lost   string             // why the keepalive gave up, if it did
	ctx    context.Context    // the keepalive's: done when the connection is being closed
	cancel context.CancelFunc // ends the keepalive
	pinger sync.WaitGroup
}

// Addr is the server's address, without the token.
func (c *Conn) Addr() string { return c.addr }

// readLimit bounds one message from the server: a replayed conversation may carry
// whole files.
const readLimit = 256 << 20

// Keepalive: a connection whose network went away without a word (a laptop's lid, a
// dropped route) is noticed within pingEvery+pingWait instead of when TCP gives up.
var (
	pingEvery = 30 * time.Second
	pingWait  = 20 * time.Second
)

// Dial opens the ACP WebSocket of the server at the address raw.
func Dial(ctx context.Context, raw string, opts Options) (*Conn, error) {
	t, err := ParseAddress(raw, opts.Token)
	if err != nil {
		return nil, err
	}
	client, err := httpClient(opts.CAFile)
	if err != nil {
		return nil, err
	}
	timeout := opts.DialTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ws, resp, err := websocket.Dial(dctx, t.WS, &websocket.DialOptions{
		HTTPClient:   client,
		Subprotocols: []string{"acp", tokenProtocol + t.Token},
	})
	if err != nil {
		return nil, dialError(t, resp, err, ctx)
	}
	if ws.Subprotocol() != "acp" {
		ws.CloseNow()
		return nil, fmt.Errorf("%s took the WebSocket but not ACP (subprotocol %q): it is not a parley server, or not a version that serves ACP there", t.Show, ws.Subprotocol())
	}
	ws.SetReadLimit(readLimit)
	c := &Conn{ws: ws, addr: t.Show}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.pinger.Go(c.keepalive)
	return c, nil
}

func httpClient(caFile string) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca %s: no PEM certificate in it", caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr}, nil
}

// dialError says why the WebSocket could not be opened, and what to do.
func dialError(t Target, resp *http.Response, err error, ctx context.Context) error {
	if resp != nil {
		var body []byte
		if resp.Body != nil {
			body, _ = io.ReadAll(resp.Body)
		}
		text := strings.TrimSpace(string(body))
		said := ""
		if strings.HasPrefix(text, "parley:") {
			said = ": " + strings.TrimSpace(strings.TrimPrefix(text, "parley:"))
		}
		switch {
		case (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && said != "":
			return fmt.Errorf("%s refused the connection (HTTP %d%s): check the token (parley web prints the address with it; a revoked or replaced token stops working at once)", t.Show, resp.StatusCode, said)
		case said != "":
			return fmt.Errorf("%s refused the connection (HTTP %d%s)", t.Show, resp.StatusCode, said)
		case resp.StatusCode == http.StatusSwitchingProtocols:
			return fmt.Errorf("%s: the WebSocket handshake failed (%v): is it a parley server?", t.Show, err)
		default:
			return fmt.Errorf("%s answered HTTP %d (%s) instead of opening parley's ACP WebSocket: it is not a parley server, or the path is wrong (behind a proxy, give the address with its path prefix)", t.Show, resp.StatusCode, http.StatusText(resp.StatusCode))
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("connecting to %s: %w", t.Show, ctx.Err())
	}
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &unknownCA):
		return fmt.Errorf("%s: its TLS certificate is signed by an authority this machine does not trust: give the CA's certificate with --tls-ca FILE (or $SSL_CERT_FILE on Linux)", t.Show)
	case errors.As(err, &hostname):
		return fmt.Errorf("%s: its TLS certificate is not for this name (%v): connect with a name the certificate has", t.Show, hostname)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot reach %s: the name %q is not known (%v)", t.Show, dnsErr.Name, dnsErr.Err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cannot reach %s: no answer in time (a firewall? the right host and port?)", t.Show)
	case errors.As(err, &opErr):
		return fmt.Errorf("cannot reach %s: %v (is parley web running there, and listening beyond 127.0.0.1 if it is another machine?)", t.Show, opErr.Err)
	}
	return fmt.Errorf("connecting to %s: %w", t.Show, err)
}

// keepalive pings the server; one that does not answer in time is given up on (the
// reads then fail, and say why: Lost).
func (c *Conn) keepalive() {
	tick := time.NewTicker(pingEvery)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(c.ctx, pingWait)
		err := c.ws.Ping(ctx)
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		if err != nil {
			if timedOut {
				c.mu.Lock()
				c.lost = fmt.Sprintf("the server did not answer for %v: the connection is lost", pingWait)
				c.mu.Unlock()
				c.ws.CloseNow()
			}
			return
		}
	}
}

// Gone says why a read of the connection failed: the server's close reason (a revoked
// token, the server shutting down), a lost connection, or err itself.
func (c *Conn) Gone(err error) string {
	c.mu.Lock()
	lost := c.lost
	c.mu.Unlock()
	if lost != "" {
		return lost
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		switch {
		case ce.Reason != "":
			return "the server closed the connection: " + ce.Reason
		case ce.Code == websocket.StatusGoingAway:
			return "the server is shutting down"
		case ce.Code == websocket.StatusNormalClosure:
			return "the server closed the connection"
		}
		return fmt.Sprintf("the server closed the connection (status %d)", ce.Code)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return "the connection was cut (the server stopped, or the network went away)"
	}
	return "the connection failed: " + err.Error()
}

// Close ends the connection normally, saying why (reason, at most 123 bytes).
func (c *Conn) Close(reason string) error {
	c.stopKeepalive()
	if len(reason) > 120 {
		reason = reason[:120]
	}
	return c.ws.Close(websocket.StatusNormalClosure, reason)
}

func (c *Conn) stopKeepalive() {
	c.cancel()
	c.pinger.Wait()
}
