// Package webui serves the web chat: the page (built from web/ in the repository and
// embedded here, so the binary needs no Node) and /acp, the WebSocket over which the
// page speaks ACP to parley (internal/acpserver), one JSON-RPC message per text frame.
//
// The server is safe by construction, because any web page the user visits can reach a
// port on 127.0.0.1, and any process of the machine can read a command line:
//
//   - every path wants a session (see Auth): a visit with ?token= (the address parley
//     prints) or with ?code= (a one-time code, the address parley gives the browser it
//     starts) gets a fresh session secret as a cookie (HttpOnly, SameSite=Strict, named
//     for the port, Secure over TLS) and is sent on to the address without it; /acp also
//     takes the token as a WebSocket subprotocol, since only browsers set cookies;
//   - POST /rotate (from the page, with its session) replaces the token: the old token,
//     codes and sessions are refused from then on and their WebSocket connections closed;
//   - the Host header must name the address parley listens on (127.0.0.1, localhost,
//     [::1], or the --listen host) with its port: a DNS rebinding attack sends another;
//   - a WebSocket's or a POST's Origin, when there is one (browsers always send it), must
//     be the page's own origin;
//   - the page is sent with a Content-Security-Policy that allows only its own script and
//     style (no inline script, no eval), images from data: and blob: only, connections
//     only back to parley, no frames, no forms, no remote loads of any kind.
package webui

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/internal/acpserver"
)

//go:embed dist
var dist embed.FS

// Options configure the web chat's handler.
type Options struct {
	ACP  *acpserver.Server
	Auth *Auth
	// Rotated is called with the new token when the page has the token replaced (POST
	// /rotate), so the new address can be given to the user.
	Rotated func(token string)
	// Port is the port parley listens on; Hosts the host names a request may name (the
	// loopback names, and the --listen host).
	Port   int
	Hosts  []string
	Logger *slog.Logger
}

// LoopbackHosts are the host names of the loopback address a request may use.
var LoopbackHosts = []string{"127.0.0.1", "localhost", "::1"}

// Handler serves the page and /acp.
func Handler(opts Options) http.Handler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &handler{opts: opts, cookie: "parley_" + strconv.Itoa(opts.Port)}
	assets, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embedded tree is part of the build
	}
	h.assets = http.FileServerFS(assets)
	return h
}

type handler struct {
	opts   Options
	cookie string
	assets http.Handler
}

// csp allows the page's own script and style and nothing else from anywhere.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cache-Control", "no-store")
	if !h.hostAllowed(r.Host) {
		http.Error(w, "parley: this address is not the one parley serves (Host "+strconv.Quote(r.Host)+")", http.StatusMisdirectedRequest)
		return
	}
	if r.URL.Path == "/" && (r.URL.Query().Has("token") || r.URL.Query().Has("code")) {
		h.signIn(w, r)
		return
	}
	if r.URL.Path == "/acp" {
		h.serveACP(w, r)
		return
	}
	if _, ok := h.session(r); !ok {
		http.Error(w, "parley: open the address parley printed (it carries the token)", http.StatusUnauthorized)
		return
	}
	if r.URL.Path == "/rotate" {
		h.rotate(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "parley: method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr.Set("Content-Security-Policy", csp)
	hdr.Set("X-Frame-Options", "DENY")
	h.assets.ServeHTTP(w, r)
}

// hostAllowed checks the Host header: one of the names parley serves, with its port.
func (h *handler) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port != strconv.Itoa(h.opts.Port) {
		return false
	}
	for _, allowed := range h.opts.Hosts {
		if strings.EqualFold(host, allowed) {
			return true
		}
	}
	return false
}

// signIn trades the token or a one-time code for a session cookie, and sends the browser
// on to the address without them, so they stay out of its history and screenshots.
func (h *handler) signIn(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var session string
	var ok bool
	if q.Has("token") {
		if session, ok = h.opts.Auth.sessionForToken(q.Get("token")); !ok {
			http.Error(w, "parley: wrong token (parley web makes a new one each time it starts, and when the page asks); open the address parley printed last", http.StatusForbidden)
			return
		}
	} else if session, ok = h.opts.Auth.sessionForCode(q.Get("code")); !ok {
		http.Error(w, "parley: this one-time address was used already or has expired; open the address parley printed", http.StatusForbidden)
		return
	}
	h.setCookie(w, r, session)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (h *handler) setCookie(w http.ResponseWriter, r *http.Request, session string) {
	http.SetCookie(w, &http.Cookie{
		Name: h.cookie, Value: session, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
}

// session reports whether the request carries a live session cookie.
func (h *handler) session(r *http.Request) (revoked <-chan struct{}, ok bool) {
	c, err := r.Cookie(h.cookie)
	if err != nil {
		return nil, false
	}
	return h.opts.Auth.sessionOK(c.Value)
}

// ownOrigin reports whether the request comes from parley's own page, or from no page at
// all (no Origin: not a browser's cross-site request).
func ownOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	return origin == "" || origin == scheme(r)+"://"+r.Host
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// rotate replaces the token at the page's request. The page that asked gets a session
// under the new token; every other session, and every connection, ends.
func (h *handler) rotate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "parley: /rotate wants POST", http.StatusMethodNotAllowed)
		return
	}
	if !ownOrigin(r) {
		http.Error(w, "parley: only parley's own page may replace the token", http.StatusForbidden)
		return
	}
	tok := h.opts.Auth.Rotate()
	h.setCookie(w, r, h.opts.Auth.newSession())
	if h.opts.Rotated != nil {
		h.opts.Rotated(tok)
	}
	w.WriteHeader(http.StatusNoContent)
}

// tokenProtocol is the WebSocket subprotocol that carries the token: parley-token.TOKEN.
const tokenProtocol = "parley-token."

func (h *handler) serveACP(w http.ResponseWriter, r *http.Request) {
	revoked, authorized := h.session(r)
	for _, p := range subprotocols(r) {
		if tok, ok := strings.CutPrefix(p, tokenProtocol); ok {
			if rv, ok := h.opts.Auth.tokenOK(tok); ok {
				revoked, authorized = rv, true
			}
		}
	}
	if !authorized {
		http.Error(w, "parley: /acp wants the token", http.StatusUnauthorized)
		return
	}
	if !ownOrigin(r) {
		http.Error(w, fmt.Sprintf("parley: a WebSocket from %q is not parley's own page", r.Header.Get("Origin")), http.StatusForbidden)
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{"acp"},
		// The Origin was checked above against the Host, which was checked against the
		// names parley serves.
		InsecureSkipVerify: true,
	})
	if err != nil {
		return // Accept has answered
	}
	ws.SetReadLimit(64 << 20)
	stream := newWSStream(ws)
	// A rotation ends the connection: what let it in is refused from then on.
	ctx, cancel := context.WithCancel(r.Context())
	var watch sync.WaitGroup
	defer watch.Wait()
	defer cancel()
	watch.Go(func() {
		select {
		case <-revoked:
			stream.closeWith(websocket.StatusPolicyViolation, "the token was replaced: open the new address parley printed")
			cancel()
		case <-ctx.Done():
		}
	})
	if err := h.opts.ACP.Serve(ctx, stream); err != nil {
		h.opts.Logger.Debug("web chat connection ended", "error", err)
	}
	stream.Close()
}

// subprotocols lists the WebSocket subprotocols the client offered.
func subprotocols(r *http.Request) []string {
	var out []string
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
