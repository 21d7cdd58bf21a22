// Package egress is the proxy that narrows a confined agent's network to the
// destinations the user allowed (`--sandbox-net HOST:PORT`). parley runs it on
// 127.0.0.1, on a port of its own, and the kernel lets the agent connect to that port
// only (Landlock's TCP rules on Linux, Seatbelt on macOS): what the agent reaches, it
// reaches through here, whether or not it honours the proxy variables (one that does
// not simply fails to connect). Landlock's rules name ports, not hosts: a rule for 443
// would let the agent reach every server's 443, so host names are checked here.
//
// It speaks HTTP/1.1 proxying as clients expect it from HTTPS_PROXY and HTTP_PROXY:
// CONNECT tunnels (https, wss, anything over TCP) and plain `http://` requests in
// absolute form. A destination is allowed when it matches an entry of the allow list:
// an exact host name, every name under a domain (`*.example.com`, not example.com
// itself) or an IP address, each with its port. Host names are resolved here, so the
// agent needs nothing but this port and name resolution. Anything else is answered
// 403, logged with its destination and reported to Config.Refused, so the front-end
// can say what the agent tried to reach.
//
// The proxy asks for a password (Proxy-Authorization, Basic, any user name): the URL
// in its environment carries it (`http://parley:TOKEN@127.0.0.1:PORT`), and clients
// send it from there (Go, curl, Python, Rust's reqwest, Node's built-in support and
// undici). Any local process, another user's included, can connect to a port on
// 127.0.0.1; without the password they cannot borrow the agent's allowances. A process
// of the same user that can read the agent's environment gets the password too: that is
// the agent's own sandbox to prevent, not the proxy's.
package egress

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config is what Start needs; the zero value of a field is its default.
type Config struct {
	// Allow lists the destinations the proxy lets through, each HOST:PORT, *.DOMAIN:PORT,
	// IP:PORT or [IPv6]:PORT. An empty list refuses everything.
	Allow []string
	// Logger receives a line (Warn) for every refusal, every request without the
	// password and every allowed destination that could not be reached, and one (Debug)
	// for every destination reached (nil: none).
	Logger *slog.Logger
	// Refused, when set, is told of every refused request, on the goroutine serving it,
	// before the client is answered 403: it must return soon (hand the news to a
	// channel or a mutex-guarded list, not to a prompt).
	Refused func(Refusal)
}

// Refusal is one request the proxy refused because its destination is not allowed.
type Refusal struct {
	Destination string // HOST:PORT as the client asked for it (host in lower case)
	Method      string // CONNECT, or the plain http request's method
}

// Proxy is a running allow-list proxy. Its owner must Close it.
type Proxy struct {
	rules   []rule
	log     *slog.Logger
	refused func(Refusal)
	token   string
	dial    func(ctx context.Context, network, address string) (net.Conn, error)

	ln     net.Listener
	ctx    context.Context // cancelled by Close (or by Start's context): ends dials
	cancel context.CancelFunc

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // every open connection, clients' and upstream
	closed bool

	wg sync.WaitGroup // every goroutine the proxy started
}

// Timeouts of the steps that wait on the other side. A tunnel or a streamed reply has
// none (a model may think for minutes between two events): Close ends those.
const (
	headerTimeout  = 30 * time.Second // a client sending its request line and headers
	dialTimeout    = 30 * time.Second // resolving and connecting to a destination
	answerTimeout  = 10 * time.Second // a client reading the proxy's own answer
	maxHeaderBytes = 64 << 10         // a request's line and headers
)

// Start listens on a random port of 127.0.0.1 and serves until Close, or until ctx is
// done (then only Close's wait remains for the owner).
func Start(ctx context.Context, cfg Config) (*Proxy, error) {
	return start(ctx, cfg, nil)
}

// start is Start with dial (not nil) in place of the dialer.
func start(ctx context.Context, cfg Config, dial func(ctx context.Context, network, address string) (net.Conn, error)) (*Proxy, error) {
	p, err := newProxy(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if dial != nil {
		p.dial = dial
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		p.cancel()
		return nil, fmt.Errorf("starting the network proxy: %w", err)
	}
	p.ln = ln
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		<-p.ctx.Done()
		p.closeAll()
	}()
	go func() {
		defer p.wg.Done()
		p.acceptLoop()
	}()
	return p, nil
}

// newProxy is a proxy without its listener: Start's, and the tests' for serve alone.
func newProxy(ctx context.Context, cfg Config) (*Proxy, error) {
	rules, err := parseRules(cfg.Allow)
	if err != nil {
		return nil, err
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	dialer := &net.Dialer{Timeout: dialTimeout}
	p := &Proxy{
		rules:   rules,
		log:     logger,
		refused: cfg.Refused,
		token:   rand.Text(),
		dial:    dialer.DialContext,
		conns:   make(map[net.Conn]struct{}),
	}
	p.ctx, p.cancel = context.WithCancel(ctx)
	return p, nil
}

// Port is the port the proxy listens on, on 127.0.0.1: the one port a confined agent
// may connect to.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// URL is the proxy's address with its password, as the proxy variables carry it.
func (p *Proxy) URL() string {
	return "http://parley:" + p.token + "@" + net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port()))
}

// Allowed lists the destinations the proxy lets through, in their canonical form.
func (p *Proxy) Allowed() []string {
	out := make([]string, len(p.rules))
	for i, r := range p.rules {
		out[i] = r.String()
	}
	return out
}

// proxyVariables are the variables Env sets and Environ replaces. NO_PROXY is emptied:
// the user's exceptions (localhost, the company's hosts) would send the agent around
// the proxy, into a connection the sandbox refuses.
var proxyVariables = []string{
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy",
	"NO_PROXY", "no_proxy", "NODE_USE_ENV_PROXY",
}

// Env is the environment that sends an agent's connections here. NODE_USE_ENV_PROXY=1
// makes Node read the proxy variables: fetch from Node 22.21 and 24.0, the http and
// https modules from 22.21 and 24.5; Node 20 and older ignore it, and an agent there
// reaches nothing its own code does not send through a proxy.
//
// Clients that never proxy loopback destinations (Go's ProxyFromEnvironment, and
// others that treat localhost as an exception of their own) connect to an allowed
// 127.0.0.1 destination directly, where the sandbox refuses them unless it lets that
// port through too.
func (p *Proxy) Env() []string {
	u := p.URL()
	var env []string
	for _, name := range proxyVariables {
		switch {
		case strings.EqualFold(name, "NO_PROXY"):
			env = append(env, name+"=")
		case name == "NODE_USE_ENV_PROXY":
			env = append(env, name+"=1")
		default:
			env = append(env, name+"="+u)
		}
	}
	return env
}

// Environ is base without any variable Env sets, then Env: a process reads the first
// of two equal names, so the old values must go, not be shadowed.
func (p *Proxy) Environ(base []string) []string {
	out := slices.DeleteFunc(slices.Clone(base), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(proxyVariables, name)
	})
	return append(out, p.Env()...)
}

// Close stops listening, closes every connection (open tunnels and streamed replies
// included) and returns when every goroutine of the proxy has ended.
func (p *Proxy) Close() error {
	p.cancel()
	p.wg.Wait()
	return nil
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.ln != nil {
		p.ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
}

// track adds c to the connections Close ends, or closes it and reports false when the
// proxy is closing.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// forget closes c and drops it from the connections Close ends.
func (p *Proxy) forget(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *Proxy) acceptLoop() {
	backoff := 5 * time.Millisecond
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			if p.ctx.Err() != nil {
				return
			}
			// Out of descriptors, or the like: wait a little rather than spin.
			p.log.Warn("egress: accepting a connection", "err", err)
			select {
			case <-p.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		if !p.track(conn) {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.forget(conn)
			p.serve(conn)
		}()
	}
}

// allowed reports whether d matches a rule.
func (p *Proxy) allowed(d destination) bool {
	return slices.ContainsFunc(p.rules, func(r rule) bool { return r.matches(d) })
}
